"""The commands of `attn`, one module per command or family of commands.

Each command module holds a small Typer app that `attncli.cli` merges into `attn`; the option
types they share are in `options`, what those options mean in `inputs`, and the one place that
turns errors into exit codes is `running.run`.
"""
