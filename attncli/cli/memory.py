"""Room for NumPy under a memory limit (`ulimit -v`, `ulimit -d`), looked at before a command
runs: OpenBLAS, under NumPy, ends the process itself when it is refused memory (its own English
line, "OpenBLAS error: Memory allocation still failed after 10 retries, giving up", and exit 1),
which no handler of attn sees. So where a limit is set, NumPy is imported and OpenBLAS's buffer
taken before the command's own data is read; what the command asks after that is refused to
NumPy as a MemoryError, which is one line and exit 2 (cli/running.py)."""

from __future__ import annotations

import sys

from attncli.errors import NO_ROOM_TO_LOAD

# What NumPy's import and OpenBLAS's buffer take, with one BLAS thread (cli/app.py
# BLAS_THREADS): address space (`ulimit -v`, RLIMIT_AS, VmSize) 75 MB for the import, which
# maps one buffer of 32 MB, and a second 32 MB that OpenBLAS maps at its first large product
# (WARM); data (`ulimit -d`, RLIMIT_DATA, VmData) 68 MB of it. Measured from the check on, with
# both taken there: 111 MB of address space left, OpenBLAS ended the process, 115 MB was
# refused as a MemoryError; 71 MB of data left, OpenBLAS ended it, 73 MB was a MemoryError.
NUMPY_ROOM = 118 << 20
NUMPY_DATA_ROOM = 78 << 20
# A product OpenBLAS works through its buffer: one of at most 100³ multiplications it makes
# with no buffer (its small-matrix kernels, on processors that have them)
WARM = (128, 128)
# each limit, the line of /proc/self/status that says what the process takes of it, and the
# room NumPy needs in it
LIMITS = (("RLIMIT_AS", b"VmSize:", NUMPY_ROOM), ("RLIMIT_DATA", b"VmData:", NUMPY_DATA_ROOM))


def room_for_numpy() -> bool:
    """Whether NumPy, not imported yet, can be, and OpenBLAS's buffer taken: each limit less
    what the process takes of it now (Linux's /proc/self/status) leaves NumPy's room. True where
    neither is known, and where nothing is limited."""
    if "numpy" in sys.modules:
        return True
    try:
        import resource

        limited = [(resource.getrlimit(getattr(resource, name))[0], field, room)
                   for name, field, room in LIMITS]
        limited = [entry for entry in limited if entry[0] != resource.RLIM_INFINITY]
        if not limited:
            return True
        with open("/proc/self/status", "rb") as status:
            taken = {line.split(b":")[0] + b":": int(line.split()[1]) * 1024 for line in status
                     if line.startswith(tuple(field for _, field, _ in LIMITS))}
        return all(limit - taken[field] >= room for limit, field, room in limited
                   if field in taken)
    except (ImportError, OSError, ValueError, IndexError):
        pass
    return True


def limited() -> bool:
    """Whether the address space or the data segment is limited (ulimit -v, ulimit -d)."""
    try:
        import resource
    except ImportError:
        return False
    return any(resource.getrlimit(getattr(resource, name))[0] != resource.RLIM_INFINITY
               for name, _, _ in LIMITS)


def numpy_taken() -> bool:
    """Under a memory limit, NumPy imported and OpenBLAS's buffer taken now, while the room for
    them is known (see room_for_numpy): False where memory was refused all the same (a
    MemoryError, or the SystemError or ImportError NumPy's import fails with then). Without a
    limit nothing is done: NumPy stays out of the commands that need none."""
    if "numpy" in sys.modules or not limited():
        return True
    try:
        import numpy as np

        np.ones(WARM) @ np.ones(WARM)  # OpenBLAS maps its buffer at its first large product
    except (MemoryError, SystemError):
        return False
    except ImportError as error:  # no NumPy at all is said where a command imports it
        return not (NO_ROOM_TO_LOAD in str(error) or isinstance(error.__cause__, MemoryError))
    return True
