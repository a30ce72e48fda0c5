"""Files a person names, and stdin: regular files only, bounded, without blocking."""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path
from typing import IO

from core.errors import InputError
from core.inputs.text import check_text, decode_utf8

MiB = 1024 * 1024


def _size(count: int) -> str:
    return f"{count / MiB:.0f} MiB" if count >= MiB else f"{count:,} bytes"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def resolve_within(path: str | Path, folder: Path, *, source: str) -> Path:
    """``path`` with every link resolved, refused unless it stays inside ``folder`` (resolved)."""
    candidate = Path(path)
    try:
        real = candidate.resolve(strict=True)
    except FileNotFoundError:
        if candidate.is_symlink():
            raise InputError(source, "cannot read: a symlink to nothing (dangling)") from None
        raise InputError(source, "cannot read: no such file") from None
    except RuntimeError:  # Python < 3.13 reports a link loop this way
        raise InputError(source, "cannot read: a symlink loop") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(source, "cannot read: a symlink loop") from None
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
    except ValueError:
        raise InputError(source, "cannot read: not a valid file name") from None
    if not real.is_relative_to(folder.resolve()):
        raise InputError(source, "cannot read: it links outside its folder "
                                 "(only files inside it are read)")
    return real


def open_regular(path: str | Path, *, source: str | None = None, max_bytes: int,
                 within: Path | None = None) -> IO[bytes]:
    """A regular file opened for binary reading, at most ``max_bytes`` long.

    The file is opened without blocking (a FIFO would block the open itself) and checked on
    the open descriptor. ``within``: the path must resolve inside that folder, and the final
    component must not be a link swapped in after the check.
    """
    label = source or str(path)
    target = resolve_within(path, within, source=label) if within is not None else Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    if within is not None:
        flags |= os.O_NOFOLLOW
    try:
        descriptor = os.open(target, flags)
    except FileNotFoundError:
        if Path(target).is_symlink():
            raise InputError(label, "cannot read: a symlink to nothing (dangling)") from None
        raise InputError(label, "cannot read: no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(label, "cannot read: a symlink loop" if within is None
                             else "cannot read: it became a symlink while being read") from None
        raise InputError(label, f"cannot read: {exc.strerror or exc}") from None
    except ValueError:  # an embedded NUL, or a name the file system cannot encode
        raise InputError(label, "cannot read: not a valid file name") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(label, f"cannot read: {_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise InputError(label, f"is too large ({_size(info.st_size)}; the limit is "
                                    f"{_size(max_bytes)})")
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bytes(path: str | Path, *, source: str | None = None, max_bytes: int,
               within: Path | None = None) -> bytes:
    """The bytes of a regular file (see ``open_regular``); never more than ``max_bytes``."""
    label = source or str(path)
    with open_regular(path, source=label, max_bytes=max_bytes, within=within) as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(label, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # it grew after the check
        raise InputError(label, f"is too large (the limit is {_size(max_bytes)})")
    return data


def read_text(path: str | Path, *, source: str | None = None, max_bytes: int,
              within: Path | None = None) -> str:
    """The UTF-8 text of a regular file, or of stdin when ``path`` is ``-``."""
    label = source or str(path)
    if str(path) == "-":
        return read_stdin(source=source or "stdin", max_bytes=max_bytes)
    return decode_utf8(read_bytes(path, source=label, max_bytes=max_bytes, within=within),
                       source=label)


def read_stdin(*, source: str = "stdin", max_bytes: int) -> str:
    """Standard input as UTF-8 text, at most ``max_bytes`` (``/dev/zero`` on stdin ends)."""
    stream = sys.stdin
    if stream is None:
        raise InputError(source, "cannot read: closed")
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is not None:
            data = buffer.read(max_bytes + 1)
        else:  # a text stream without bytes underneath (tests, embedding)
            text = stream.read(max_bytes + 1)
            data = text.encode("utf-8", "surrogatepass")
    except OSError as exc:
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(source, f"not UTF-8 text (offset {exc.start})") from None
    if len(data) > max_bytes:
        raise InputError(source, f"is too large (the limit is {_size(max_bytes)})")
    return check_text(decode_utf8(data, source=source), source=source)
