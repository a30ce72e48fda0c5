"""Reading a log file's bytes: a regular file only, gzip or not, checked to be text, split
into lines at LF, CRLF or a bare CR, each bounded in length (``core.sources.logimport``)."""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

from core.errors import InputError, LogImportError
from core.inputs.files import open_regular

MAX_LINE_BYTES = 1 << 20  # a longer physical line is refused: nobody writes such log lines
MAX_LOG_FILE_BYTES = 1 << 40  # files are streamed; this only refuses the absurd


def open_log(path: Path) -> IO[bytes]:
    """The file opened for reading, decompressed when it is gzip: a regular file only (never a
    FIFO, a device or a folder: ``core.inputs.open_regular``)."""
    try:
        handle = open_regular(path, max_bytes=MAX_LOG_FILE_BYTES)
    except InputError as error:
        raise LogImportError(str(error)) from None
    try:
        head = handle.read(2)
        handle.seek(0)
    except OSError as error:
        handle.close()
        raise LogImportError(f"{path}: cannot read: {error.strerror or error}") from None
    # The caller closes what is returned. Rotated logs are often compressed.
    if head == b"\x1f\x8b":
        return cast(IO[bytes], _GzipOwningFile(handle))
    return handle


class _GzipOwningFile(gzip.GzipFile):
    """A gzip reader that closes the file it reads when it is closed."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


def is_compressed(path: Path) -> bool:
    with open_log(path) as handle:
        return isinstance(handle, gzip.GzipFile)


def check_text(path: Path) -> None:
    with open_log(path) as handle:
        try:
            head = handle.read(8192)
        except (OSError, EOFError, zlib.error) as error:  # a damaged .gz among them
            raise LogImportError(f"{path}: cannot read: {error}") from None
    if b"\x00" in head:
        raise LogImportError(f"{path}: a binary file, not a text log")
    controls = sum(1 for byte in head if byte < 9 or 13 < byte < 32)
    if head and controls > len(head) // 10:
        raise LogImportError(f"{path}: a binary file, not a text log")


_LINE_END = re.compile(rb"\r\n|\r|\n")
_CHUNK_BYTES = 1 << 16


def physical_lines(handle: IO[bytes], path: Path, limit: int | None = None) -> Iterator[bytes]:
    """The file's lines without their ends, which may be LF, CRLF or a bare CR (old Mac files,
    some appliances), mixed; a line longer than ``MAX_LINE_BYTES`` is refused. At most
    ``limit`` bytes are read (what the file held when its content was marked)."""
    carry, number = b"", 0
    while True:
        try:
            chunk = handle.read(_CHUNK_BYTES if limit is None else min(_CHUNK_BYTES, limit))
            if limit is not None:
                limit -= len(chunk)
        except (OSError, EOFError, zlib.error) as error:
            raise LogImportError(f"{path}: cannot read after line {number}: {error}") from None
        if not chunk:
            if carry:
                yield carry.removesuffix(b"\r")
            return
        buffer, held = carry + chunk, b""
        if buffer.endswith(b"\r"):  # its LF (a CRLF) may start the next chunk
            buffer, held = buffer[:-1], b"\r"
        parts = _LINE_END.split(buffer) if b"\r" in buffer else buffer.split(b"\n")
        carry = parts.pop() + held  # the unfinished last line
        for part in parts:
            number += 1
            if len(part) > MAX_LINE_BYTES:
                raise too_long(path, number)
            yield part
        if len(carry) > MAX_LINE_BYTES + 1:
            raise too_long(path, number + 1)


def too_long(path: Path, number: int) -> LogImportError:
    return LogImportError(f"{path}: line {number} is longer than {MAX_LINE_BYTES >> 20} MiB "
                          "(not a log line; is this a log file?)")
