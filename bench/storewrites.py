"""Benchmark: what one ``ask`` writes to the audit store — transactions and bytes per session.

Runs the acceptance matrix's questions (offline rules engine, demo pack; the same twelve as ``bench/ask.py``)
against a fresh SQLite file and, where the server binaries and driver are installed, a
throwaway PostgreSQL cluster. Per ask it counts the transactions the store's engine began
(SQLAlchemy ``begin`` events; ``writing`` = those that ran an INSERT/UPDATE/DELETE) and the
statements; per session the bytes stored (every column of every row of the session, as text:
``length(CAST(.. AS BLOB))`` on SQLite, ``octet_length(.. ::text)`` on PostgreSQL), with each
table's share, and the database's growth per session. Goals (issue 14): at most 5 transactions
per ask and 40 KB per session. No assertions.

    .venv/bin/python bench/storewrites.py [--rounds 2] [--sqlite-only] [--figures PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ask import QUESTIONS  # a sibling script, by bare name like _common (bench/ is on sys.path)
from sqlalchemy import LargeBinary, Text, cast, event, func, select
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

from core.agents.registry import build_engines
from core.pipeline import ask
from core.store import Store, open_store

_WRITES = ("INSERT", "UPDATE", "DELETE")


@dataclass
class Counts:
    """Transactions and statements seen on one engine since the last ``reset``."""

    transactions: int = 0
    writing: int = 0
    statements: int = 0
    _wrote: bool = False

    def reset(self) -> None:
        """Start counting a new ask."""
        self.transactions = self.writing = self.statements = 0


def count_transactions(engine: Engine) -> Counts:
    """Attach counters to ``engine`` (SQLAlchemy events: begin, cursor execute, commit)."""
    counts = Counts()

    def on_begin(_connection: Any) -> None:
        counts.transactions += 1
        counts._wrote = False

    def on_execute(_connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        counts.statements += 1
        if statement.lstrip().upper().startswith(_WRITES):
            if not counts._wrote:
                counts.writing += 1
            counts._wrote = True

    event.listen(engine, "begin", on_begin)
    event.listen(engine, "before_cursor_execute", on_execute)
    return counts


@dataclass
class Figures:
    """What the asks on one backend wrote."""

    transactions: list[int] = field(default_factory=list)
    writing: list[int] = field(default_factory=list)
    statements: list[int] = field(default_factory=list)
    session_bytes: list[int] = field(default_factory=list)
    by_table: Counter[str] = field(default_factory=Counter)


def _text_bytes(engine: Engine, column: Any) -> Any:
    if engine.dialect.name == "sqlite":
        return func.length(cast(cast(column, Text), LargeBinary))
    return func.octet_length(cast(column, Text))


def session_bytes(store: Store, session_id: str) -> dict[str, int]:
    """Bytes of every row of the session, per table, every column counted as its text."""
    sizes: dict[str, int] = {}
    with store.engine.connect() as connection:
        for table in SQLModel.metadata.sorted_tables:
            key = table.c.get("session_id")
            if table.name == "sessions":
                key = table.c.id
            if key is None:
                continue
            total = sum((func.coalesce(_text_bytes(store.engine, column), 0)
                         for column in table.columns), start=func.coalesce(None, 0))
            value = connection.execute(select(func.coalesce(func.sum(total), 0))
                                       .where(key == session_id)).scalar()
            sizes[table.name] = int(value or 0)
    return sizes


def database_bytes(store: Store) -> int:
    """Size of the database on disk (SQLite pages in use; PostgreSQL ``pg_database_size``)."""
    with store.engine.connect() as connection:
        if store.engine.dialect.name == "sqlite":
            pages = connection.exec_driver_sql("PRAGMA page_count").scalar() or 0
            free = connection.exec_driver_sql("PRAGMA freelist_count").scalar() or 0
            size = connection.exec_driver_sql("PRAGMA page_size").scalar() or 0
            return int((pages - free) * size)
        return int(connection.exec_driver_sql(
            "SELECT pg_database_size(current_database())").scalar() or 0)


def measure(store: Store, rounds: int) -> tuple[Figures, float]:
    """Ask every question ``rounds`` times; figures per ask, and disk growth per session."""
    engines = build_engines("rules")
    ask(QUESTIONS[0], engines=engines, store=None)  # warm-up outside the store: pack, indexes
    counts = count_transactions(store.engine)
    figures = Figures()
    ask(QUESTIONS[0], engines=engines, store=store)  # first write: tables' pages, caches
    disk_before = database_bytes(store)
    asks = 0
    for _ in range(rounds):
        for question in QUESTIONS:
            counts.reset()
            document = ask(question, engines=engines, store=store)
            if document.status != "completed":
                raise SystemExit(f"ask failed on {question!r}: {document.error}")
            figures.transactions.append(counts.transactions)
            figures.writing.append(counts.writing)
            figures.statements.append(counts.statements)
            sizes = session_bytes(store, document.session_id)
            figures.session_bytes.append(sum(sizes.values()))
            figures.by_table.update(sizes)
            asks += 1
    return figures, (database_bytes(store) - disk_before) / asks


def report(label: str, figures: Figures, disk_per_session: float) -> dict[str, float]:
    """Print one backend's figures; return them for ``--figures`` (``storewrites.LABEL.*``)."""
    def spread(values: list[int]) -> str:
        return f"median {statistics.median(values):g}, max {max(values)}"

    total = sum(figures.by_table.values()) or 1
    print(f"{label}: {len(figures.transactions)} asks")
    print(f"  transactions per ask   {spread(figures.transactions)}"
          f"   (writing: {spread(figures.writing)}; statements: {spread(figures.statements)})")
    kilobytes = [size / 1024 for size in figures.session_bytes]
    print(f"  KB stored per session  median {statistics.median(kilobytes):.1f}, "
          f"max {max(kilobytes):.1f}   (database growth {disk_per_session / 1024:.1f} KB/session)")
    shares = ", ".join(f"{name} {share / total:.0%}"
                       for name, share in figures.by_table.most_common() if share)
    print(f"  by table               {shares}")
    key = f"storewrites.{label.lower()}"
    return {f"{key}.asks": float(len(figures.transactions)),
            f"{key}.transactions_median": float(statistics.median(figures.transactions)),
            f"{key}.transactions_max": float(max(figures.transactions)),
            f"{key}.session_kb_median": statistics.median(kilobytes),
            f"{key}.session_kb_max": max(kilobytes)}


