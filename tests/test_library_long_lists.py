"""The library's lists read no further than their first bad item, and are bounded before they are
read: `render(lang=[...])` of two million codes, `build(expand=[...])` of three million cells, a
key of ten million characters (`w["AAA…"]`) are refused at once, in one line of their usual
shape, with what they quote cut as attn's line is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import attncli
from attncli import UsageError
from tests.conftest import CONFIGS


class Counted(list):  # type: ignore[type-arg]
    """A list that counts the items read from it, by iteration or by index."""

    def __init__(self, items: list[str]) -> None:
        super().__init__(items)
        self.read = 0

    def __iter__(self) -> Iterator[str]:
        for item in super().__iter__():
            self.read += 1
            yield item

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        self.read += 1
        return super().__getitem__(index)


@pytest.fixture(scope="module")
def spec() -> attncli.Spec:
    return attncli.load_spec(CONFIGS / "cat_chases_mouse.yaml")


@pytest.fixture(scope="module")
def walkthrough(spec: attncli.Spec) -> attncli.Walkthrough:
    return attncli.build(spec)


def refusal(call: object) -> str:
    with pytest.raises(UsageError) as refused:
        call()  # type: ignore[operator]
    return str(refused.value)


@pytest.mark.parametrize(("codes", "line", "read"), [
    (["pl", "pl"], "render: lang[1]: the language pl is given twice", 2),
    (["x0", "pl"], "render: lang[0]: unknown language x0; expected one of en, pl, ru", 1),
    (["pl", "en,pl"], "render: lang[1]: the language pl is given twice", 2),
    (["pl", "en", "ru", "en"], "render: lang[3]: the language en is given twice", 4),
])
def test_a_list_of_languages_is_refused_at_its_first_bad_code(
        walkthrough: attncli.Walkthrough, codes: list[str], line: str, read: int) -> None:
    many = Counted(codes + ["pl"] * 100_000)
    assert refusal(lambda: attncli.render(walkthrough, "text", lang=many)) == line
    assert many.read == read


def test_a_comma_list_of_two_million_codes_is_refused_at_its_second(
        walkthrough: attncli.Walkthrough) -> None:
    assert refusal(lambda: attncli.render(walkthrough, "text", lang=",".join(["pl"] * 2_000_000))
                   ) == "render: lang: the language pl is given twice"


def test_a_comma_list_is_split_no_further_than_its_first_bad_code(
        walkthrough: attncli.Walkthrough, monkeypatch: pytest.MonkeyPatch) -> None:
    import attncli.i18n
    import attncli.spec.view as view

    parts: list[str] = []
    real = attncli.i18n.language_code

    def counted(text: str) -> str:
        parts.append(text)
        return real(text)

    monkeypatch.setattr(view, "language_code", counted)
    assert refusal(lambda: attncli.render(walkthrough, "text", lang="pl,ru,en,pl,ru")) == (
        "render: lang: the language pl is given twice")
    assert parts == ["pl", "ru", "en", "pl"]


def test_a_language_of_the_list_is_named_for_an_error_from_four_codes_at_most() -> None:
    from attncli.i18n import first_known

    assert first_known("xx,yy,ru") == "ru"
    assert first_known("xx,yy,zz,ww,ru") == "en"  # the list is refused by its fourth code


def test_an_expand_list_past_the_texts_a_spec_may_hold_is_refused_unread(
        spec: attncli.Spec) -> None:
    cells = Counted([f"weights:t{i}" for i in range(50_001)])
    assert refusal(lambda: attncli.build(spec, expand=cells)) == (
        "build: expand: the list holds 50,001 cells; the limit is 50,000, which max_cells sets")
    assert cells.read == 0


def test_the_expand_list_is_held_to_the_limit_max_cells_sets(spec: attncli.Spec) -> None:
    # 200 cells of the limit per text: 20,000,000 cells take 100,000 texts
    cells = ["weights:cat"] * 100_001
    assert refusal(lambda: attncli.build(spec, expand=cells, max_cells=20_000_000)) == (
        "build: expand: the list holds 100,001 cells; the limit is 100,000, which max_cells "
        "sets")
    assert attncli.build(spec, expand=["weights:cat"] * 50_000).steps


@pytest.mark.parametrize(("first", "line"), [
    ("weights", "expand: expected auto, all, none, shown or STEP:ROW[,COLUMN], found weights"),
    ("all", "expand: all cannot be combined with other values"),
    (None, "build: expand[0]: expected a cell such as `weights:chases`, found None"),
    ("weights:" + "x" * 1000, "build: expand[0]: expected a text of at most 1,000 characters, "
                              "found 1,008"),
])
def test_an_expand_list_is_refused_at_its_first_bad_cell(spec: attncli.Spec, first: object,
                                                         line: str) -> None:
    cells = Counted([first] + ["weights:cat"] * 40_000)  # type: ignore[list-item]
    assert refusal(lambda: attncli.build(spec, expand=cells)) == line
    assert cells.read == (2 if first == "all" else 1)  # `all` alone is a mode: one more is read


def test_a_long_expand_text_is_refused_by_its_length_and_quoted_short(
        spec: attncli.Spec) -> None:
    assert refusal(lambda: attncli.build(spec, expand="weights:" + "x" * 10**7)) == (
        "build: expand: expected a text of at most 1,000 characters, found 10,000,008")


def test_a_key_longer_than_any_name_is_refused_and_quoted_short(
        walkthrough: attncli.Walkthrough, monkeypatch: pytest.MonkeyPatch) -> None:
    import attncli.model.walkthrough as module

    compared: list[str] = []
    monkeypatch.setattr(module, "key", lambda text: compared.append(text) or text)
    line = refusal(lambda: walkthrough["A" * 10**7])
    assert line == ("no matrix " + "A" * 20 + "…" + "A" * 10 + " here; this walkthrough has X, "
                    "W_Q, W_K, W_V, Q, K, V, S, S′, S′ + M, A, Z")
    assert compared == []  # refused before it was compared with any symbol


def test_a_head_with_thousands_of_zeros_is_still_read(walkthrough: attncli.Walkthrough) -> None:
    assert walkthrough["A:" + "0" * 5000 + "1"].tolist() == walkthrough["A"].tolist()


def test_a_message_from_the_library_quotes_a_long_value_cut(spec: attncli.Spec) -> None:
    line = refusal(lambda: attncli.build(spec, expand="nosuchstep" * 50 + ":cat"))
    assert len(line) < 250 and line.startswith("expand: cannot write out nosuchstep")
    assert "…" in line


def test_the_cell_magic_names_the_limit_it_keeps_to(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from attncli.fill.magic import attn

    tokens = ", ".join(f"t{i}" for i in range(40))
    (tmp_path / "big.yaml").write_text(f"tokens: [{tokens}]\n"
                                       "embeddings: {random: {seed: 0}, dim: 8}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ATTN_LANG", "en")
    assert attn("", "spec: big.yaml\nexpand: all\n") is None
    assert capsys.readouterr().err == (
        "<cell>:3:9: expand: writing out every cell of this spec takes up to 92,160 terms; the "
        "limit is 50,000, which max_cells sets; choose cells with STEP:ROW (%%attn keeps to the "
        "default limit; attncli.load_spec and attncli.build take max_cells)\n")
