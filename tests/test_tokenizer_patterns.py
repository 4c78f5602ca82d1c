"""Tokenizer patterns whose repetitions side by side make a backtracking engine's time grow as a
power of the text's length (attncli/spec/tokenizer_ways.py): refused before the tokenizer's
process starts, while the patterns real models ship pass.

`\\w{0,200}\\w{0,200}\\w{0,200}\\d|.` on 1,000 letters: the three repetitions share out the
letters before the `\\d` in 201³ = 8,120,601 ways at each position, and Oniguruma tries every
one before `\\d` gives up; it ran to the tokenizer's 10 s bound. The count below is that
product, worked out in the test (a repetition without an end counts 1,000 lengths).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attncli.spec.files import FileProblem
from attncli.spec.tokenizer_check import check_config, check_pattern
from attncli.spec.tokenizer_ways import side_by_side
from tests.conftest import run
from tests.test_tokenizer_bounds import GPT2, LLAMA3, QWEN2

# GPT-4o's (tiktoken's o200k_base) split pattern, and Mistral NeMo's (Tekken), as their
# tokenizer.json files hold them; GPT-4's (cl100k_base) is Llama 3's; the possessive form of it
# nanochat and minbpe write.
O200K = (r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
         r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+"""
         r"""[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}|"""
         r""" ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
TEKKEN = (r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"""
          r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|"""
          r"""\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
GPT4_POSSESSIVE = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}|"""
                   r""" ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+""")
# DeepSeek V3's three splits, and the Replace patterns of T5-style normalizers.
DEEPSEEK = [r"\p{N}{1,3}", r"[一-龥\u3040-ゟ゠-ヿ]+",
            r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?"""
            r"""[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""]
REPLACES = [r" {2,}", r"\s+", r"[\p{Cc}\p{Cf}]+", r"(?:\r?\n)+"]


@pytest.mark.parametrize("pattern", [GPT2, LLAMA3, QWEN2, O200K, TEKKEN, GPT4_POSSESSIVE,
                                     *DEEPSEEK, *REPLACES])
def test_the_patterns_models_ship_pass(pattern: str) -> None:
    assert side_by_side(pattern) is None
    check_pattern(pattern, "pre_tokenizer.pattern.Regex", "tokenizer.json")


def test_berts_configuration_passes() -> None:
    """BERT's normalizer and pre-tokenizer hold no pattern: nothing is refused."""
    check_config({"normalizer": {"type": "BertNormalizer", "clean_text": True,
                                 "handle_chinese_chars": True, "strip_accents": None,
                                 "lowercase": True},
                  "pre_tokenizer": {"type": "BertPreTokenizer"}}, "tokenizer.json", 1000)


