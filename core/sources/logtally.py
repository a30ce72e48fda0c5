"""Word counts by group, kept by the log store at import, so that a word found in a quarter of a
million lines is counted from a few hundred rows instead of line by line.

A word matches a line when it is a substring of one of the line's letter runs (``logtext``: the
store's vocabulary terms). So whether a line holds a word depends only on the *set* of its
letter runs, and lines repeat a few such sets (a template's words, a logger's name, a level):
the writer (``RunTally``) gives each distinct set an id (``run_sets``, its terms in
``run_terms``) and counts, for each group (template, service, level) and run set, its lines and
their first and last instant (``group_runs``); and for each group its lines and instants
(``group_spans``). Counts add up, so an append adds to them.

A query of words is then a condition on run sets: the sets holding a term of each word.
Summing those sets' rows per group gives every group's count, first and last instant exactly
-- the same lines FTS5 would find, without reading one
(``logsql.QueryPlan.tally_sql``).

Only ASCII lines are tallied: their letter runs (``[a-z]+``, the text being lower case) are
exactly the terms FTS5's ``unicode61`` makes of them (``tests/test_logtally.py`` holds the two
together). Other lines, and the lines of a run set past ``MAX_RUN_SETS`` (letters that vary
from line to line, as random words would: the tallies must not grow with the lines), are
``untallied``: a query counts the groups holding any of them line by line, as does every group of
a store written before schema 4.
"""

from __future__ import annotations

import re
import sqlite3

_LETTER_RUNS = re.compile(r"[a-z]+")
# Runs of hex letters only (``fe``, ``b``, ``cc`` of ``b9000564-fe1a-...-b8cc``) are left out of
# run sets: ids would make nearly every line's set its own. A word holding another letter can
# never lie inside such a run, so it is still counted exactly (``countable``); a word of hex
# letters only (``bad``, ``feed``) is counted line by line.
_HEX_LETTERS = re.compile(r"[a-f]+")
# Letter runs do not change when digits become zeros (``logtext.digits_zeroed``); texts that
# differ by their numbers (ids, counts, times: most of a log) then share one cache entry.
_MAX_CACHE = 20_000  # distinct digit-zeroed texts remembered (a few MB); cleared when full
MAX_RUN_SETS = 10_000  # a store's run sets (structured logs need hundreds); later sets' lines are untallied

_UPSERT_RUNS = (
    "INSERT INTO group_runs (run_set, group_id, lines, first_us, last_us) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (run_set, group_id) DO UPDATE SET lines = lines + excluded.lines, "
    "first_us = min(first_us, excluded.first_us), last_us = max(last_us, excluded.last_us)")
_UPSERT_GROUPS = (
    "INSERT INTO group_spans (group_id, service_key, level_rank, lines, first_us, last_us, untallied) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (group_id) DO UPDATE SET lines = lines + excluded.lines, "
    "first_us = min(first_us, excluded.first_us), last_us = max(last_us, excluded.last_us), "
    "untallied = untallied + excluded.untallied")


def _widen(span: list[int], ts_us: int) -> None:
    span[0] += 1
    if ts_us < span[1]:
        span[1] = ts_us
    elif ts_us > span[2]:
        span[2] = ts_us


def countable(word: str) -> bool:
    """Whether the tallies count a word: it holds a letter that is not a hex digit."""
    return _HEX_LETTERS.fullmatch(word) is None


class RunTally:
    """A writer's tallies (``add`` each line; ``write`` adds a batch's to the store's). Memory:
    one batch's counts, and caches bounded by ``_MAX_CACHE`` and ``MAX_RUN_SETS``."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection
        self._sets = connection.execute("SELECT coalesce(max(id), 0) FROM run_sets").fetchone()[0]
        self._by_text: dict[str, int | None] = {}  # digit-zeroed text -> its run set (None: untallied)
        self._by_runs: dict[str, int] = {}  # a run set's text -> id, as looked up or created here
        self._new_sets: list[tuple[int, str]] = []
        self._counts: dict[tuple[int, int], list[int]] = {}  # (run set, group) -> [lines, first, last]
        self._groups: dict[int, list[int]] = {}  # group -> [lines, first, last, untallied]
        self._group_keys: dict[int, tuple[str, int | None]] = {}  # group -> (service key, level rank)

    def add(self, group_id: int, service_key: str, rank: int | None, ts_us: int, zeroed: str | None) -> None:
        """One line of ``group_id`` at ``ts_us``; ``zeroed``: its search text's
        ``digits_zeroed``, None when not ASCII (untallied)."""
        group = self._groups.get(group_id)
        if group is None:
            self._groups[group_id] = group = [0, ts_us, ts_us, 0]
            self._group_keys[group_id] = (service_key, rank)
        _widen(group, ts_us)
        run_set = None if zeroed is None else self._run_set(zeroed)
        if run_set is None:
            group[3] += 1
            return
        counts = self._counts.get((run_set, group_id))
        if counts is None:
            self._counts[(run_set, group_id)] = [1, ts_us, ts_us]
        else:
            _widen(counts, ts_us)

    def _run_set(self, zeroed: str) -> int | None:
        if zeroed in self._by_text:
            return self._by_text[zeroed]
        if len(self._by_text) >= _MAX_CACHE:
            self._by_text = {}
        runs = " ".join(sorted({run for run in _LETTER_RUNS.findall(zeroed) if not _HEX_LETTERS.fullmatch(run)}))
        run_set = self._by_runs.get(runs)
        if run_set is None:
            row = self._connection.execute("SELECT id FROM run_sets WHERE runs = ?", (runs,)).fetchone()
            if row is not None:
                run_set = self._by_runs[runs] = row[0]
            elif self._sets < MAX_RUN_SETS:
                self._sets += 1
                run_set = self._by_runs[runs] = self._sets
                self._new_sets.append((run_set, runs))
        self._by_text[zeroed] = run_set
        return run_set

    def write(self) -> None:
        """Add this batch's tallies to the store's, and start the next batch."""
        run = self._connection.executemany
        run("INSERT INTO run_sets (id, runs) VALUES (?, ?)", self._new_sets)
        run("INSERT INTO run_terms (term, run_set) VALUES (?, ?)",
            [(term, run_set) for run_set, runs in self._new_sets for term in runs.split()])
        run(_UPSERT_RUNS, [(*key, *counts) for key, counts in sorted(self._counts.items())])
        run(_UPSERT_GROUPS, [(group_id, *self._group_keys[group_id], *group)
                             for group_id, group in sorted(self._groups.items())])
        self._new_sets, self._counts, self._groups, self._group_keys = [], {}, {}, {}
