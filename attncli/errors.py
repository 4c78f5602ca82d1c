"""Typed errors raised by the library and turned into exit codes in one place
(attncli/cli/running.py `run`).

Lower layers never call sys.exit: they raise one of these. Each carries a message that is
translated when it is printed, and, for spec errors, where in the input the problem is.
"""

from __future__ import annotations

from attncli.i18n import DEFAULT_LANG, Msg, translate
from attncli.records import record

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2

# A MemoryError, said alike by the command line (exit 2) and the %%attn magic: the machine's
# limit, as a full disk is, not a bug in attn.
NO_MEMORY = Msg.of("not enough memory: the system refused attn the memory it needs (a limit "
                   "such as ulimit -v, or a machine whose memory is used up)")
# What the dynamic loader says when the memory to map a library is refused (ENOMEM), in the
# ImportError of a module that needs one (NumPy's OpenBLAS, libgfortran): memory refused too
NO_ROOM_TO_LOAD = "failed to map segment from shared object"


@record
class Location:
    """Where in a spec a value was written: file, 1-based line and column, and key path."""

    source: str
    path: str = ""
    line: int | None = None
    column: int | None = None

    def prefix(self) -> str:
        """`file:line:column` when the position is known, else the file name alone."""
        if self.line is not None and self.column is not None:
            return f"{self.source}:{self.line}:{self.column}"
        return self.source


class AttnError(Exception):
    """Base of every error attn reports to its user (never a bug)."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: Msg, where: Location | None = None) -> None:
        super().__init__(message.msgid)
        self.message = message
        self.where = where
        self.lang = DEFAULT_LANG  # what str() writes it in

    def __reduce__(self) -> tuple[type[AttnError], tuple[Msg, Location | None], dict[str, object]]:
        """Pickled whole: an error of a spec rendered in another process (`attn snippets
        --jobs`) reaches the command as it was raised."""
        return type(self), (self.message, self.where), self.__dict__

    def in_language(self, lang: str) -> AttnError:
        """This error, written in `lang` by str() (a library call that was asked for it)."""
        self.lang = lang
        return self

    def __str__(self) -> str:
        """The finished sentence (in English unless `in_language`), after where it is: what
        `attn` prints, for a library user who prints the error (`spec.yaml:2:13: embeddings:
        has 2 rows, …`), with no control character raw, and what it quotes from the input cut
        as attn's line is (a key of ten million characters was written whole)."""
        from attncli.i18n.quoting import clipped
        from attncli.i18n.visible import visible

        sentence = translate(clipped(self.message), self.lang)
        line = f"{self.where.prefix()}: {sentence}" if self.where is not None else sentence
        return visible(line)  # a control character a caller wrote (lang="pl\x1b[2J") escaped


class SpecError(AttnError):
    """The spec (or an option standing in for it) is malformed or inconsistent: exit 2."""


class EmptySpec(SpecError):
    """The spec holds nothing (no YAML document: blank lines and comments at most); attn fill
    says so of an attn block at its opening fence."""


class UsageError(AttnError):
    """The command line asks for something impossible: exit 2."""


class CheckFailed(AttnError):
    """A --check found stale output: exit 1."""

    exit_code = EXIT_CHECK_FAILED
