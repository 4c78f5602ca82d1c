"""Two byte counts in one sentence read alike: both with the word, each in its own plural form
(1 bajt, 2 bajty, 5 bajtów; 1 байт, 2 байта, 5 байт), never "24 байта, а должно быть 32 Б"."""

from __future__ import annotations

from pathlib import Path

import pytest

from attncli.i18n import Msg, translate
from attncli.spec.source import byte_count
from attncli.spec.spec_text import too_large
from tests.conftest import run


def said(msg: Msg, lang: str) -> str:
    """The sentence with ordinary spaces (typography.py binds a one-letter word to the next)."""
    return translate(msg, lang).replace("\u00a0", " ")


def offsets(count: int, expected: int) -> Msg:
    return Msg.plural_of("{name}: data_offsets hold {count} byte, expected {expected}",
                         "{name}: data_offsets hold {count} bytes, expected {expected}", count,
                         name="W", expected=byte_count(expected))


@pytest.mark.parametrize(("count", "expected", "pl", "ru"), [
    (1, 2, "1 bajt, a powinny obejmować 2 bajty", "1 байт, а должно быть 2 байта"),
    (2, 5, "2 bajty, a powinny obejmować 5 bajtów", "2 байта, а должно быть 5 байт"),
    (5, 1, "5 bajtów, a powinny obejmować 1 bajt", "5 байт, а должно быть 1 байт"),
    (22, 25, "22 bajty, a powinny obejmować 25 bajtów", "22 байта, а должно быть 25 байт"),
    (21, 12, "21 bajtów, a powinny obejmować 12 bajtów", "21 байт, а должно быть 12 байт"),
])
def test_both_numbers_take_the_word_in_their_own_form(count: int, expected: int, pl: str,
                                                      ru: str) -> None:
    assert said(offsets(count, expected), "pl") == f"W: data_offsets obejmują {pl}"
    assert said(offsets(count, expected), "ru") == f"W: data_offsets охватывают {ru}"
    assert said(offsets(count, expected), "en").endswith(
        f"{count} byte{'s' * (count != 1)}, expected {expected} byte{'s' * (expected != 1)}")


def test_no_byte_symbol_is_left_beside_a_number() -> None:
    """No catalogue sentence writes a count as `{n} B` or `{n} Б` (the word is used)."""
    for lang, symbol in (("pl", "} B"), ("ru", "} Б")):
        po = Path(__file__).parent.parent / f"attncli/i18n/locale/{lang}/LC_MESSAGES/attn.po"
        live = [line for line in po.read_text(encoding="utf-8").splitlines()
                if line.startswith("msgstr") and symbol in line]
        assert live == []


@pytest.mark.parametrize(("case", "lang", "said"), [
    ("checkpoint_bad_offsets", "pl", "data/bad_offsets.safetensors (W): data_offsets obejmują "
                                     "24 bajty, a powinny obejmować 32 bajty"),
    ("checkpoint_bad_offsets", "ru", "data/bad_offsets.safetensors (W): data_offsets охватывают "
                                     "24 байта, а должно быть 32 байта"),
    ("checkpoint_huge_header", "pl", "data/huge_header.safetensors: długość nagłówka zapisana "
                                     "na początku pliku to 1 099 511 627 776 bajtów, a dalsza "
                                     "część pliku ma tylko 97 bajtów"),
    ("checkpoint_huge_header", "ru", "data/huge_header.safetensors: длина заголовка указана как "
                                     "1 099 511 627 776 байт, а дальше в файле всего 97 байт"),
])
def test_the_refusal_reads_both_counts_with_the_word(case: str, lang: str, said: str,
                                                     catalogue: Path) -> None:
    result = run("explain", f"{case}.yaml", "--lang", lang)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.replace("\u00a0", " ") == (
        f"{case}.yaml:2:20: embeddings.file: {said}\n")


@pytest.mark.parametrize(("limit", "ru", "pl"), [
    (1, "больше 1 байта", "więcej niż 1 bajt"),
    (2, "больше 2 байт", "więcej niż 2 bajty"),
    (5, "больше 5 байт", "więcej niż 5 bajtów"),
    (21, "больше 21 байта", "więcej niż 21 bajtów"),
    (22, "больше 22 байт", "więcej niż 22 bajty"),
])
def test_larger_than_takes_the_genitive(limit: int, ru: str, pl: str) -> None:
    """After «больше» the count is genitive: «1 байта», and for a measure «байт» from 2 on
    (never «байтов»); Polish „więcej niż” keeps the nominative's forms."""
    refused = too_large("s.yaml", None, limit).message
    assert said(refused, "ru") == f"спецификация {ru} — предела, который задаёт --max-cells"
    assert said(refused, "pl").startswith(f"specyfikacja ma {pl}, ")
    refusal = Msg.plural_of("the file is larger than {count} byte, the limit that {option} sets",
                            "the file is larger than {count} bytes, the limit that {option} "
                            "sets", limit, option="--max-cells")
    assert said(refusal, "ru") == f"файл {ru} — предела, который задаёт --max-cells"


def test_standard_input_over_the_limit_in_russian() -> None:
    result = run("explain", "-", "--max-cells", "10", "--lang", "ru", input="#" * (2**20 + 1))
    assert (result.exit_code, result.stderr.replace("\u00a0", " ")) == (
        2, "<stdin>: спецификация больше 1 048 576 байт — предела, который задаёт --max-cells\n")


# The cache-size formula of each example and what every format writes of it, in the reader's
# language: bytes are B in English and Polish (kB, MB) and Б in Russian (ГОСТ 8.417); JSON is read
# by programs and keeps B whatever the language.
CACHE_FORMULAS = {
    "kv_cache_decoding.yaml": ("n_kv · (d_k + d_v) · 2", r"n_{kv} (d_k + d_v) \cdot 2",
                               'n_("kv") dot.op ( d_(k) + d_(v) ) dot.op 2'),
    "mla_deepseek.yaml": ("(d_c + d_R) · 2", r"(d_c + d_R) \cdot 2",
                          "( d_(c) + d_(R) ) dot.op 2"),
}
UNITS = {"en": "B", "pl": "B", "ru": "Б"}


@pytest.mark.parametrize("example", sorted(CACHE_FORMULAS))
@pytest.mark.parametrize("lang", sorted(UNITS))
def test_a_cache_size_is_in_the_readers_bytes_in_every_format(example: str, lang: str) -> None:
    from attncli import build, load_spec
    from attncli.render import render
    from tests.conftest import CONFIGS

    walkthrough = build(load_spec(str(CONFIGS / example)))
    text, latex, typst = CACHE_FORMULAS[example]
    unit = UNITS[lang]
    assert f"{text} {unit}\n" in render(walkthrough, "text", lang)
    assert f"{latex}\\,\\text{{{unit}}}\n" in render(walkthrough, "latex", lang)
    assert f"{latex}\\thinspace\\text{{{unit}}}\n" in render(walkthrough, "markdown", lang)
    assert f'$ {typst} thin "{unit}" $' in render(walkthrough, "typst", lang)
    html = render(walkthrough, "html", lang)
    assert f'aria-label="{text} {unit}"' in html
    assert f'<mn>2</mn></mrow><mspace width="0.1667em"/><mi mathvariant="normal">{unit}</mi>' \
        in html
    assert f'"formula": "{text} B"' in render(walkthrough, "json", lang)
