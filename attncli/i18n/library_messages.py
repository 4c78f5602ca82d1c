"""What the libraries attn reads with say, as catalogue messages: PyYAML (libyaml), json, the
OS; the `tokenizers` package's are in tokenizers_messages.py.

A library's English sentence never goes into a translated one. Each message a reader can
produce today has an entry here (tests/test_library_messages.py lists them from the libraries'
own sources, so a new version with a new message fails that test instead of slipping English
in); a message with no entry is said to have no translation, in the user's language, naming the
library, with the library's words quoted.
"""

from __future__ import annotations

import errno
import re

from attncli.i18n import Msg

# libyaml's problems (the C reader PyYAML uses when built with it), by their exact text.
YAML_PROBLEMS: dict[str, Msg] = {
    # reader: the bytes and characters of the text
    "control characters are not allowed": Msg.of("a control character, which YAML does not "
                                                 "allow"),
    "invalid leading UTF-8 octet": Msg.of("a byte that is not UTF-8"),
    "invalid trailing UTF-8 octet": Msg.of("a byte that is not UTF-8"),
    "incomplete UTF-8 octet sequence": Msg.of("a byte that is not UTF-8"),
    "invalid length of a UTF-8 sequence": Msg.of("a byte that is not UTF-8"),
    "invalid Unicode character": Msg.of("a character that is not valid Unicode"),
    "incomplete UTF-16 character": Msg.of("a character that is not valid Unicode"),
    "incomplete UTF-16 surrogate pair": Msg.of("a character that is not valid Unicode"),
    "unexpected low surrogate area": Msg.of("a character that is not valid Unicode"),
    "expected low surrogate area": Msg.of("a character that is not valid Unicode"),
    "input is too long": Msg.of("the text is too long for the YAML reader"),
    "input error": Msg.of("the text could not be read"),
    # scanner: the marks of the YAML syntax
    "found character that cannot start any token": Msg.of(
        "a character that cannot start a value here (a tab? YAML indents with spaces)"),
    "found a tab character that violates indentation": Msg.of(
        "a tab: YAML indents with spaces"),
    "found a tab character where an indentation space is expected": Msg.of(
        "a tab: YAML indents with spaces"),
    "could not find expected ':'": Msg.of("a key without a colon after it"),
    "mapping keys are not allowed in this context": Msg.of("a key is not allowed here"),
    "mapping values are not allowed in this context": Msg.of(
        "a colon is not allowed here (a second key on one line, or a value with a colon that "
        "needs quotes?)"),
    "block sequence entries are not allowed in this context": Msg.of(
        "a list item (-) is not allowed here; check the indentation"),
    "found unexpected end of stream": Msg.of("the text ends inside a quoted value"),
    "found unexpected document indicator": Msg.of("a document marker (--- or ...) inside a "
                                                  "quoted value"),
    "found unknown escape character": Msg.of("an unknown escape after a backslash"),
    "did not find expected hexdecimal number": Msg.of("an escape needs hexadecimal digits"),
    "found invalid Unicode character escape code": Msg.of(
        "an escape that names no Unicode character"),
    "did not find expected comment or line break": Msg.of(
        "more text where the line should end"),
    "did not find expected whitespace or line break": Msg.of(
        "more text where the line should end"),
    "did not find expected whitespace": Msg.of("a space is missing"),
    "found unknown directive name": Msg.of("an unknown % directive"),
    "could not find expected directive name": Msg.of("a % directive without a name"),
    "found unexpected non-alphabetical character": Msg.of(
        "a directive name with a character other than a letter or digit"),
    "found extremely long version number": Msg.of("a malformed %YAML version"),
    "did not find expected digit or '.' character": Msg.of("a malformed %YAML version"),
    "did not find expected version number": Msg.of("a malformed %YAML version"),
    "did not find expected alphabetic or numeric character": Msg.of(
        "an anchor, alias or tag name with a character other than a letter or digit"),
    "did not find expected '!'": Msg.of("a malformed tag (!)"),
    "did not find expected tag URI": Msg.of("a malformed tag (!)"),
    "did not find URI escaped octet": Msg.of("a malformed tag (!)"),
    "found an incorrect leading UTF-8 octet": Msg.of("a malformed tag (!)"),
    "found an incorrect trailing UTF-8 octet": Msg.of("a malformed tag (!)"),
    "did not find the expected '>'": Msg.of("a malformed tag (!)"),
    "found an indentation indicator equal to 0": Msg.of(
        "a block scalar's indentation must be 1 to 9"),
    "found unexpected ':'": Msg.of("a colon is not allowed here"),
    # parser: the structure of the document
    "did not find expected <stream-start>": Msg.of("the document does not start as YAML does"),
    "did not find expected <document start>": Msg.of(
        "a second document without a --- line before it"),
    "found duplicate %YAML directive": Msg.of("the %YAML directive is given twice"),
    "found incompatible YAML document": Msg.of("a YAML version other than 1.x"),
    "found duplicate %TAG directive": Msg.of("a %TAG directive is given twice"),
    "found undefined tag handle": Msg.of("a tag with an undefined handle"),
    "did not find expected node content": Msg.of("a value is missing here"),
    "did not find expected '-' indicator": Msg.of(
        "a line that is not a list item (-) inside a list; check the indentation"),
    "did not find expected key": Msg.of(
        "a line that is not a key inside a mapping; check the indentation"),
    "did not find expected ',' or ']'": Msg.of("a list in [ ] without a comma or a closing ]"),
    "did not find expected ',' or '}'": Msg.of(
        "a mapping in {{ }} without a comma or a closing }}"),
    # composer: anchors, aliases, documents
    "found undefined alias": Msg.of("an alias (*) to an anchor (&) that is not defined "
                                    "before it"),
    "second occurrence": Msg.of("the anchor is defined twice"),
    "but found another document": Msg.of("a second document; a spec is one document"),
}

