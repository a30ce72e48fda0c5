"""What a pack folder holds: its file names, the size limits of its files, the models of what
they hold (``pack.yaml``, runbooks) and of a problem found in them, and the helpers every reader
shares (a YAML file read within the pack, pydantic errors as located problems).

Private to ``core.packs``, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.contracts import empty_list
from core.errors import InputError, PackError
from core.inputs.files import MiB, read_text
from core.inputs.yamldoc import parse_yaml

PACK_FILE, ALERTS_FILE, SERIES_FILE = "pack.yaml", "alerts.yaml", "series.yaml"
LOGS_JSONL, LOGS_YAML, RUNBOOKS_DIR = "logs.jsonl", "logs.yaml", "runbooks"
RULES_DIR = "rules"

MAX_PROBLEMS_PER_FILE = 20  # a million-line file with one systematic mistake is one message


# Size limits of pack files (a pack is data a person wrote or generated; these are far above
# any real pack and far below what would exhaust memory).
MAX_YAML_BYTES = 64 * MiB
MAX_LOG_FILE_BYTES = 1024 * MiB
MAX_LOG_LINE_BYTES = 1 * MiB
MAX_RUNBOOK_BYTES = 4 * MiB
MAX_RUNBOOKS = 5000


class RunbookSection(BaseModel):
    """One section of a runbook: its heading and the text under it."""

    title: str
    content: str


class Runbook(BaseModel):
    """A runbook: what to look for. Never evidence of the current state."""

    title: str
    source: str  # path relative to the pack, e.g. runbooks/high-cpu.md
    sections: list[RunbookSection] = Field(default_factory=empty_list)


class PackLogs(BaseModel):
    """``logs:`` in ``pack.yaml``: where the pack's logs are, when not in logs.jsonl/logs.yaml."""

    model_config = ConfigDict(extra="forbid")

    store: str = Field(..., min_length=1, description="A log store file, relative to the pack folder.")


class PackMeta(BaseModel):
    """The content of ``pack.yaml``. Every key is optional: a pack folder holding only
    ``logs: {store: PATH}`` is a world of its logs."""

    name: str | None = None  # default: the folder's name
    description: str = ""
    now: datetime | None = None  # default: the newest moment in the pack's data (``service_clocks``)
    example_questions: list[str] = Field(default_factory=empty_list)
    logs: PackLogs | None = None


@dataclass(frozen=True)
class PackProblem:
    """One thing wrong with a pack, located as precisely as the file allows."""

    file: str
    message: str
    entry: str | None = None
    field: str | None = None

    def to_error(self) -> PackError:
        """The problem as the exception ``load_pack`` raises."""
        return PackError(self.message, file=self.file, entry=self.entry, field=self.field)

    def __str__(self) -> str:
        return str(self.to_error())


def input_problem(file: str, error: InputError) -> PackProblem:
    """A refused file as a pack problem: the file, the line when known, the reason."""
    where = f"line {error.line}" if error.line is not None else None
    return PackProblem(file, error.problem, where)


def field_problems(file: str, error: ValidationError, entry_of: Any) -> list[PackProblem]:
    """One problem per pydantic error: ``entry_of(loc)`` splits a location into (entry, field)."""
    problems = []
    items = error.errors()
    for item in items[:MAX_PROBLEMS_PER_FILE]:
        entry, field = entry_of(tuple(item["loc"]))
        problems.append(PackProblem(file, item["msg"], entry, field))
    if len(items) > MAX_PROBLEMS_PER_FILE:
        problems.append(PackProblem(file, f"... and {len(items) - MAX_PROBLEMS_PER_FILE} more"))
    return problems


def dotted(loc: tuple[Any, ...]) -> str | None:
    """A pydantic error location as a dotted field name (``labels.severity``), or None."""
    return ".".join(str(part) for part in loc) or None


def read_yaml(root: Path, name: str, expected: type, *, required: bool = True) -> tuple[Any, list[PackProblem]]:
    """Parse a YAML file of the pack; an empty file, or a missing one that is not ``required``,
    is an empty ``expected``."""
    path = root / name
    if not present(path):
        return (None, [PackProblem(name, "required file is missing")]) if required else (expected(), [])
    try:
        data = parse_yaml(read_text(path, source=name, max_bytes=MAX_YAML_BYTES, within=root),
                          source=name)
    except InputError as error:
        return None, [input_problem(name, error)]
    if data is None:
        return expected(), []
    if not isinstance(data, expected):
        kind = "a list" if expected is list else "a mapping"
        return None, [PackProblem(name, f"must be {kind}, found {type(data).__name__}")]
    return data, []


def present(path: Path) -> bool:
    """Whether the pack has an entry of that name (a link or a special file counts: reading
    it then says what is wrong, instead of calling it missing)."""
    return path.exists() or path.is_symlink()