@pytest.mark.parametrize(("pattern", "parts", "ways", "limit"), [
    (r"\w{0,200}\w{0,200}\w{0,200}\d|.", (r"\w{0,200}",) * 3, 201 ** 3, 1000),
    (r"\w*\w*\w*\d|.", (r"\w*",) * 3, 1000 ** 3, 1000),
    (r"[[:alpha:]]*[[:alnum:]]*[[:digit:]]", ("[[:alpha:]]*", "[[:alnum:]]*"), 1000 ** 2, 1000),
    (r"\p{L}*\p{Ll}{0,99}\p{N}", (r"\p{L}*", r"\p{Ll}{0,99}"), 1000 * 100, 1000),
    (r"(\w*)(\w*)\d", (r"\w*", r"\w*"), 1000 ** 2, 1000),
    (r"\w*\w+\d", (r"\w*", r"\w+"), 1000 * 1000, 1000),  # \w+: 1 to 1,000 letters
    (r"\s*x?\s*$", (r"\s*", r"\s*"), 1000 ** 2, 1000),  # an optional item between them
    (r"\w*(?:\w*\d|!)", (r"\w*", r"\w*"), 1000 ** 2, 1000),
    (r"[a-z]*[k-z]*[0-9]", ("[a-z]*", "[k-z]*"), 1000 ** 2, 1000),
    # optional items: each taken or not, 2 ways (22 of them: 2²² at each position before the
    # \d fails, which ran the tokenizer to its 10 s bound on 1,000 letters)
    (r"\w?" * 22 + r"\d|.", (r"\w?",) * 22, 2 ** 22, 2000),
    (r"[a-z]?" * 22 + r"\d|.", ("[a-z]?",) * 22, 2 ** 22, 2000),
    (r"\w{0,1}" * 22 + r"\d|.", (r"\w{0,1}",) * 22, 2 ** 22, 2000),
    (r"(?:\w)?" * 22 + r"\d|.", (r"(?:\w)?",) * 22, 2 ** 22, 2000),
    (r"\w??" * 22 + r"\d|.", (r"\w??",) * 22, 2 ** 22, 2000),
    (r"\w?" * 12 + r"\w*\d|.", (*(r"\w?",) * 12, r"\w*"), 2 ** 12 * 1000, 2000),
    (r"\w?\w?\w*\d", (r"\w?", r"\w?", r"\w*"), 2 * 2 * 1000, 2000),
    (r"\w?" * 11 + r"\d", (r"\w?",) * 11, 2 ** 11, 2000),  # twice 1,000 is let pass, no more
    (r"\s*" + "x?" * 11 + r"\d", ("x?",) * 11, 2 ** 11, 2000),  # \s takes no x: a run of its own
    # a group repeated whose one pass takes a run of one character in w ways: w to the passes
    (r"(?:a|ab?){30}\d|.", (r"(?:a|ab?){30}",), 2 ** 30, 1000),  # `a` or `a` (b not taken)
    (r"(a|a)*b|.", (r"(a|a)*",), 1000 ** 4, 1000),  # 2 ways a pass, no end: at most 1,000⁴
    (r"(?:\w?|x)+\d", (r"(?:\w?|x)+",), 1000 ** 4, 1000),  # an x by either alternative
    (r"(\w?\w?)+\d|.", (r"(\w?\w?)+",), 1000 ** 4, 1000),  # a letter by either \w?
    (r"(?:\w?\w?){11}\d|.", (r"(?:\w?\w?){11}",), 4 ** 11, 1000),
    (r"(?:\w{0,5}){5}\d|.", (r"(?:\w{0,5}){5}",), 6 ** 5, 1000),
    (r"(?:(?:\w?\w?){2}){6}\d|.", (r"(?:(?:\w?\w?){2}){6}",), (4 ** 2) ** 6, 1000),
    # a letter that must be taken and one that may: a pass takes 1 or 2 letters, 2 ways
    (r"(?:\w\w?){10}\d|.", (r"(?:\w\w?){10}",), 2 ** 10, 1000),
    (r"(?:\w(?:\w|\w\w)){10}\d|.", (r"(?:\w(?:\w|\w\w)){10}",), 2 ** 10, 1000),  # 2 or 3

    # passes that spell one text in two ways: `ab` one pass or two, 2 ways for each `ab`
    # (Oniguruma took 0.19 s on `ab` 20 times and `!`, 5.2 s on a text of 23 such words)
    (r"(?:ab|a|b)+$", (r"(?:ab|a|b)+",), 1000 ** 4, 1000),
    (r"(?:a|b|ab)+$", (r"(?:a|b|ab)+",), 1000 ** 4, 1000),
    (r"(?:abc|ab|c){30}!|.", (r"(?:abc|ab|c){30}",), 2 ** 30, 1000),  # abc, or ab and c
    (r"(?:\r\n|\r|\n)+x", (r"(?:\r\n|\r|\n)+",), 1000 ** 4, 1000),
    (r"(?:[ab]c|a|[bc])+$", (r"(?:[ab]c|a|[bc])+",), 1000 ** 4, 1000),  # ac: [ab]c, or a and c
    (r"(?:a{2}|aab|b)+$", (r"(?:a{2}|aab|b)+",), 1000 ** 4, 1000),  # aab: a{2} and b, or aab
])
def test_repetitions_side_by_side_before_a_failing_part_are_found(
        pattern: str, parts: tuple[str, ...], ways: int, limit: int) -> None:
    assert side_by_side(pattern) == (parts, ways, limit)