# PyYAML's own (Python) reader, used when it is built without libyaml: patterns, since its
# problems quote what was found. Kept as text and compiled by `re` only when a problem is read:
# compiling them all when attn started cost every command 16 million instructions.
YAML_PATTERNS: list[tuple[str, Msg]] = [
    (r"expected ',' or '\]', but got .*", YAML_PROBLEMS["did not find expected ',' or ']'"]),
    (r"expected ',' or '\}', but got .*", YAML_PROBLEMS["did not find expected ',' or '}'"]),
    (r"expected '<document start>', but found .*",
     YAML_PROBLEMS["did not find expected <document start>"]),
    (r"expected <block end>, but found .*",
     Msg.of("a line indented differently from the lines before it")),
    (r"expected the node content, but found .*",
     YAML_PROBLEMS["did not find expected node content"]),
    (r"duplicate tag handle .*", YAML_PROBLEMS["found duplicate %TAG directive"]),
    (r"found duplicate YAML directive", YAML_PROBLEMS["found duplicate %YAML directive"]),
    (r"found incompatible YAML document.*", YAML_PROBLEMS["found incompatible YAML document"]),
    (r"found undefined tag handle .*", YAML_PROBLEMS["found undefined tag handle"]),
    (r"found undefined alias .*", YAML_PROBLEMS["found undefined alias"]),
    (r"could not find expected ':'", YAML_PROBLEMS["could not find expected ':'"]),
    (r"expected ' ', but found .*", YAML_PROBLEMS["did not find expected whitespace"]),
    (r"expected '!', but found .*", YAML_PROBLEMS["did not find expected '!'"]),
    (r"expected '>', but found .*", YAML_PROBLEMS["did not find the expected '>'"]),
    (r"expected a digit or ' ', but found .*", YAML_PROBLEMS["found extremely long version "
                                                            "number"]),
    (r"expected a digit or '\.', but found .*",
     YAML_PROBLEMS["did not find expected digit or '.' character"]),
    (r"expected a digit, but found .*", YAML_PROBLEMS["did not find expected version number"]),
    (r"expected URI.*", YAML_PROBLEMS["did not find expected tag URI"]),
    (r"expected a comment or a line break, but found .*",
     YAML_PROBLEMS["did not find expected comment or line break"]),
    (r"expected alphabetic or numeric character, but found .*",
     YAML_PROBLEMS["did not find expected alphabetic or numeric character"]),
    (r"expected chomping or indentation indicators, but found .*",
     Msg.of("a block scalar (| or >) with a malformed indicator")),
    (r"expected escape sequence of \d+ hexadecimal numbers, but found .*",
     YAML_PROBLEMS["did not find expected hexdecimal number"]),
    (r"expected indentation indicator in the range 1-9, but found 0",
     YAML_PROBLEMS["found an indentation indicator equal to 0"]),
    (r"found character .* that cannot start any token",
     YAML_PROBLEMS["found character that cannot start any token"]),
    (r"found unexpected document separator",
     YAML_PROBLEMS["found unexpected document indicator"]),
    (r"found unexpected end of stream", YAML_PROBLEMS["found unexpected end of stream"]),
    (r"found unknown escape character .*", YAML_PROBLEMS["found unknown escape character"]),
    (r"mapping keys are not allowed here",
     YAML_PROBLEMS["mapping keys are not allowed in this context"]),
    (r"mapping values are not allowed here",
     YAML_PROBLEMS["mapping values are not allowed in this context"]),
    (r"sequence entries are not allowed here",
     YAML_PROBLEMS["block sequence entries are not allowed in this context"]),
    (r"special characters are not allowed",
     YAML_PROBLEMS["control characters are not allowed"]),
    (r"'utf-8' codec can't decode .*", YAML_PROBLEMS["invalid leading UTF-8 octet"]),
]

