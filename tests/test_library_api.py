"""The library API that generators such as cog call: the same text as the CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import attncli
from attncli import build, load_spec, render
from attncli.cli.app import app
from tests.conftest import EXAMPLES, attn_executable


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("spec", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_render_returns_what_the_cli_prints(spec: Path, fmt: str) -> None:
    text = render(build(load_spec(str(spec))), format=fmt, lang="en")
    cli = CliRunner().invoke(app, ["explain", str(spec), "--format", fmt, "--lang", "en"])
    assert text == cli.stdout


def python(code: str) -> str:
    return subprocess.run([str(Path(attn_executable()).parent / "python"), "-c", code],
                          capture_output=True, text=True, check=True).stdout


def test_the_library_needs_no_cli_and_render_stays_the_function() -> None:
    # importing the renderer package (as the format modules do) must not rebind attncli.render
    code = ("import sys, attncli.render.text; "
            "from attncli import build, load_spec, render; "
            "print('typer' in sys.modules, callable(render), render.__module__)")
    assert python(code) == "False True attncli.render\n"



@pytest.mark.parametrize("precision", [-1, 13, 3000, "3", 2.0, True])
def test_render_holds_precision_to_what_p_allows(precision: object) -> None:
    """render(w, precision=-1) was Python's 'invalid format string' (ValueError), 3000 an
    OverflowError, 99 ninety-nine decimals; `-p` allows 0 to 12, and so does render."""
    walkthrough = attncli.walkthrough_of(tokens=["a", "b"], X=np.eye(2))
    with pytest.raises(attncli.UsageError, match="precision: expected a whole number from 0 to 12"):
        attncli.render(walkthrough, format="text", precision=precision)
    assert "0.67" in attncli.render(walkthrough, format="text", precision=2)  # e/(1+e), √2 scale


@pytest.mark.parametrize(("text", "where", "byte"), [
    ("tokens: [\udcff]\nembeddings: [[1]]\n", "1:10", "ff"),  # a byte kept by surrogateescape
    ("tokens: [a]\nembeddings: [[1]]\ntitle: \ud800x\n", "3:8", "ed"),  # any other lone half
    ('{"tokens": ["\udcfe"], "embeddings": [[1]]}', "1:14", "fe"),
])
def test_loads_spec_refuses_a_lone_surrogate_at_its_place(text: str, where: str, byte: str) -> None:
    """A text with a lone surrogate (a file name read with surrogateescape) was Python's
    UnicodeEncodeError; it is the byte it stands for, refused as in a spec file."""
    with pytest.raises(attncli.SpecError) as refused:
        attncli.loads_spec(text)
    assert str(refused.value) == f"<string>:{where}: expected UTF-8 text, found the byte 0x{byte}"


@pytest.mark.parametrize(("options", "said"), [
    ({"format": "beamer", "aspect": "99"}, "aspect: expected one of 169, 43, found 99"),
    ({"format": "text", "decimal": "x"}, "decimal: expected one of dot, comma, found x"),
])
def test_render_names_an_aspect_or_decimal_it_does_not_know(options: dict[str, str],
                                                           said: str) -> None:
    """render(w, aspect="99") and render(w, decimal="x") were a bare KeyError from a renderer."""
    walkthrough = attncli.walkthrough_of(tokens=["a", "b"], X=np.eye(2))
    with pytest.raises(attncli.UsageError) as refused:
        attncli.render(walkthrough, **options)  # type: ignore[arg-type]
    assert str(refused.value) == said
    assert "0,67" in attncli.render(walkthrough, format="text", decimal="comma", precision=2)