def main() -> None:
    """Measure SQLite, then PostgreSQL when it can run here."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="passes over the questions")
    parser.add_argument("--sqlite-only", action="store_true", help="skip PostgreSQL")
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row)")
    args = parser.parse_args()
    kept: dict[str, float] = {}
    print(f"store writes per ask: {len(QUESTIONS)} seed questions x {args.rounds} rounds "
          "(goals: <= 5 transactions, <= 40 KB per session)")
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(str(Path(folder) / "bench.db"))
        kept.update(report("SQLite", *measure(store, args.rounds)))
        store.engine.dispose()
    if not args.sqlite_only:
        kept.update(_postgres(args.rounds))
    if args.figures is not None:
        from _common import write_figures

        write_figures(args.figures, kept)


def _postgres(rounds: int) -> dict[str, float]:
    """PostgreSQL's figures, when a server can run here (none otherwise)."""
    from core.store.testing import PostgresUnavailable, temp_postgres

    try:
        with temp_postgres() as server:
            store = open_store(server.new_database())
            figures = report("PostgreSQL", *measure(store, rounds))
            store.engine.dispose()
            return figures
    except PostgresUnavailable as exc:
        print(f"PostgreSQL: skipped ({exc})")
        return {}


if __name__ == "__main__":
    main()
