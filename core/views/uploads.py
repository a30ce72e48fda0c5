"""The Data page's "Add log files": uploaded files into a pack of their own (``core.userpacks``),
the same import as ``superbiz logs add``, with its progress as a fraction for a progress bar."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import SuperbizError

# (fraction done from 0 to 1, what is being done): called as the import reads its lines.
ProgressCallback = Callable[[float, str], object]


@dataclass(frozen=True)
class UploadOutcome:
    """What an upload gave: the pack the files went into (None when refused), a sentence saying
    so (or why not), and a line per file (layout, entries, unparsed lines)."""

    pack: str | None
    message: str
    files: list[str] = field(default_factory=list)


def add_uploads(files: list[tuple[str, bytes]], pack: str, progress: ProgressCallback) -> UploadOutcome:
    """Import uploaded ``files`` (name, content) into the pack ``pack``, made when missing."""
    from core.userpacks import add_logs

    if not files:
        return UploadOutcome(None, "Choose one or more log files first.")
    name = pack.strip()
    lines = [data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0) for _, data in files]
    total = max(sum(lines), 1)
    with tempfile.TemporaryDirectory(prefix="superbiz-upload-") as folder:
        paths: list[Path] = []
        for number, (filename, data) in enumerate(files):
            # Each file in a folder of its own: its own name (the service by default), never
            # another upload's, never a path.
            path = Path(folder) / str(number) / _file_name(filename)
            path.parent.mkdir()
            path.write_bytes(data)
            paths.append(path)
        before = {str(path): sum(lines[:index]) for index, path in enumerate(paths)}

        def on_lines(path: str, read: int, entries: int) -> None:
            done = before.get(path, 0) + read
            progress(min(done / total, 1.0), f"{Path(path).name}: {read:,} lines read, {entries:,} entries")

        progress(0.0, f"Importing {len(files)} file(s), {sum(lines):,} lines")
        try:
            added = add_logs(paths, name, progress=on_lines)
        except SuperbizError as error:
            return UploadOutcome(None, str(error).replace(folder, "(upload)"))
    progress(1.0, "Done")
    report = added.report
    verb = "made" if added.created else "added to"
    details = [f"{Path(item.path).name}: {item.layout}, {item.entries:,} entries, "
               f"{item.unparsed:,} unparsed lines" for item in report.files]
    return UploadOutcome(added.pack, f"{report.entries:,} log entries {verb} pack {added.pack}; "
                         f"ask it on Investigate or with superbiz ask ... --pack {added.pack}.", details)


def _file_name(uploaded: str) -> str:
    name = Path(uploaded.replace("\\", "/")).name.strip()
    return name if name and not name.startswith(".") else "upload.log"