@pytest.mark.parametrize("pattern", [
    r"\w*\w*",  # nothing after them can fail
    r"\w*\s*\d",  # \w and \s share no character
    r"[a-j]*[k-z]*[0-9]",
    r"\w*+\w*+\d",  # possessive: gives nothing back
    r"(?>\w*)(?>\w*)\d",  # atomic groups
    r"\w{0,30}\w{0,30}\d",  # 31² = 961 ways, no more than a text's 1,000 characters
    r"\w*a\w*\d",  # a character that must match between them
    r"\w?" * 10 + r"\d",  # 2¹⁰ = 1,024 ways: one optional item may double 1,000
    r"\w?\w*\d",  # 2 × 1,000, as GPT-4o's [^\r\n\p{L}\p{N}]?[\p{Lu}…]* before its +
    r"\w?+" * 22 + r"\d",  # possessive: gives nothing back
    # a pass that takes nothing ends Oniguruma's repetition: one length for each count of passes
    # (1,000 letters took `(?:\w?){22}\d|.` 2 ms, and 22 \w? in a row 1.6 s on 30)
    r"(?:\w?){22}\d|.", r"(\w?){22}\d|.", r"(?:(?:\w?){5}){5}\d|.", r"(?:(?:\w?){10}){10}\d|.",
    r"(?:ab|ac){30}\d|.",  # neither alternative takes a run of one character
    r"(?:\w?\w?){3}\d",  # 4³ = 64 ways
    r"(\w{1,9}){3}\d",  # 9³ = 729 ways
    r"(?:\w\w?){9}\d",  # 2⁹ = 512 ways
    r"(?:\r?\n)+\d", r"(?:ab?)+\d",  # the optional item takes none of the run's characters

    # passes no text can be spelled by in two ways: a code (Sardinas and Patterson)
    r"(?:a|ab|bb)+$",  # `a` begins `ab`, and what is left, `b`, begins only `bb`, again and again
    r"(?:ab|ba)+$", r"(?:ab|ac)+$", r"(?:[ab]c|[cd]a)+$",
])
def test_repetitions_that_cannot_share_out_many_ways_pass(pattern: str) -> None:
    assert side_by_side(pattern) is None


def spec_beside(folder: Path, pre_tokenizer: object, normalizer: object = None,
                text: str = "a" * 1000) -> None:
    tokenizer = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
                 "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
                 "post_processor": None, "decoder": None,
                 "model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1, "[UNK]": 2},
                           "unk_token": "[UNK]"}}
    (folder / "t.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    (folder / "s.yaml").write_text(f'tokens: {{tokenizer: t.json, text: "{text}"}}\n'
                                   "embeddings: [[1, 0], [0, 1]]\n"
                                   "weights: {W_Q: identity, W_K: identity, W_V: identity}\n",
                                   encoding="utf-8")


def counted(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The tokenizer's process starts, counted (it still runs)."""
    from attncli.spec import tokenizer
    starts: list[object] = []
    real = tokenizer.bounded

    def bounded(*args: object) -> object:
        starts.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tokenizer, "bounded", bounded)
    return starts


SPLIT = {"type": "Split", "pattern": {"Regex": r"\w{0,200}\w{0,200}\w{0,200}\d|."},
         "behavior": "Isolated", "invert": False}
REPLACE = {"type": "Replace", "pattern": {"Regex": r"\w*\w*\w*\d|."}, "content": "a"}