JSON_PROBLEMS: list[tuple[str, Msg]] = [
    (r"Expecting value", Msg.of("expected a value")),
    (r"Expecting property name enclosed in double quotes",
     Msg.of("expected a key in double quotes")),
    (r"Expecting ':' delimiter", Msg.of("expected a colon after the key")),
    (r"Expecting ',' delimiter", Msg.of("expected a comma between two items")),
    (r"Unterminated string starting at", Msg.of("a string that is never closed starts here")),
    (r"Invalid control character.*",
     Msg.of("a control character inside a string; write it as an escape such as \\n")),
    (r"Invalid \\escape(: .*)?", Msg.of("an unknown escape after a backslash")),
    (r"Invalid \\uXXXX escape", Msg.of("a \\u escape needs four hexadecimal digits")),
    (r"Extra data", Msg.of("more text after the end of the JSON document")),
    (r"Illegal trailing comma before end of object",
     Msg.of("a comma before the closing }}: JSON allows none there")),
    (r"Illegal trailing comma before end of array",
     Msg.of("a comma before the closing ]: JSON allows none there")),
]

# tomllib's problems (the manifest attn.toml), by pattern: some quote a key or a character
# as Python writes it, which the line:column before the message already points to
TOML_PROBLEMS: list[tuple[str, Msg]] = [
    (r"Invalid initial character for a key part", Msg.of("a key cannot start with this "
                                                         "character")),
    (r"Invalid value", Msg.of("a value TOML cannot read (a text without quotes?)")),
    (r"Illegal character '\\n'", Msg.of("a quoted text without its closing quote on this line")),
    (r"(Found invalid|Illegal) character .*", Msg.of("a character that is not allowed here")),
    (r"Cannot (declare .* twice|overwrite a value|redefine namespace .*|mutate immutable "
     r"namespace .*)|Duplicate inline table key .*", Msg.of("a key or table given twice")),
    (r"Expected '\]' at the end of a table declaration",
     Msg.of("a table name without a closing ]")),
    (r"Expected '\]\]' at the end of an array declaration",
     Msg.of("a [[...]] table name without a closing ]]")),
    (r"Expected '=' after a key in a key/value pair", Msg.of("a key without = after it")),
    (r"Invalid hex value|Escaped character is not a Unicode scalar value",
     Msg.of("an escape that names no Unicode character")),
    (r"Expected newline or end of document after a statement",
     Msg.of("more text where the line should end")),
    (r"Unclosed array", Msg.of("a list in [ ] without a comma or a closing ]")),
    (r"Unclosed inline table", Msg.of("a mapping in {{ }} without a comma or a closing }}")),
    (r"Unescaped '\\' in a string", Msg.of("an unknown escape after a backslash")),
    (r"Expected .*", Msg.of("a closing quote or bracket is missing")),
    (r"Unterminated string", Msg.of("the text ends inside a quoted value")),
    (r"Invalid date or datetime", Msg.of("an invalid date or time")),
    (r"Invalid statement", Msg.of("a line that is neither key = value nor a [table] name")),
]

OS_ERRORS: dict[int, Msg] = {
    errno.ENOENT: Msg.of("no such file or folder"),
    errno.EISDIR: Msg.of("this is a folder, not a file"),
    errno.ENOTDIR: Msg.of("a part of the path is a file, not a folder"),
    errno.EACCES: Msg.of("permission denied"),
    errno.EPERM: Msg.of("permission denied"),
    errno.ELOOP: Msg.of("the symbolic links lead in a loop"),
    errno.ENOSPC: Msg.of("no space left on the disk"),
    errno.EDQUOT: Msg.of("the disk quota is used up"),
    errno.EFBIG: Msg.of("the file is too large for the file system"),
    errno.EROFS: Msg.of("the file system is read-only"),
    errno.ENAMETOOLONG: Msg.of("the name is too long"),
    errno.EIO: Msg.of("the disk could not be read or written (input/output error)"),
    errno.EMFILE: Msg.of("too many files are open"),
    errno.ENFILE: Msg.of("too many files are open"),
    errno.EBUSY: Msg.of("the file is in use"),
    errno.ETXTBSY: Msg.of("the file is in use"),
    errno.EEXIST: Msg.of("the file already exists"),
    errno.EXDEV: Msg.of("the file cannot be moved to another file system"),
    errno.ENXIO: Msg.of("no such device"),
    errno.ENODEV: Msg.of("no such device"),
    errno.EINVAL: Msg.of("the system refuses this name or operation"),
    errno.ESRCH: Msg.of("the process this file belongs to has ended"),
    errno.EAGAIN: Msg.of("the file is not available right now"),
    errno.EOVERFLOW: Msg.of("the file is too large for the system to read"),
    errno.ENOMEM: Msg.of("the system is out of memory"),
    errno.EOPNOTSUPP: Msg.of("the file system does not support this operation"),
    errno.ESTALE: Msg.of("the file is gone from the server (a stale file handle)"),
    errno.EINTR: Msg.of("the operation was interrupted"),
    errno.ETIMEDOUT: Msg.of("the file system did not answer in time"),
    errno.ENOTEMPTY: Msg.of("the folder is not empty"),
}


