"""The store's hash chain: every closed session and eval run is sealed by one ``audit_chain``
record holding the SHA-256 of its content and of the record before it (docs/store.md,
*Tamper evidence*; ``core.store.audit`` walks it).

A record is appended in the transaction that closes its session or run (the pipeline's last
batch, ``finish_eval_run``, the recovery that marks a dead run ``incomplete``). Appends are
serialised by the chain's head, one ``store_meta`` row (``audit_chain_head``: ``"<seq> <sha256>"``)
that each append updates before it reads it: the update takes SQLite's write lock and
PostgreSQL's row lock, held until commit, so concurrent writers queue and the chain never forks
(``prev_sha256`` is also unique).

The content of a record is canonical JSON (sorted keys, ASCII) of its stored rows as the
database hands them back: the session's row, its tool calls, checked bindings and events (an
eval run: its row and case results; an annotation: its row, sealed as it is added), every
column but the lease's, NULL columns left out (a column a later version adds does not change an
old record's hash).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, insert, select, true, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from core.errors import StoreError
from core.store.models import (
    AnnotationRow,
    AuditRecordRow,
    CaseResultRow,
    CheckedBindingRow,
    EvalRunRow,
    InvocationRow,
    SessionEventRow,
    SessionRow,
    StoreMetaRow,
    utcnow,
)

log = logging.getLogger(__name__)

GENESIS = "0" * 64  # the ``prev_sha256`` of the first record
HEAD_KEY = "audit_chain_head"
KINDS = ("session", "eval_run", "annotation")
# Rewritten while a run is alive and meaningless after: not part of what is sealed.
_LEASE_COLUMNS = frozenset({"lease_host", "lease_pid", "lease_token", "heartbeat_at"})
CHUNK = 200  # records whose content is read in one round of queries


def _table(model: Any) -> Table:
    table: Table = model.__table__
    return table


AUDIT = _table(AuditRecordRow)
META = _table(StoreMetaRow)
# kind -> (its table, [(a table of its parts, the column naming the owner)])
_PARTS: dict[str, tuple[Table, list[tuple[Table, str]]]] = {
    "session": (_table(SessionRow), [(_table(InvocationRow), "session_id"),
                                     (_table(CheckedBindingRow), "session_id"),
                                     (_table(SessionEventRow), "session_id")]),
    "eval_run": (_table(EvalRunRow), [(_table(CaseResultRow), "run_id")]),
    # An annotation is written closed (it has no status): sealed in the transaction adding it.
    "annotation": (_table(AnnotationRow), []),
}


def record_table(kind: str) -> Table:
    """The table of records of ``kind`` (``sessions``, ``eval_runs``, ``annotations``)."""
    return _PARTS[kind][0]


def closed_rows(table: Table) -> Any:
    """The condition of a table's closed rows, the ones sealed: every row of a table without a
    ``status`` (annotations are written closed), else those not ``running``."""
    return table.c.status != "running" if "status" in table.c else true()


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    return value


def _row(mapping: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _plain(value) for key, value in mapping.items()
            if value is not None and key not in _LEASE_COLUMNS}


def contents(connection: Connection, kind: str, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The content of each record of ``kind`` among ``ids`` that is stored (see the module
    docstring), by id; an id without a row is absent."""
    wanted = list(ids)
    if not wanted or kind not in _PARTS:
        return {}
    table, parts = _PARTS[kind]
    found: dict[str, dict[str, Any]] = {
        str(row["id"]): {"row": _row(dict(row))}
        for row in connection.execute(select(table).where(table.c.id.in_(wanted))).mappings()}
    for part, owner in parts:
        rows = connection.execute(select(part).where(part.c[owner].in_(list(found)))
                                  .order_by(part.c.id)).mappings()
        for row in rows:
            found[str(row[owner])].setdefault(part.name, []).append(_row(dict(row)))
    return found