@pytest.mark.parametrize(("lang", "pre_tokenizer", "normalizer", "line"), [
    ("en", SPLIT, None, "t.json: pre_tokenizer.pattern.Regex: expected at most 1,000 ways for "
     "repetitions side by side to share out a text of 1,000 characters before a part that can "
     r"fail; found 8,120,601 ways for \w{0,200}, \w{0,200}, \w{0,200} in the pattern "
     r"\w{0,200}\w{0,200}\w{0,200}\d|."),
    ("en", None, REPLACE, "t.json: normalizer.pattern.Regex: expected at most 1,000 ways for "
     "repetitions side by side to share out a text of 1,000 characters before a part that can "
     r"fail; found 1,000,000,000 ways for \w*, \w*, \w* in the pattern \w*\w*\w*\d|."),
    ("pl", SPLIT, None, "t.json: pre_tokenizer.pattern.Regex: oczekiwano co najwyżej 1000 "
     "sposobów, na jakie sąsiadujące powtórzenia mogą rozdzielić między siebie tekst "
     "o\u00a0długości 1000 znaków przed częścią, która może się nie dopasować; otrzymano: "
     "8\u00a0120\u00a0601 sposobów dla powtórzeń "
     r"\w{0,200}, \w{0,200}, \w{0,200} we wzorcu \w{0,200}\w{0,200}\w{0,200}\d|."),
    ("ru", SPLIT, None, "t.json: pre_tokenizer.pattern.Regex: ожидается не более 1000 способов "
     "разделить текст из 1000 символов между соседними повторениями перед частью, которая "
     "может не совпасть; найден 8\u00a0120\u00a0601 способ для повторений "
     r"\w{0,200}, \w{0,200}, \w{0,200} в" "\u00a0" r"шаблоне \w{0,200}\w{0,200}\w{0,200}\d|."),
])
def test_a_polynomial_pattern_is_refused_before_the_tokenizer_runs(
        lang: str, pre_tokenizer: object, normalizer: object, line: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tokenizers")
    spec_beside(tmp_path, pre_tokenizer, normalizer)
    starts = counted(monkeypatch)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout, len(starts)) == (2, "", 0)
    assert result.stderr == f"s.yaml:1:21: tokens.tokenizer: {line}\n"


