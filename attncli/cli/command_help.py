"""The help text of each command of `attn`, by name, in the order `attn --help` lists them:
each command takes its help from here, and `attn --help` lists the commands with the
start of each text without importing their modules (a twentieth of what `attn --help`
costs). Each text is a msgid, translated like every message.
"""

from __future__ import annotations

from attncli.i18n import N_

COMMAND_HELP = {
    "explain": N_(
        "Print every step of attention on SPEC, labelled with its tokens, with the work shown.\n"
        "\n"
        "Examples: the work rounded as by hand; one step for a slide, numbered as in the whole\n"
        "walkthrough; one matrix; text for a page 60 columns wide; no file, the numbers typed in:\n"
        "\n"
        "\b\n"
        "attn explain configs/cat_chases_mouse.yaml --format text --round-intermediates\n"
        "attn explain --steps weights --no-header --format text\n"
        "attn explain --matrix A --format text\n"
        "attn explain --format text --width 60\n"
        "attn explain --tokens \"cat chases mouse\" --embeddings \"1 0; "
        "0.2 1; 0.8 0\" --mask causal"
    ),
    "snippets": N_(
        "Write every snippet that the manifest lists, rewriting only files whose content changed.\n"
        "\n"
        "Exit 0 when all is well, 1 when --check finds a stale or missing snippet, 2 for a bad\n"
        "manifest or spec.\n"
        "\n"
        "Example:\n"
        "\n"
        "\b\n"
        "attn snippets --check --diff"
    ),
    "fill": N_(
        "Write the walkthrough of every attn block right after it, in each document, between\n"
        "markers that say it is generated; everything else in the document stays as it is.\n"
        "\n"
        "Exit 0 when all is well, 1 when --check finds a stale "
        "block, 2 for a bad block or document.\n"
        "\n"
        "Example, a post whose blocks are written, checked:\n"
        "\n"
        "\b\n"
        "attn fill posts/attention.md --check --diff"
    ),
    "validate": N_(
        "Check spec files without printing their walkthroughs: one line per broken file.\n"
        "\n"
        "Each file is loaded and built, so a valid spec is one that "
        "`attn explain` accepts. A file's\n"
        "first error is reported (with file:line:column), then the "
        "next file is checked. Exit 2 if\n"
        "any file is broken.\n"
        "\n"
        "Example:\n"
        "\n"
        "\b\n"
        "attn validate configs/*.yaml"
    ),
    "schema": N_(
        "Print the JSON Schema of the spec format, for editors that validate YAML as you type.\n"
        "\n"
        "Write it to a file, then start a spec with the line\n"
        "`# yaml-language-server: $schema=attn.schema.json`. With "
        "--lang, the schema describes the\n"
        "keys in that language.\n"
        "\n"
        "Example:\n"
        "\n"
        "\b\n"
        "attn schema > attn.schema.json"
    ),
    "examples": N_(
        "List the bundled example specs, or print one to start from a copy.\n"
        "\n"
        "With --lang, the comments of the spec are in that language. An example that reads files\n"
        "beside it (an image, a checkpoint) is copied whole by --to DIR: the spec and its files.\n"
        "\n"
        "Examples:\n"
        "\n"
        "\b\n"
        "attn examples cat_chases_mouse > my_first.yaml\n"
        "attn examples vit_digit --to my_vit"
    ),
    "check": N_(
        "Check a hand calculation: each number at the precision you wrote it, and the known slip\n"
        "that explains the numbers that differ (no scaling, softmax over columns, ...).\n"
        "\n"
        "Exit 0 when every number is right, 1 when one is wrong, 2 for bad input.\n"
        "\n"
        "Example, the weights of the bundled example:\n"
        "\n"
        "\b\n"
        "attn check --step weights --answer \"1 0 0; 0.36 0.64 0; 0.4 0.25 0.35\""
    ),
    "export": N_(
        "Write the walkthrough of SPEC as LaTeX, Beamer, Markdown, "
        "JSON, SVG, HTML or Typst, for a\n"
        "post or slides.\n"
        "\n"
        "With --worksheet, chosen cells are boxes to fill in; "
        "--answers writes the key to a second\n"
        "file.\n"
        "\n"
        "Examples: a whole LaTeX document; the weights alone, for a "
        "slide; the weights of head 2 as\n"
        "a matrix to paste into a formula; a worksheet and its key:\n"
        "\n"
        "\b\n"
        "attn export configs/cat_chases_mouse.yaml --latex --standalone -o cat.tex\n"
        "attn export --latex --steps weights --expand none --no-header\n"
        "attn export configs/two_heads.yaml --latex --matrix A:2\n"
        "attn export --latex --standalone --worksheet --blank-cells "
        "6 -o sheet.tex --answers key.tex"
    ),
}