def content_sha256(content: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a record's content."""
    text = json.dumps(content, sort_keys=True, ensure_ascii=True, separators=(",", ":"),
                      default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def record_sha256(seq: int, kind: str, record_id: str, content: str, prev: str) -> str:
    """SHA-256 of one record: its place, what it seals, its content's hash and its link."""
    text = json.dumps([seq, kind, record_id, content, prev], ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def parse_head(value: str | None) -> tuple[int, str] | None:
    """``(seq, sha256)`` of a stored head value, None when missing or malformed."""
    seq, _, digest = (value or "").partition(" ")
    return (int(seq), digest) if seq.isdigit() and len(digest) == 64 else None


def read_head(connection: Connection) -> tuple[int, str] | None:
    """The chain's head as stored (not locked)."""
    value = connection.execute(select(META.c.value).where(META.c.key == HEAD_KEY)).scalar()
    return parse_head(value)


def _locked_head(connection: Connection) -> tuple[int, str]:
    # A write first: it takes the write lock (SQLite) or the row lock (PostgreSQL) before the
    # read, so the head read is the newest and stays so until this transaction commits.
    connection.execute(update(META).where(META.c.key == HEAD_KEY).values(value=META.c.value))
    head = read_head(connection)
    if head is None:
        raise StoreError("the audit chain's head is missing or damaged (store_meta "
                         f"{HEAD_KEY!r}); run `superbiz audit verify`")
    return head


def lock_chain(connection: Connection) -> None:
    """Take the chain's lock in the caller's transaction (held to commit), before reading what
    a record to be sealed depends on: annotations read the one they supersede under it."""
    _locked_head(connection)


def _insert(connection: Connection, head: tuple[int, str], kind: str, record_id: str,
            content: dict[str, Any]) -> tuple[int, str]:
    seq, prev = head[0] + 1, head[1]
    digest = content_sha256(content)
    sealed = record_sha256(seq, kind, record_id, digest, prev)
    connection.execute(insert(AUDIT).values(seq=seq, kind=kind, record_id=record_id,
                                            created_at=utcnow(), content_sha256=digest,
                                            prev_sha256=prev, sha256=sealed))
    return seq, sealed


def _store_head(connection: Connection, head: tuple[int, str]) -> None:
    connection.execute(update(META).where(META.c.key == HEAD_KEY)
                       .values(value=f"{head[0]} {head[1]}"))


def seal(connection: Connection, kind: str, record_id: str) -> str:
    """Append the record sealing ``record_id`` of ``kind`` as it is stored now, in the caller's
    transaction; returns its SHA-256. A record is sealed once: sealing it again is refused."""
    head = _locked_head(connection)
    if connection.execute(select(AUDIT.c.seq).where(AUDIT.c.kind == kind)
                          .where(AUDIT.c.record_id == record_id)).first() is not None:
        raise StoreError(f"{kind} {record_id} is already sealed in the audit chain; a sealed "
                         "record is never rewritten")
    content = contents(connection, kind, [record_id]).get(record_id)
    if content is None:
        raise KeyError(record_id)
    head = _insert(connection, head, kind, record_id, content)
    _store_head(connection, head)
    return head[1]


def seal_many(connection: Connection, kind: str, record_ids: Sequence[str]) -> None:
    """``seal`` of several records of ``kind``, in this order, in the caller's transaction: the
    head locked and stored once, their contents read in one round of queries, their records
    inserted in one statement (an eval run closes its sessions 50 at a time)."""
    if not record_ids:
        return
    head = _locked_head(connection)
    already = connection.execute(select(AUDIT.c.record_id).where(AUDIT.c.kind == kind)
                                 .where(AUDIT.c.record_id.in_(list(record_ids)))).first()
    if already is not None:
        raise StoreError(f"{kind} {already[0]} is already sealed in the audit chain; a sealed "
                         "record is never rewritten")
    found = contents(connection, kind, record_ids)
    rows: list[dict[str, Any]] = []
    for record_id in record_ids:
        if record_id not in found:
            raise KeyError(record_id)
        seq, prev = head[0] + 1, head[1]
        digest = content_sha256(found[record_id])
        head = seq, record_sha256(seq, kind, record_id, digest, prev)
        rows.append({"seq": seq, "kind": kind, "record_id": record_id, "created_at": utcnow(),
                     "content_sha256": digest, "prev_sha256": prev, "sha256": head[1]})
    connection.execute(insert(AUDIT), rows)
    _store_head(connection, head)


def seal_existing(engine: Engine) -> int:
    """The migration step of stores made before the chain (``core.store.migrate``): start the
    chain and seal every closed session and eval run, oldest first. Runs once, when the head
    is missing; returns how many records it sealed."""
    with engine.begin() as connection:
        if connection.execute(select(META.c.key).where(META.c.key == HEAD_KEY)).first():
            return 0
    try:
        with engine.begin() as connection:
            last = connection.execute(select(AUDIT.c.seq, AUDIT.c.sha256)
                                      .order_by(AUDIT.c.seq.desc()).limit(1)).first()
            if last is not None:
                # The head row went (store_meta dropped by hand) but records remain: the head
                # is rebuilt from them rather than forking a second chain.
                log.warning("audit chain head missing; rebuilt from record #%d", last[0])
                connection.execute(insert(META).values(key=HEAD_KEY, value=f"{last[0]} {last[1]}"))
                return 0
            connection.execute(insert(META).values(key=HEAD_KEY, value=f"0 {GENESIS}"))
            sealed = _seal_closed(connection)
    except IntegrityError:
        return 0  # another process opening the store started the chain first
    if sealed:
        log.info("audit chain started: %d existing records sealed", sealed)
    return sealed


def _seal_closed(connection: Connection) -> int:
    closed: list[tuple[datetime, str, str]] = []
    for kind in KINDS:
        table = _PARTS[kind][0]
        closed += [(_plain_time(created), kind, str(row_id)) for row_id, created in
                   connection.execute(select(table.c.id, table.c.created_at)
                                      .where(closed_rows(table))).all()]
    closed.sort()
    head = (0, GENESIS)
    for start in range(0, len(closed), CHUNK):
        chunk = closed[start:start + CHUNK]
        found = {kind: contents(connection, kind, [row_id for _, k, row_id in chunk if k == kind])
                 for kind in KINDS}
        for _, kind, row_id in chunk:
            head = _insert(connection, head, kind, row_id, found[kind][row_id])
    _store_head(connection, head)
    return len(closed)


def _plain_time(value: Any) -> datetime:
    if not isinstance(value, datetime):
        return datetime(1970, 1, 1, tzinfo=UTC)
    return value if value.tzinfo else value.replace(tzinfo=UTC)