@pytest.mark.parametrize(("pattern", "parts", "ways"), [
    (r"[[:alpha:]]{0,200}[[:alnum:]]{0,200}[[:word:]]{0,200}[[:digit:]]|.",
     "[[:alpha:]]{0,200}, [[:alnum:]]{0,200}, [[:word:]]{0,200}", "8,120,601"),
    (r"\p{L}*\p{Ll}*\p{Latin}*\p{N}|.", r"\p{L}*, \p{Ll}*, \p{Latin}*", "1,000,000,000"),
])
def test_posix_and_unicode_classes_are_refused_before_the_tokenizer_runs(
        pattern: str, parts: str, ways: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tokenizers")
    spec_beside(tmp_path, {"type": "Split", "pattern": {"Regex": pattern},
                           "behavior": "Removed", "invert": False})
    starts = counted(monkeypatch)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml")
    assert (result.exit_code, result.stdout, len(starts)) == (2, "", 0)
    assert result.stderr.endswith(f"found {ways} ways for {parts} in the pattern {pattern}\n")


EN = ("expected at most {limit} ways for repetitions side by side to share out a text of 1,000 "
      "characters before a part that can fail; found {ways} ways for {parts} in the pattern ")
ELEVEN = r"\w?" * 11 + r"\d|."  # 2¹¹ = 2,048 ways: more than the 2,000 a run with a `?` may have
ELEVEN_PARTS = ", ".join([r"\w?"] * 11)
AB = r"(?:ab|a|b)+$"


@pytest.mark.parametrize(("lang", "pattern", "line"), [
    # 2 ways each pass (`a` by either alternative), 30 passes: 2³⁰; Oniguruma gave up on 30 `a`
    ("en", r"(?:a|ab?){30}\d|.", EN.format(limit="1,000", ways="1,073,741,824",
                                            parts=r"(?:a|ab?){30}")),
    ("en", r"(a|a)*b|.", EN.format(limit="1,000", ways="1,000,000,000,000", parts="(a|a)*")),
    ("en", r"(\w?\w?)+\d|.", EN.format(limit="1,000", ways="1,000,000,000,000",
                                        parts=r"(\w?\w?)+")),
    ("en", r"(?:\w?\w?){11}\d|.", EN.format(limit="1,000", ways="4,194,304",
                                             parts=r"(?:\w?\w?){11}")),
    ("en", ELEVEN, EN.format(limit="2,000", ways="2,048", parts=ELEVEN_PARTS)),
    # a run of letters cut into passes of one letter or two, by a letter that may be taken
    # (`\w\w?`) or by alternatives of two lengths: 2 ways a pass, 2⁴⁰ past 1,000⁴; Oniguruma
    # took 1.4 to 4.6 s on 35 words of 27 letters (45 of 20 for three alternatives)
    *(("en", pattern, EN.format(limit="1,000", ways="1,000,000,000,000", parts=pattern[:-2]))
      for pattern in (r"(?:\w\w?)*\d", r"(?:\w|\w\w)*\d", r"(?:\w|\w{2})*\d",
                      r"(?:\w|\w\w|\w\w\w)*\d", r"(?:a|\w)*\d")),
    # `ab` one pass or two: 2 ways each `ab`, 2⁴⁰ past 1,000⁴ (23 words of `ab` 20 times and
    # `!` took Oniguruma 5.2 s), refused unrun in each language
    *((lang, AB, line.format(parts=AB[:-1])) for lang, line in (
        ("en", EN.format(limit="1,000", ways="1,000,000,000,000", parts="{parts}")),
        ("pl", "oczekiwano co najwyżej 1000 sposobów, na jakie sąsiadujące powtórzenia mogą "
         "rozdzielić między siebie tekst o\u00a0długości 1000 znaków przed częścią, która może "
         "się nie dopasować; otrzymano: 1\u00a0000\u00a0000\u00a0000\u00a0000 sposobów dla "
         "powtórzeń {parts} we wzorcu "),
        ("ru", "ожидается не более 1000 способов разделить текст из 1000 символов между "
         "соседними повторениями перед частью, которая может не совпасть; найдено "
         "1\u00a0000\u00a0000\u00a0000\u00a0000 способов для повторений {parts} в\u00a0шаблоне "))),
    ("pl", ELEVEN, "oczekiwano co najwyżej 2000 sposobów, na jakie sąsiadujące powtórzenia mogą "
     "rozdzielić między siebie tekst o\u00a0długości 1000 znaków przed częścią, która może się "
     f"nie dopasować; otrzymano: 2048 sposobów dla powtórzeń {ELEVEN_PARTS} we wzorcu "),
    ("ru", ELEVEN, "ожидается не более 2000 способов разделить текст из 1000 символов между "
     "соседними повторениями перед частью, которая может не совпасть; найдено 2048 способов для "
     f"повторений {ELEVEN_PARTS} в\u00a0шаблоне "),
])
def test_a_repeated_group_or_a_run_with_a_choice_is_refused_with_its_limit(
        lang: str, pattern: str, line: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert refused_unrun(pattern, lang, tmp_path, monkeypatch) == (
        f"s.yaml:1:21: tokens.tokenizer: t.json: pre_tokenizer.pattern.Regex: {line}{pattern}\n")


def refused_unrun(pattern: str, lang: str, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> str:
    """The stderr of `attn explain` of a spec whose tokenizer splits by `pattern`, which must be
    refused (exit 2) before the tokenizer's process starts."""
    pytest.importorskip("tokenizers")
    spec_beside(tmp_path, split(pattern))
    starts = counted(monkeypatch)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout, len(starts)) == (2, "", 0)
    return result.stderr


def test_a_real_pattern_runs_the_tokenizer(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """o200k's pattern on 997 letters, a space and a letter: the process starts once and cuts
    them into two pieces, each unknown to this vocabulary ([UNK], id 2)."""
    pytest.importorskip("tokenizers")
    spec_beside(tmp_path, {"type": "Split", "pattern": {"Regex": O200K},
                           "behavior": "Isolated", "invert": False}, text="a" * 997 + " b")
    starts = counted(monkeypatch)
    monkeypatch.chdir(tmp_path)
    result = run("explain", "s.yaml", "--format", "json")
    assert (result.exit_code, len(starts)) == (0, 1)
    assert '"[UNK]₁",\n            "[UNK]₂"' in result.stdout  # the rows of X


def test_a_written_pattern_is_checked_where_the_file_writes_it() -> None:
    """The check before the process reads the key of the file, not a text that names it."""
    from attncli.spec.tokenizer_written import check_written
    fake = json.dumps({"added_tokens": [{"content": '"pre_tokenizer": {"x": 1}'}],
                       "pre_tokenizer": SPLIT}).encode()
    with pytest.raises(FileProblem) as problem:
        check_written(fake, "t.json", 10)
    assert dict(problem.value.message.params)["key"] == "pre_tokenizer.pattern.Regex"
    check_written(json.dumps({"pre_tokenizer": {"type": "Split", "pattern": {
        "Regex": GPT2}}}).encode(), "t.json", 10)


def test_groups_nested_past_the_limit_are_refused() -> None:
    """Each group is walked once for each run it meets, and read by recursion: 33 groups deep
    is refused (real patterns nest 2 deep); 32 deep is read."""
    check_pattern("(" * 32 + "a" + ")" * 32, "pre_tokenizer.pattern.Regex", "t.json")
    with pytest.raises(FileProblem) as problem:
        check_pattern("(" * 33 + "a" + ")" * 33, "pre_tokenizer.pattern.Regex", "t.json")
    assert problem.value.message.count == 32


def split(pattern: str) -> dict[str, object]:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated",
            "invert": False}


def test_the_patterns_of_a_sequence_are_held_to_a_text_in_all() -> None:
    # each pattern is read and its repetitions counted, in attn's own process too: 100 splits of
    # 500 \w each (1,000 characters, each within the limit of one pattern) took 26 s CPU
    many = {"pre_tokenizer": {"type": "Sequence", "pretokenizers": [split(r"\w" * 500)] * 100}}
    with pytest.raises(FileProblem) as problem:
        check_config(many, "tokenizer.json", 3)
    assert problem.value.message.plural is not None and "in all" in problem.value.message.plural
    assert (problem.value.message.count, dict(problem.value.message.params)["limit"]) == (
        100 * 1000, 1000)
    # DeepSeek V3's three splits and its normalizer's replaces together pass
    real = {"normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Replace", "pattern": {"Regex": p}, "content": " "} for p in REPLACES]},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split(p) for p in DEEPSEEK]}}
    check_config(real, "tokenizer.json", 3)


def test_the_written_parts_are_decoded_within_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # 16 pre_tokenizer keys, each an object that the next one cuts: each was decoded in windows
    # of 64 KiB, 256 KiB, 1 MiB and 4 MiB (5.9 s for 38 MB of numbers); now the file's own key
    # alone, the others nested in it
    import attncli.spec.tokenizer_written as checked

    decoded: list[int] = []

    class Counted(json.JSONDecoder):
        def raw_decode(self, s: str, idx: int = 0) -> tuple[object, int]:
            decoded.append(len(s))
            return super().raw_decode(s, idx)

    monkeypatch.setattr(checked.json, "JSONDecoder", Counted)
    inner = '{"type": "Whitespace"}'
    for _ in range(16):
        inner = '{"a": [' + ",".join(["1"] * 600_000) + '], "pre_tokenizer": ' + inner + "}"
    checked.check_written(('{"pre_tokenizer": ' + inner + "}").encode(), "tokenizer.json", 3)
    assert len(decoded) == 4 and 0 < sum(decoded) <= checked.DECODED
