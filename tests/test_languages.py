"""--lang (one language or a list), ATTN_LANG, translated errors, and the decimal comma."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attncli.arithmetic.numbers import NumberFormat
from attncli.cli.app import app
from attncli.errors import UsageError
from attncli.i18n import Msg, translate
from attncli.render import render
from attncli.spec import load_spec, loads_spec
from attncli.spec.examples import example_path
from attncli.steps.build import build
from tests.conftest import run

GOLDEN = Path(__file__).parent / "golden"
CAT = str(example_path("cat_chases_mouse"))
PADDING = str(example_path("padding_comma"))


def golden(name: str, lang: str) -> str:
    return (GOLDEN / f"{name}.{lang}.txt").read_text(encoding="utf-8")


def invoke(*args: str, env: dict[str, str | None] | None = None,
           stdin: str | None = None) -> tuple[int, str, str]:
    environment: dict[str, str | None] = {"ATTN_LANG": None, **(env or {})}
    result = CliRunner().invoke(app, ["explain", *args], env=environment, input=stdin)
    return result.exit_code, result.stdout, result.stderr


def text(*args: str, env: dict[str, str | None] | None = None) -> str:
    code, out, err = invoke(CAT, "--format", "text", *args, env=env)
    assert code == 0, err
    return out


# --- choosing languages --------------------------------------------------------------------------

def test_several_languages_are_written_in_order_each_under_its_heading() -> None:
    pl, en = golden("cat_chases_mouse", "pl"), golden("cat_chases_mouse", "en")
    assert text("--lang", "pl,en") == f"## PL\n\n{pl}\n## EN\n\n{en}"
    assert text("--lang", "en,pl") == f"## EN\n\n{en}\n## PL\n\n{pl}"


def test_language_list_may_have_spaces_and_capitals() -> None:
    assert text("--lang", " PL, ru ") == text("--lang", "pl,ru")


def test_attn_lang_chooses_the_language_and_lang_overrides_it() -> None:
    assert text(env={"ATTN_LANG": "ru"}) == golden("cat_chases_mouse", "ru")
    assert text(env={"ATTN_LANG": "pl,en"}) == text("--lang", "pl,en")
    assert text("--lang", "en", env={"ATTN_LANG": "ru"}) == golden("cat_chases_mouse", "en")


def test_real_command_ignores_the_system_locale() -> None:
    attn = Path(sys.executable).parent / "attn"
    base = {key: value for key, value in os.environ.items() if key != "ATTN_LANG"}
    russian_machine = {**base, "LANG": "ru_RU.UTF-8", "LC_ALL": "ru_RU.UTF-8", "LANGUAGE": "ru"}
    run = subprocess.run([str(attn), "explain", CAT, "--format", "text"], env=russian_machine,
                         capture_output=True, text=True, encoding="utf-8", check=False)
    assert (run.returncode, run.stdout) == (0, golden("cat_chases_mouse", "en"))
    polish = subprocess.run([str(attn), "explain", CAT, "--format", "text"],
                            env={**russian_machine, "ATTN_LANG": "pl"},
                            capture_output=True, text=True, encoding="utf-8", check=False)
    assert (polish.returncode, polish.stdout) == (0, golden("cat_chases_mouse", "pl"))


def test_rich_view_writes_each_language_under_its_heading() -> None:
    walkthrough = build(load_spec(CAT))
    both = render(walkthrough, "rich", ["pl", "en"], width=80)
    pl = render(walkthrough, "rich", "pl", width=80)
    en = render(walkthrough, "rich", "en", width=80)
    assert both == f"## PL\n\n{pl}\n## EN\n\n{en}"
    assert "Wagi atencji" in pl and "Attention weights" in en


def test_library_takes_a_list_or_a_comma_string() -> None:
    walkthrough = build(load_spec(CAT))
    assert render(walkthrough, "text", "ru,pl") == render(walkthrough, "text", ("ru", "pl"))
    with pytest.raises(UsageError) as caught:
        render(walkthrough, "text", "de")
    assert translate(caught.value.message, "pl") == \
        "lang: nieznany język de; do wyboru: en, pl, ru"


def test_title_and_description_are_per_language() -> None:
    out = text_of(PADDING, "--lang", "ru,en")
    assert "Паддинг: ни один запрос не смотрит на <pad>\n" in out
    assert "Padding: no query attends to <pad>\n" in out
    assert "Последний токен лишь дополняет последовательность до длины 4" in out


def text_of(spec: str, *args: str) -> str:
    code, out, err = invoke(spec, "--format", "text", *args)
    assert code == 0, err
    return out


# --- errors in the reader's language -----------------------------------------------------------

BAD_MASK = "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nmask: causl\n"


@pytest.mark.parametrize(("args", "env", "stdin", "line"), [
    (["nope.yaml", "--lang", "pl"], {}, None, "nope.yaml: nie ma takiego pliku"),
    (["nope.yaml"], {"ATTN_LANG": "ru"}, None, "nope.yaml: нет такого файла"),
    (["nope.yaml", "--lang", "ru,pl"], {}, None, "nope.yaml: нет такого файла"),
    (["--lang", "xx"], {}, None, "attn: --lang: unknown language xx; expected one of en, pl, ru"),
    (["--lang", "xx"], {"ATTN_LANG": "pl"}, None,
     "attn: --lang: nieznany język xx; do wyboru: en, pl, ru"),
    (["--lang", "xx,ru"], {}, None, "attn: --lang: неизвестный язык xx; можно выбрать: en, pl, ru"),
    ([], {"ATTN_LANG": "de"}, None, "attn: ATTN_LANG: unknown language de; expected one of en, pl, "
     "ru"),
    (["--lang", "pl,pl"], {}, None, "attn: --lang: język pl podano dwa razy"),
    (["--lang", "ru,"], {}, None, "attn: --lang: в\u00a0«ru,» пропущен код языка"),
    (["--format", "json", "--lang", "pl,en"], {}, None,
     "attn: format json mieści jeden język, a\u00a0podano 2"),
    (["--precision", "99", "--lang", "ru"], {}, None,
     "attn: --precision: ожидается целое число от 0 до 12, получено: 99"),
    (["-", "--lang", "pl"], {}, BAD_MASK,
     "<stdin>:3:7: mask: oczekiwano none, causal, {window: w}, {padding: [...]} albo macierzy "
     "zer i\u00a0jedynek, otrzymano: tekst „causl”; czy chodziło o\u00a0causal?"),
    (["-", "--lang", "ru"], {}, BAD_MASK,
     "<stdin>:3:7: mask: ожидается none, causal, {window: w}, {padding: [...]} или матрица из "
     "нулей и\u00a0единиц, получено: текст «causl»; может быть, имелся в\u00a0виду causal?"),
    (["-", "--lang", "pl"], {}, "tokens: {a: 1}\nembeddings: [[1]]\n",
     "<stdin>:1:9: tokens: oczekiwano listy tokenów, otrzymano: mapowanie z\u00a01 kluczem"),
    (["-", "--lang", "ru"], {}, "tokens: {a: 1, b: 2}\nembeddings: [[1]]\n",
     "<stdin>:1:9: tokens: ожидается список токенов, получено: словарь с\u00a02 ключами"),
    (["-", "--lang", "pl"], {}, "tokens: [a, on]\nembeddings: [[1], [2]]\n",
     "<stdin>:1:13: tokens[1]: oczekiwano tekstu, otrzymano: on, czyli dla YAML-a wartość "
     'logiczna true; ujmij to w\u00a0cudzysłów: "on"'),
    (["-", "--lang", "ru"], {},
     "tokens: [a, b]\nembeddings: [[1, 0], [0, 1]]\nweights:\n  W_Q: [[1, 0], [0, 1], [1, 1]]\n",
     "<stdin>:4:8: weights.W_Q: ожидается размер d_model × d_k\u00a0=\u00a02 × 2, получено: "
     "3 × 2"),
    (["-", "--lang", "pl"], {}, "- 1\n- 2\n- 3\n- 4\n- 5\n",
     "<stdin>:1:1: oczekiwano mapowania, otrzymano: lista z\u00a05 elementami"),
    (["-", "--lang", "ru"], {}, "- 1\n",
     "<stdin>:1:1: ожидается словарь, получено: список из 1 элемента"),
])
def test_errors_are_one_line_in_the_chosen_language(
        args: list[str], env: dict[str, str | None], stdin: str | None, line: str) -> None:
    code, out, err = invoke(*args, env=env, stdin=stdin)
    assert (code, out, err) == (2, "", line + "\n")


def test_english_errors_are_unchanged() -> None:
    code, _, err = invoke("-", stdin="- 1\n- 2\n")
    assert (code, err) == (2, "<stdin>:1:1: expected a mapping, found a list of 2 items\n")


# --- the decimal comma --------------------------------------------------------------------------

def test_decimal_comma_option_changes_numbers_in_tables_and_prose() -> None:
    out = text("--lang", "pl", "--decimal-comma")
    # full precision weights of "cat chases mouse": 0.36 / 0.64, and √2 = 1.41
    assert "   chases  0,36    0,64      —\n" in out
    assert "maska: przyczynowa · skalowanie: ÷ √d_k\u00a0=\u00a01,41\n" in out
    assert "Dzielenie przez √d_k\u00a0=\u00a01,41 sprawia" in out
    assert "0.36" not in out and "1.41" not in out
    assert text("--lang", "pl") == golden("cat_chases_mouse", "pl")  # the dot stays the default


def test_spec_decimal_comma_and_the_option_that_overrides_it() -> None:
    # Ala: scores [1.25, 0.5, 0.9] / √2, softmax -> 0.422, 0.248, 0.330; <pad> hidden
    spec_default = text_of(PADDING, "--lang", "en")
    assert "   Ala    0,422  0,248  0,330      —\n" in spec_default
    dot = text_of(PADDING, "--lang", "en", "--decimal-dot")
    assert "   Ala    0.422  0.248  0.330      —\n" in dot and "0,422" not in dot


def test_softmax_of_the_padding_example_by_hand() -> None:
    scores = [1.25 / math.sqrt(2), 0.5 / math.sqrt(2), 0.9 / math.sqrt(2)]
    total = sum(math.exp(s) for s in scores)
    assert [round(math.exp(s) / total, 3) for s in scores] == [0.422, 0.248, 0.330]


def test_number_format_prose_and_math_forms() -> None:
    comma = NumberFormat.with_mark(2, "comma")
    dot = NumberFormat.with_mark(2, "dot")
    assert (comma(0.35), comma.math()(0.35), dot(0.35), dot.math()(0.35)) == \
        ("0,35", "0{,}35", "0.35", "0.35")
    assert (comma(-0.001), comma(-12.345), comma(float("-inf"))) == ("0,00", "−12,35", "−∞")
    assert (comma.math()(float("-inf")), comma.math()(float("nan"))) == \
        (r"-\infty", r"\text{NaN}")
    assert (comma.list_separator, dot.list_separator) == ("; ", ", ")


def test_translated_numbers_take_the_reader_decimal_mark() -> None:
    msg = Msg.of("Dividing by √d_k = {root} keeps the scores from growing with the dimension of "
                 "the keys.", root=math.sqrt(2))
    assert translate(msg, "ru", NumberFormat.with_mark(3, "comma")) == (
        "Деление на √d_k\u00a0=\u00a01,414 не даёт оценкам расти вместе с\u00a0размерностью "
        "ключей.")


@pytest.mark.parametrize(("count", "pl", "ru"), [
    (1, "1 token", "1 токен"), (2, "2 tokeny", "2 токена"), (5, "5 tokenów", "5 токенов"),
    (11, "11 tokenów", "11 токенов"), (12, "12 tokenów", "12 токенов"),
    (21, "21 tokenów", "21 токен"), (22, "22 tokeny", "22 токена"),
    (25, "25 tokenów", "25 токенов"),
])
def test_header_states_the_token_count_with_its_noun(count: int, pl: str, ru: str) -> None:
    spec = loads_spec(f"tokens: [{', '.join(f't{i}' for i in range(count))}]\n"
                      f"embeddings: [{', '.join('[1]' for _ in range(count))}]\n")
    walkthrough = build(spec)
    english = f"{count} token" + ("" if count == 1 else "s")
    for lang, words in (("en", english), ("pl", pl), ("ru", ru)):
        lines = render(walkthrough, "text", lang).splitlines()
        assert lines[3] == f"{words}, d_model = 1, d_k = 1, d_v = 1", lang


@pytest.mark.parametrize("args", [
    ["check", "--step", "weights", "--answer", "1 0 0; 0.36 0.64 0; 0.4 0.25 0.35"],
    ["fill", "nothing.md"],
])
def test_every_command_refuses_an_unknown_language_in_the_environment(
        args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # attn check and attn fill wrote their answers in English and exited 0 or 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ATTN_LANG", "de")
    result = run(*args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "attn: ATTN_LANG: unknown language de; expected one of en, pl, ru\n"
