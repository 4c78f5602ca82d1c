"""`attn fill`: worked examples kept inside the documents that show them.

A block that names attn (in Markdown and Quarto a fence with the info string `attn`, in LaTeX
the same fence in comments, in a notebook the fence in a Markdown cell) gets its walkthrough
written right after it, between markers that say it is generated (attncli/fill/blocks.py finds
them, attncli/fill/notebook.py in a notebook's JSON); attncli/fill/block.py reads a block,
attncli/fill/document.py fills a whole document. The same blocks render at build time in MkDocs
(attncli/fill/mkdocs.py) and in IPython (attncli/fill/magic.py). This module imports nothing.
"""
