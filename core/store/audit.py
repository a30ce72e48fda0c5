"""Walking the store's hash chain (``core.store.chain``): is every sealed record as it was
sealed, in its place, linked to the one before, and is every closed record sealed?

``verify_chain`` reports problems in chain order, the first one first: a record whose sealed
content was changed or deleted, a record missing from the sequence (deleted), a record in
another place (reordered), a link that no longer matches, a record whose own fields were
edited, a head that does not match the last record (records removed from the end), closed
sessions or runs that are not in the chain, and a pinned head (``--head``) the chain does not
hold. What it cannot see: a writer who rewrites the whole chain consistently -- pin the head
(keep ``head`` somewhere the store's writers cannot reach) and pass it back as ``pinned_head``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import Row, func, select
from sqlalchemy.engine import Connection

from core.store.chain import (
    AUDIT,
    CHUNK,
    GENESIS,
    KINDS,
    closed_rows,
    content_sha256,
    contents,
    read_head,
    record_sha256,
    record_table,
)
from core.store.db import Store

MAX_PROBLEMS = 100  # reported at most (the first is what matters; the count says how bad)
_NAMES = {"session": "session", "eval_run": "eval run", "annotation": "annotation"}


@dataclass
class ChainProblem:
    """One thing wrong with the chain. ``kind``: content | deleted | missing | order | link |
    record | head | unsealed | pinned."""

    kind: str
    message: str
    seq: int | None = None
    record_kind: str | None = None
    record_id: str | None = None


@dataclass
class ChainReport:
    """What a walk of the chain found."""

    records: int = 0  # records in the chain
    checked: int = 0  # records this walk checked (all, or the newest ``last``)
    head_seq: int = 0
    head: str = GENESIS  # the last record's SHA-256: what to pin
    running: int = 0  # sessions and runs still open: sealed when they close
    pinned_seq: int | None = None  # where the pinned head was found
    problems: list[ChainProblem] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        """No problem found."""
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        """The report as plain JSON values (``audit verify --json``)."""
        return {"intact": self.intact, "records": self.records, "checked": self.checked,
                "head_seq": self.head_seq, "head": self.head, "running": self.running,
                "pinned_seq": self.pinned_seq,
                "first_problem": asdict(self.problems[0]) if self.problems else None,
                "problems": [asdict(problem) for problem in self.problems]}


def verify_chain(store: Store, *, pinned_head: str | None = None,
                 last: int | None = None) -> ChainReport:
    """Walk the chain (all of it, or only its newest ``last`` records: the console's quick
    look) and report what is wrong; ``pinned_head`` is a SHA-256 (or a prefix of at least 12
    hex digits) the chain must hold."""
    report = ChainReport()
    with store.begin() as connection:
        count, top = connection.execute(select(func.count(), func.max(AUDIT.c.seq))).one()
        report.records, top = int(count), int(top or 0)
        start = max(1, top - last + 1) if last is not None else 1
        # Where each record's hash sits (from the one before ``start``): a link naming another
        # record than the one before it means reordered rows.
        pairs = connection.execute(select(AUDIT.c.seq, AUDIT.c.sha256)
                                   .where(AUDIT.c.seq >= start - 1)).all()
        index = {str(sha): int(seq) for seq, sha in pairs}
        by_seq = {int(seq): str(sha) for seq, sha in pairs}
        prev = by_seq.get(start - 1, GENESIS) if start > 1 else GENESIS
        expected, after = start, start - 1
        while True:
            rows = connection.execute(select(AUDIT).where(AUDIT.c.seq > after)
                                      .order_by(AUDIT.c.seq).limit(CHUNK)).all()
            if not rows:
                break
            found = {kind: contents(connection, kind, [str(row.record_id) for row in rows
                                                       if row.kind == kind]) for kind in KINDS}
            for row in rows:
                _check(report, row, expected, prev, index, found)
                expected, prev = int(row.seq) + 1, str(row.sha256)
                report.checked += 1
            after = int(rows[-1].seq)
        if top:
            report.head_seq, report.head = top, by_seq[top]
        _check_head(report, connection)
        _check_unsealed(report, connection)
        if pinned_head is not None:
            _check_pinned(report, pinned_head.strip().lower(), connection)
    return report


def _add(report: ChainReport, problem: ChainProblem) -> None:
    if len(report.problems) < MAX_PROBLEMS:
        report.problems.append(problem)


def _check(report: ChainReport, row: Row[Any], expected: int, prev: str,
           index: dict[str, int], found: dict[str, dict[str, dict[str, Any]]]) -> None:
    seq, kind, record_id = int(row.seq), str(row.kind), str(row.record_id)
    name = f"{_NAMES.get(kind, kind)} {record_id}"
    where = (seq, kind, record_id)
    if seq > expected:
        _add(report, ChainProblem("missing", f"record #{expected} is missing (deleted): the "
                                             f"chain goes from #{expected - 1} to #{seq}",
                                  seq=expected))
    elif row.prev_sha256 != prev:
        linked = index.get(str(row.prev_sha256))
        if linked is not None:
            _add(report, ChainProblem("order", f"record #{seq} ({name}) follows record "
                                               f"#{linked}, not #{seq - 1}: records were "
                                               "reordered", *where))
        else:
            _add(report, ChainProblem("link", f"record #{seq} ({name}) no longer links to "
                                              f"record #{seq - 1}: its link was changed",
                                      *where))
    if record_sha256(seq, kind, record_id, str(row.content_sha256), str(row.prev_sha256)) \
            != row.sha256:
        _add(report, ChainProblem("record", f"record #{seq} ({name}) was edited: it no longer "
                                            "hashes to its own SHA-256", *where))
    content = found.get(kind, {}).get(record_id)
    if content is None:
        _add(report, ChainProblem("deleted", f"{name} (record #{seq}) is gone: deleted after "
                                             "it was sealed", *where))
    elif content_sha256(content) != row.content_sha256:
        _add(report, ChainProblem("content", f"{name} (record #{seq}) was changed after it was "
                                             "sealed: its stored rows no longer hash to the "
                                             "sealed content", *where))


def _check_head(report: ChainReport, connection: Connection) -> None:
    head = read_head(connection)
    if head is None:
        _add(report, ChainProblem("head", "the chain's head (store_meta audit_chain_head) is "
                                          "missing or damaged"))
    elif head != (report.head_seq, report.head):
        _add(report, ChainProblem("head", f"the chain ends at record #{report.head_seq} but "
                                          f"its head names #{head[0]} ({head[1][:12]}): "
                                          "records were removed from its end, or the head "
                                          "was edited", seq=head[0]))


def _check_unsealed(report: ChainReport, connection: Connection) -> None:
    for kind in KINDS:
        table = record_table(kind)
        sealed = select(AUDIT.c.record_id).where(AUDIT.c.kind == kind)
        if "status" in table.c:
            report.running += len(connection.execute(
                select(table.c.id).where(table.c.status == "running")).all())
        for (record_id,) in connection.execute(
                select(table.c.id).where(closed_rows(table))
                .where(table.c.id.not_in(sealed)).order_by(table.c.id).limit(MAX_PROBLEMS)):
            _add(report, ChainProblem("unsealed", f"{_NAMES[kind]} {record_id} is closed but "
                                                  "not in the chain: added, or reopened and "
                                                  "closed, outside superbiz",
                                      record_kind=kind, record_id=str(record_id)))


def _check_pinned(report: ChainReport, pinned: str, connection: Connection) -> None:
    matches = connection.execute(select(AUDIT.c.seq).where(AUDIT.c.sha256.startswith(pinned))
                                 .limit(2)).all() \
        if len(pinned) >= 12 and all(c in "0123456789abcdef" for c in pinned) else []
    if len(matches) == 1:
        report.pinned_seq = int(matches[0][0])
    else:
        _add(report, ChainProblem("pinned", f"the pinned head {pinned[:64]} is not in the "
                                            "chain: the chain was rewritten or cut short since "
                                            "it was pinned"))
