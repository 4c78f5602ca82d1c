"""Files read and written safely, for every stage: never half a file, never over the input, never
a device, a pipe or (where the tree is someone else's) a symbolic link.

- `reading`: what a path is (`real`, `same_file`, `kind_of`), only a regular file read
  (`check_regular`, `read_regular`), never more than a limit (`read_at_most`).
- `writing`: a file written whole or not at all (`write_atomic`), never over an input
  (`check_not_input`), and a new file that must not exist yet (`write_new`).

Two policies for a path that is a symbolic link:

- `follow=True` (`attn export -o FILE`, `--heatmap FILE`: paths the user typed): the link is
  written through, deliberately: the file it points to is replaced and the link kept.
- `follow=False` (`attn snippets`: paths a manifest names, which in CI come from a pull request):
  a link is refused, for reading and for writing.

Either way only a regular file is read or replaced: a folder, a device (/dev/null, /dev/sda), a
FIFO or a socket is refused without being opened, so nothing blocks and nothing is replaced.
"""
