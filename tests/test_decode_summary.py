"""A summary (text, Rich, SVG, LaTeX, Markdown, HTML, Typst without --full) shows the first and
last four decode steps of each head, the middle left out with a sentence that counts it, as the
middle of a large matrix is: a lecture shows a few decode steps, and one step per token of a
4,096-token prompt-and-decode spec took 33 s and 51 MB in LaTeX, minutes in SVG."""

from __future__ import annotations

import json
from pathlib import Path

from attncli import build, loads_spec
from attncli.i18n import translate
from attncli.model import Walkthrough
from tests.conftest import run, run_apart


def decoding(n: int, prefill: int = 1, heads: int = 1) -> str:
    """n tokens t0 … t(n-1), random embeddings of 8, causal, decoded after `prefill`."""
    return json.dumps({"tokens": [f"t{i}" for i in range(n)],
                       "embeddings": {"random": {"seed": 1}, "dim": 8}, "heads": heads,
                       "mask": "causal", "decode": {"prefill": prefill}})


def decoded(w: Walkthrough) -> list[str]:
    """The token of every decode step, in order."""
    return [translate(s.title, "en").removeprefix("Decode step: ").strip("“”")
            for s in w.steps if s.id == "decode"]


def test_a_summary_works_the_first_and_last_four_decode_steps() -> None:
    """12 tokens after a prompt of 2: 10 decode steps (t2 … t11); the summary works t2 … t5 and
    t8 … t11, and the step of t8 says that the 2 between, t6 and t7, are left out; 9 decode
    steps are all worked."""
    spec = loads_spec(decoding(12, prefill=2), "d.json")
    every = build(spec)
    few = build(spec, summary=True)
    assert decoded(every) == [f"t{i}" for i in range(2, 12)]
    assert decoded(few) == ["t2", "t3", "t4", "t5", "t8", "t9", "t10", "t11"]
    steps = [s for s in few.steps if s.id == "decode"]
    assert translate(steps[4].notes[0], "en") == (
        "The decode steps of the tokens “t6” to “t7” (2 steps) are left out here; each is "
        "worked like the steps shown.")
    assert [len(s.notes) for s in steps] == [2, 2, 2, 2, 3, 2, 2, 2]  # the cache's, the check
    # the steps shown are worked as in the whole walkthrough: z₉ is row t8 of full attention
    z9 = next(m for m in steps[4].matrices if m.symbol.text == "z₉")
    whole = next(s for s in every.steps if s.id == "decode" and s.title == steps[4].title)
    assert (z9.values == whole.matrices[-1].values).all()
    # 9 decode steps are within 2·4 + 1, as a matrix of 9 rows is shown whole
    nine = build(loads_spec(decoding(12, prefill=3), "d.json"), summary=True)
    assert decoded(nine) == [f"t{i}" for i in range(3, 12)]


def test_each_head_has_its_own_few_decode_steps_in_polish_and_russian() -> None:
    result = run("explain", "-", "--steps", "decode", "--lang", "pl,ru",
                 input=decoding(30, heads=2))
    assert result.exit_code == 0, result.stderr
    flat = " ".join(result.stdout.split())
    assert flat.count("Krok dekodowania:") == 16 and flat.count("Шаг декодирования:") == 16
    assert flat.count("Pomijamy tu kroki dekodowania tokenów od „t5” do „t25” (21 kroków); "
                      "każdy z nich przebiega tak samo jak pokazane kroki.") == 2
    assert flat.count("Здесь пропущены шаги декодирования токенов с «t5» по «t25» (21 шаг); "
                      "каждый из них выполняется так же, как показанные.") == 2


def test_a_matrix_of_a_step_left_out_is_still_found_by_name() -> None:
    """--matrix z₅₀ (token t49, in the middle a summary leaves out) is worked and shown."""
    result = run("explain", "-", "--matrix", "z₅₀", input=decoding(100))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("t49 ")


def test_a_refused_matrix_lists_the_decode_steps_shown() -> None:
    """An unknown --matrix lists the names of the decode steps the summary shows, each with its
    own cache: K[1:5] then K[1:97], none of the 91 steps between."""
    result = run("explain", "-", "--matrix", "zz", input=decoding(100))
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "z₅, q₉₇, K[1:97], V[1:97], s₉₇" in result.stderr
    assert "z₆" not in result.stderr and "z₉₆" not in result.stderr


def test_4096_tokens_decoded_after_one_are_eight_steps_in_every_summarized_format(
        tmp_path: Path) -> None:
    """The spec of 4,096 tokens, prefill 1: 4,095 decode steps, of which text and SVG write the
    first four and the last four, each in a process of its own."""
    (tmp_path / "d.json").write_text(decoding(4096), "utf-8")
    text = run_apart(tmp_path, "explain", "d.json", "--steps", "decode")
    assert (text.returncode, text.stderr) == (0, "")
    headings = [line for line in text.stdout.splitlines() if ". Decode step: " in line]
    assert [line.split(": ")[1] for line in headings] == [
        "“t1”", "“t2”", "“t3”", "“t4”", "“t4092”", "“t4093”", "“t4094”", "“t4095”"]
    assert "The decode steps of the tokens “t5” to “t4091” (4,087 steps) are left out" in " ".join(
        text.stdout.split())
    svg = run_apart(tmp_path, "export", "d.json", "--svg", "--steps", "decode", "-o", "d.svg")
    assert (svg.returncode, svg.stderr) == (0, "")
    assert (tmp_path / "d.svg").read_text("utf-8").count("Decode") == 8