def yaml_problem(problem: str) -> Msg:
    """PyYAML's (libyaml's) problem as a catalogue message."""
    problem = " ".join(problem.split())
    found = YAML_PROBLEMS.get(problem)
    if found is not None:
        return found
    for pattern, message in YAML_PATTERNS:
        if re.fullmatch(pattern, problem):
            return message
    return Msg.of("PyYAML's message has no translation: {detail}", detail=problem)


def yaml_value_problem(problem: str) -> Msg:
    """Why PyYAML's constructor could not make a value of a scalar, as a catalogue message."""
    tag = re.fullmatch(r"could not determine a constructor for the tag '(.*)'", problem)
    if tag is not None:
        return Msg.of("the tag {tag} is not allowed; a spec holds plain numbers, text, lists "
                      "and mappings", tag=tag.group(1))
    if problem.startswith(("failed to decode base64", "failed to convert base64")):
        return Msg.of("malformed base64 data (!!binary)")
    return yaml_problem(problem)


def date_problem(written: str) -> Msg:
    """A plain scalar that YAML reads as a date (`2024-02-30`) or a date and time, and that
    names none (Python's datetime refused it): said without the library's words."""
    if re.search(r"[0-9][Tt ]+[0-9]", written.strip()):
        return Msg.of("YAML reads {written} as a date and time, and there is no such date or "
                      "time; if it is text, write it in quotes: \"{written}\"", written=written)
    return Msg.of("YAML reads {written} as a date, and there is no such date; if it is text, "
                  "write it in quotes: \"{written}\"", written=written)


def json_problem(message: str) -> Msg:
    """The json module's JSONDecodeError.msg as a catalogue message."""
    for pattern, found in JSON_PROBLEMS:
        if re.fullmatch(pattern, message):
            return found
    return Msg.of("the json module's message has no translation: {detail}", detail=message)


def toml_problem(message: str) -> Msg:
    """tomllib's TOMLDecodeError text, without its "(at line …)", as a catalogue message."""
    for pattern, found in TOML_PROBLEMS:
        if re.fullmatch(pattern, message):
            return found
    return Msg.of("the tomllib module's message has no translation: {detail}", detail=message)


def numpy_problem(message: str) -> Msg:
    """NumPy's reason for not reading a .npy, .npz or .csv file, as a catalogue message (rows
    and columns counted from 1)."""
    text = re.fullmatch(r"could not convert string (?P<found>.*) to float64 at row (?P<row>\d+), "
                        r"column (?P<column>\d+)\.", message)
    if text is not None:  # NumPy counts these rows from 0 and the columns from 1
        return Msg.of("row {row}, column {column}: expected a number, found {found}",
                      row=int(text["row"]) + 1, column=int(text["column"]),
                      found=text["found"].strip("'"))
    ragged = re.match(r"the number of columns changed from (?P<expected>\d+) to (?P<count>\d+) "
                      r"at row (?P<row>\d+);", message)
    if ragged is not None:  # this row is counted from 1
        return Msg.plural_of("row {row} has {count} number, expected {expected}",
                             "row {row} has {count} numbers, expected {expected}",
                             int(ragged["count"]), row=int(ragged["row"]),
                             expected=int(ragged["expected"]))
    if message.startswith(("Failed to read all data", "EOF:")):
        return Msg.of("the file ends before its data does")
    return Msg.of("NumPy's message has no translation: {detail}", detail=message)


def os_problem(error: OSError) -> Msg:
    """Why the system refused to read or write a file, as a catalogue message."""
    found = OS_ERRORS.get(error.errno) if error.errno is not None else None
    if found is not None:
        return found
    name = errno.errorcode.get(error.errno, "?") if error.errno is not None else "?"
    return Msg.of("the system reports {code}, which attn has no translation for: {detail}",
                  code=name, detail=error.strerror or "?")  # never str(error): it names a path
