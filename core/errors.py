"""The exception tree. Every error the CLI or console shows to a person is one of these.

    SuperbizError
    ├── PackError            a scenario pack is missing or malformed (names file, entry, field)
    ├── ToolError
    │   ├── UnknownToolError     no tool of that name
    │   ├── ToolArgumentError    arguments do not validate against the tool's model
    │   └── SourceError          the tool's source failed (server down, timeout, bad answer)
    │       └── NoSourceError    the world has no source for the tool's capability
    ├── SettingsError        a SUPERBIZ_* setting is malformed (names the variable)
    ├── SourcesConfigError   a sources file or source setting is malformed, or names a
    │                        runbook folder or rule file that cannot be read
    ├── DocumentError        a session document or case file cannot be read or validated
    ├── InputError           a file, document or text a user gave is refused: not a regular
    │                        file, too large, not UTF-8, nested too deep, a lone surrogate...
    ├── StoreError           the audit store cannot be opened or written
    │   └── StoredRowError       one stored row cannot be read back (reported, then skipped)
    ├── LogStoreError        a log store cannot be opened, read or written
    ├── LogImportError       a log file cannot be imported (names the file and, where known, the line)
    ├── EngineError          an agent engine failed (LLM transport, timeout, invalid output)
    └── EvalCaseError        an eval case file is malformed (names file, case, key)
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError


class SuperbizError(Exception):
    """Base of every error this package raises on purpose; its message is fit to show a user."""


class PackError(SuperbizError):
    """A scenario pack is missing or malformed."""

    def __init__(self, message: str, *, file: str | None = None, entry: str | None = None,
                 field: str | None = None) -> None:
        self.file, self.entry, self.field = file, entry, field
        where = ": ".join(part for part in (file, entry, field) if part)
        super().__init__(f"{where}: {message}" if where else message)


class ToolError(SuperbizError):
    """A tool could not be called."""


class UnknownToolError(ToolError):
    """No tool of that name exists."""


class ToolArgumentError(ToolError):
    """The arguments of a tool call do not validate."""


class SourceError(ToolError):
    """A source could not answer: the world has none for the tool's capability, or the source
    failed (a server down, a store unreadable). The recorder records it as a failed invocation;
    ``source`` and ``request`` say what was asked, when anything was (never with credentials)."""

    def __init__(self, message: str, *, source: str | None = None,
                 request: dict[str, Any] | None = None) -> None:
        self.source, self.request = source, request
        super().__init__(message)


class SettingsError(SuperbizError):
    """A ``SUPERBIZ_*`` environment variable does not validate (``core.settings``): the message
    names the variable and what is wrong with its value."""


class SourcesConfigError(SuperbizError):
    """A world's sources cannot be set up: a malformed sources file or ``SUPERBIZ_*_URL``, or
    a runbook folder or rule file it names that cannot be read. Credentials never appear in
    the message."""


class NoSourceError(SourceError):
    """The world has no source for the tool's capability (a world of Prometheus alone has no
    logs). Recorded as a failed call, but not as a source that failed: nothing was asked."""


class DocumentError(SuperbizError):
    """A session document cannot be read or does not validate."""


class InputError(SuperbizError):
    """A file, document or text a user gave is refused (see ``core.inputs``): the message
    names the source and, when known, the line."""

    def __init__(self, source: str, problem: str, *, line: int | None = None,
                 column: int | None = None) -> None:
        self.source, self.problem, self.line, self.column = source, problem, line, column
        where = source
        if line is not None:
            where += f": line {line}" + (f", column {column}" if column is not None else "")
        super().__init__(f"{where}: {problem}" if where else problem)


class StoreError(SuperbizError):
    """The audit store cannot be opened or written."""


class StoredRowError(StoreError):
    """One stored row cannot be read back (corrupt, or written by an incompatible version).
    Listings and exports report it and go on with the other rows."""


class LogStoreError(SuperbizError):
    """A log store is missing, is not a log store, or cannot be read or written."""


class LogImportError(SuperbizError):
    """A log file cannot be imported: unreadable, binary, an unknown or mixed layout, a line
    too long. Nothing of the import is kept."""


class EngineError(SuperbizError):
    """An agent engine failed: transport, timeout, rate limit or output it could not parse."""


class EvalCaseError(SuperbizError):
    """An eval case file is malformed."""


class AnnotationError(SuperbizError):
    """An annotation is refused before anything is written: an unknown session, a claim or
    binding that is not there, an unknown verdict, a blank reviewer."""


def first_error(exc: ValidationError) -> str:
    """``field.path: message`` of a validation error's first problem: the one-line form every
    user-facing error of this package uses for bad input."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])
