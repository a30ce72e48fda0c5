"""Values a database refuses, and the PostgreSQL driver (psycopg 3: ``pip install
superbiz[postgres]``).

What the databases cannot hold, and what the store does instead (lossless both ways):

- NUL (``\\x00``) and lone surrogates (``\\ud800``) in ``text``/``varchar`` columns: PostgreSQL
  text cannot contain NUL, and a lone surrogate cannot be encoded as UTF-8 (neither database
  takes one). Text values are escaped on the way in and back on the way out (PostgreSQL: in
  psycopg's adapters; SQLite: statement parameters and the connection's text factory), with
  U+FFFF (a Unicode noncharacter) as the escape character: NUL is stored as ``U+FFFF "0"``, a surrogate as
  ``U+FFFF "s" + 4 hex digits``, U+FFFF itself as ``U+FFFF U+FFFF``. Every other string is
  stored as it is (filters see the same escapes, so they still match).
- In JSON columns NUL and surrogates are JSON escapes (``\\u0000``), which the ``json`` type
  keeps. NaN and infinities are not JSON: every dialect stores them as the strings ``"NaN"``,
  ``"Infinity"``, ``"-Infinity"``, which the contracts' float fields read back as numbers.
- An invocation id cited by a model that does not fit an INTEGER column is stored in the
  checked binding's ``detail`` only (see ``core.store.sessions.binding_rows``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from sqlalchemy import event, make_url
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError

_ESCAPE = "\uffff"
_NEEDS_ESCAPE = re.compile("[\x00\uffff\ud800-\udfff]")
_ESCAPED = re.compile("\uffff(\uffff|0|s[0-9a-f]{4})")


def escape_text(value: str) -> str:
    """``value`` with NUL, lone surrogates and U+FFFF escaped (see the module docstring)."""
    if not _NEEDS_ESCAPE.search(value):
        return value

    def one(match: re.Match[str]) -> str:
        char = match.group()
        if char == "\x00":
            return _ESCAPE + "0"
        if char == _ESCAPE:
            return _ESCAPE * 2
        return f"{_ESCAPE}s{ord(char):04x}"

    return _NEEDS_ESCAPE.sub(one, value)


def unescape_text(value: str) -> str:
    """The inverse of ``escape_text``."""
    if _ESCAPE not in value:
        return value

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code == _ESCAPE:
            return _ESCAPE
        if code == "0":
            return "\x00"
        return chr(int(code[1:], 16))

    return _ESCAPED.sub(one, value)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def json_dumps(value: Any) -> str:
    """JSON for every JSON column: standard JSON only (NaN and infinities as strings)."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(value), allow_nan=False)


def default_postgres_driver(url: str) -> str:
    """``postgresql://`` without a driver means psycopg 3 (the ``postgres`` extra), not
    SQLAlchemy's default psycopg2."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return url
    if parsed.drivername in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    return url


def configure_text_escape(engine: Engine) -> None:
    """Escape text the database refuses (module docstring) on a psycopg or SQLite engine."""
    if engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg":
        event.listen(engine, "connect", _register_text_escape)
    elif engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_text_factory)
        event.listen(engine, "before_cursor_execute", _escape_sqlite_parameters, retval=True)


def _sqlite_text_factory(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.text_factory = _decode_text


def _decode_text(data: bytes) -> str:
    text = data.decode("utf-8", errors="surrogateescape")
    return unescape_text(text) if _ESCAPE in text else text


def _escape_parameter(value: Any) -> Any:
    return escape_text(value) if isinstance(value, str) else value


def _escape_sqlite_parameters(_connection: Any, _cursor: Any, statement: str, parameters: Any,
                              _context: Any, executemany: bool) -> tuple[str, Any]:
    if executemany:
        return statement, [_escape_row(row) for row in parameters]
    return statement, _escape_row(parameters)


def _escape_row(row: Any) -> Any:
    if isinstance(row, dict):
        return {key: _escape_parameter(value) for key, value in row.items()}
    if isinstance(row, list | tuple):
        return type(row)(_escape_parameter(value) for value in row)
    return row


def _register_text_escape(dbapi_connection: Any, _record: Any) -> None:
    from psycopg.types import string

    adapters = dbapi_connection.adapters
    for base in (string.StrBinaryDumperVarchar, string.StrBinaryDumper, string.StrDumperVarchar,
                 string.StrDumper, string.StrDumperUnknown):
        adapters.register_dumper(str, _escaping_dumper(base))
    for name in ("text", "varchar", "bpchar"):
        adapters.register_loader(name, _unescaping_loader(string.TextLoader))
        adapters.register_loader(name, _unescaping_loader(string.TextBinaryLoader))


def _escaping_dumper(base: Any) -> type:
    def dump(self: Any, obj: str) -> Any:
        return base.dump(self, escape_text(obj))

    return type(f"Escaping{base.__name__}", (base,), {"dump": dump})


def _unescaping_loader(base: Any) -> type:
    def load(self: Any, data: Any) -> str:
        return unescape_text(str(base.load(self, data)))

    return type(f"Unescaping{base.__name__}", (base,), {"load": load})
