"""Every argument of the library's functions (docs/library.md: load_spec, loads_spec, build,
render) of a wrong type is a UsageError naming the function, the argument, what was expected and
what was found: `render(w, format=None)` was Python's AttributeError from the suggestion of a
close format name, `render(w, lang=3)` a TypeError of ",".join, `render(3)` an AttributeError,
`build(spec, expand="all")` an AttributeError from inside the selection of cells."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import attncli
from attncli import UsageError
from tests.conftest import CONFIGS

SPEC = CONFIGS / "two_tokens_unscaled.yaml"
TEXT = SPEC.read_text(encoding="utf-8")
LANGS = 'a language code such as "pl", a comma list such as "pl,en", or a list of codes'
FORMATS = "one of text, rich, json, latex, markdown, svg, heatmap, beamer, html, typst"
WALKTHROUGH = "a Walkthrough (from attncli.build or attncli.walkthrough_of)"
CELLS = "`auto`, `all`, `none`, a cell such as `weights:chases`, or a list of cells"


@pytest.fixture(scope="module")
def walkthrough() -> attncli.Walkthrough:
    return attncli.build(attncli.load_spec(SPEC))


@pytest.mark.parametrize(("call", "line"), [
    (lambda w: attncli.render(3, format="text"), f"render: walkthrough: expected {WALKTHROUGH}, "
                                                 "found 3"),
    (lambda w: attncli.render(attncli.load_spec(SPEC)),
     f"render: walkthrough: expected {WALKTHROUGH}, found Spec"),
    (lambda w: attncli.render(w, format=None), f"render: format: expected {FORMATS}, found None"),
    (lambda w: attncli.render(w, format=3), f"render: format: expected {FORMATS}, found 3"),
    (lambda w: attncli.render(w, lang=3), f"render: lang: expected {LANGS}, found 3"),
    (lambda w: attncli.render(w, lang=b"pl"), f"render: lang: expected {LANGS}, found bytes"),
    (lambda w: attncli.render(w, lang=["pl", 3]),
     'render: lang[1]: expected a language code such as "pl", found 3'),
    (lambda w: attncli.render(w, lang=[]), f"render: lang: expected {LANGS}, found list"),
    (lambda w: attncli.render(w, header="no"), "render: header: expected True or False, "
                                               "found 'no'"),
    (lambda w: attncli.render(w, width="80"), "render: width: expected a whole number, "
                                              "found '80'"),
    (lambda w: attncli.render(w, width=True), "render: width: expected a whole number, "
                                              "found True"),
    (lambda w: attncli.render(w, jobs="2"), "render: jobs: expected a whole number, found '2'"),
    (lambda w: attncli.render(w, "markdown", md_flavor=3),
     "render: md_flavor: expected a text (a str), found 3"),
    (lambda w: attncli.build(attncli.load_spec(SPEC), expand=3),
     f"build: expand: expected {CELLS}, found 3"),
    (lambda w: attncli.build(attncli.load_spec(SPEC), expand=[None]),
     "build: expand[0]: expected a cell such as `weights:chases`, found None"),
    (lambda w: attncli.build(attncli.load_spec(SPEC), expand=("weights:chases", ["x"])),
     "build: expand[1]: expected a cell such as `weights:chases`, found list"),
    (lambda w: attncli.build(attncli.load_spec(SPEC), summary="yes"),
     "build: summary: expected True or False, found 'yes'"),
    (lambda w: attncli.load_spec(SPEC, allow_outside="no"),
     "load_spec: allow_outside: expected True or False, found 'no'"),
    (lambda w: attncli.loads_spec(TEXT, allow_outside=None),
     "loads_spec: allow_outside: expected True or False, found None"),
])
def test_a_wrong_type_is_a_usage_error_naming_the_argument(
        walkthrough: attncli.Walkthrough, call: Callable[[attncli.Walkthrough], object],
        line: str) -> None:
    with pytest.raises(UsageError) as raised:
        call(walkthrough)
    assert str(raised.value) == line


@pytest.mark.parametrize(("lang", "line"), [
    ("pl", "render: lang: oczekiwano kodu języka (np. „pl”), kodów rozdzielonych przecinkami "
           "(np. „pl,en”) lub listy kodów, otrzymano: 3"),
    ("ru", "render: lang: ожидается код языка (например, «pl»), коды через запятую (например, "
           "«pl,en») или список кодов, получено: 3"),
])
def test_the_refusal_is_said_in_polish_and_russian(walkthrough: attncli.Walkthrough, lang: str,
                                                   line: str) -> None:
    with pytest.raises(UsageError) as raised:
        attncli.render(walkthrough, lang=3)
    assert str(raised.value.in_language(lang)).replace("\u00a0", " ") == line


def test_a_list_of_languages_is_still_taken(walkthrough: attncli.Walkthrough) -> None:
    assert attncli.render(walkthrough, lang=["pl", "en"]) == attncli.render(walkthrough,
                                                                            lang="pl,en")


def test_build_takes_expand_as_walkthrough_of_does() -> None:
    """"all" (or ["all"]) writes out every cell in both: Q's 4 cells, each a line of its own."""
    spec = attncli.load_spec(SPEC)
    every = attncli.render(attncli.build(spec, expand="all"), "text")
    assert every == attncli.render(attncli.build(spec, expand=["all"]), "text")
    tokens, X = ["a", "b"], [[1.0, 0.0], [0.0, 1.0]]
    assert (attncli.render(attncli.build(attncli.spec_of(tokens=tokens, embeddings=X),
                                         expand="all"), "text")
            == attncli.render(attncli.walkthrough_of(tokens=tokens, X=X, expand="all"), "text"))
    assert every != attncli.render(attncli.build(spec), "text")


def test_a_cell_build_cannot_find_names_the_keyword() -> None:
    with pytest.raises(UsageError) as raised:
        attncli.build(attncli.load_spec(SPEC), expand="weights:nowhere")
    assert str(raised.value).startswith("expand: weights has no row nowhere; its rows are ")
