"""Writing files a user names (``sessions export -o``, ``eval --junit``): safely and whole.

A target must be a new file or an existing regular file. Anything else is refused before a
byte is written: a directory, a FIFO (opening it would block until a reader came), a device
(``/dev/sda``...), a socket, and a symlink (writing through it would replace whatever it
points at). The content goes to a new temporary file in the same folder, is flushed to disk,
and then renamed over the target in one step: a reader sees the old file or the new one, an
interrupted write leaves the old file as it was and no partial file behind.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from core.errors import InputError
from core.inputs.text import text_problem

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symlink"))


def check_output_target(path: str | Path, *, make_folders: bool = False) -> Path:
    """``path`` as a ``Path``, or ``InputError`` when it may not be written (see the module
    docstring). ``make_folders``: missing folders will be created, so only the nearest existing
    one must be a folder."""
    label = str(path)
    problem = text_problem(label)
    if problem:
        raise InputError("output path", problem)
    target = Path(path)
    if not target.name or target.name in (".", ".."):
        raise InputError(label, "cannot write: not a file name")
    try:
        mode = target.lstat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(label, f"cannot write: {exc.strerror or exc}") from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "a special file")
        raise InputError(label, f"cannot write: it is {kind}; only a new or regular file is "
                                "written")
    folder = target.parent
    if make_folders:
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        raise InputError(label, f"cannot write: folder {str(target.parent)!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise InputError(label, f"cannot write: folder {str(folder)!r} is not writable")
    return target


def write_atomically(path: str | Path, chunks: Iterable[bytes], *,
                     make_folders: bool = False) -> Path:
    """Write ``chunks`` to ``path`` through a temporary file renamed over it; returns the path.

    The target is checked before and again just before the rename. The new file gets the usual
    permissions (0666 less the umask), like any file the user creates.
    """
    target = check_output_target(path, make_folders=make_folders)
    if make_folders:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(str(path), f"cannot write: {exc.strerror or exc}") from None
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.partial")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
                             | os.O_NOFOLLOW, 0o666)
    except OSError as exc:
        raise InputError(str(path), f"cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(descriptor, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        check_output_target(target)  # nothing swapped in meanwhile
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise InputError(str(path), f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target
