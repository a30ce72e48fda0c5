"""The readings corpus (readings.yaml): every question that ever needed a fix, read by the rules
planner against its world, must still be read as its row says. A change that alters a reading
updates that row on purpose, in the same commit."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.agents.rules.planner import RulesPlanner
from core.cli import main
from core.contracts import Exclusions, Plan
from core.sources.base import World
from core.sources.pack import load_world
from evals.loghub.packs import DATASETS, DEFAULT_CORPORA, PERTURBATIONS, build_packs
from tests.hand_sources import NGINX_LOG, SSHD_LOG, imported_payments_pack

# A reading's fields and their defaults: a row's ``expect`` states only the fields that differ.
READING_DEFAULTS: dict[str, Any] = {
    "services": [], "alert_names": [], "topics": [], "concepts": [], "compounds": [], "terms": [],
    "keywords": [], "level": None, "alert_states": [], "unknown_subjects": [], "searchable": True,
    "since": None, "until": None, "exclusions": {}, "narrow": False, "entities": [],
}


def reading_of(plan: Plan) -> dict[str, Any]:
    """What the planner read from the question, in a row's shape: the fields that differ from
    their default (``exclusions`` holds only its non-empty parts)."""
    # The plan decides the subjects (services, alerts, topics), the scope and the exclusions;
    # the rest is what the question's words say (plan.reading).
    decided = {"services", "alert_names", "topics", "narrow"}
    reading = {name: getattr(plan if name in decided else plan.reading, name)
               for name in READING_DEFAULTS if name not in ("exclusions", "entities")}
    reading["exclusions"] = {part: items for part, items in plan.exclusions.model_dump().items() if items}
    # Each entity as {name, kind}, with ``known: false`` when the data lacks it.
    reading["entities"] = [entity.model_dump(exclude_defaults=True) for entity in plan.reading.entities]
    return {name: value for name, value in reading.items() if value != READING_DEFAULTS[name]}


CORPUS = Path(__file__).with_name("readings.yaml")
LOGHUB_WORLDS = {*DATASETS, *PERTURBATIONS}
# The recordings world: hadoop and spark logs ending on different days (as test_time_window
# imports them).
HADOOP_LOG = ("2015-10-18 18:06:01,840 ERROR [RMCommunicator] Rm: ERROR IN CONTACTING RM.\n"
              "2015-10-18 18:20:00,000 INFO [main] Rm: shutting down\n")
SPARK_LOG = ("17/06/09 20:10:40 INFO executor.Backend: Registered signal handlers\n"
             "17/06/09 20:11:11 ERROR executor.Backend: lost executor 3\n")

# Logs written here and imported as a user imports them, a world's files and their lines (each
# file's name is its service): the auth/access logs, and two recordings ending on different days.
IMPORTED_LOGS = {"sshd": {"sshd": SSHD_LOG}, "nginx": {"nginx": NGINX_LOG},
                 "recordings": {"hadoop": HADOOP_LOG, "spark": SPARK_LOG}}
WORLDS = {"demo", "payments", *IMPORTED_LOGS, *LOGHUB_WORLDS}
ROW_KEYS = {"question", "world", "source", "expect"}
# When the imported logs were written: a syslog line has no year and is read in its file's year,
# so a fixed one keeps the world's clock (and the windows read on it) the same in any year.
WRITTEN = datetime(2024, 3, 2, tzinfo=UTC).timestamp()


def _imported_pack(folder: Path, logs: dict[str, str]) -> Path:
    """Each ``service.log`` through ``superbiz logs import`` into one pack's store."""
    folder.mkdir(parents=True)
    files = []
    for service, text in logs.items():
        files.append(folder / f"{service}.log")
        files[-1].write_text(text, encoding="utf-8")
        os.utime(files[-1], (WRITTEN, WRITTEN))
    pack = folder / "pack"
    pack.mkdir()
    assert main(["logs", "import", *map(str, files), "--store", str(pack / "logs.db")]) == 0
    (pack / "pack.yaml").write_text("logs:\n  store: logs.db\n", encoding="utf-8")
    return pack


@dataclass
class Worlds:
    """Each world a row names, built once on first use under ``folder``; the loghub packs are
    built from ``corpora`` (None: absent, their rows are skipped)."""

    folder: Path
    corpora: Path | None
    built: dict[str, World] = field(default_factory=dict)

    def __getitem__(self, name: str) -> World:
        if name not in self.built:
            self.built.update(self._build(name))
        return self.built[name]

    def _build(self, name: str) -> dict[str, World]:
        if name in LOGHUB_WORLDS:
            if self.corpora is None:
                pytest.skip(f"the loghub samples are not at {DEFAULT_CORPORA}/loghub")
            packs = build_packs(self.folder / "loghub", self.corpora)
            return {pack: load_world(str(built.path)) for pack, built in packs.items()}
        if name in IMPORTED_LOGS:
            return {name: load_world(str(_imported_pack(self.folder / name, IMPORTED_LOGS[name])))}
        if name == "payments":
            (self.folder / name).mkdir()
            return {name: load_world(str(imported_payments_pack(self.folder / name)))}
        return {name: load_world(name)}


def load_rows() -> list[dict[str, Any]]:
    rows = yaml.load(CORPUS.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    assert isinstance(rows, list)
    return rows


ROWS = load_rows()


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Worlds:
    corpora = DEFAULT_CORPORA if (DEFAULT_CORPORA / "loghub").is_dir() else None
    return Worlds(tmp_path_factory.mktemp("readings-worlds"), corpora)


@pytest.mark.parametrize("row", ROWS, ids=[f"{n:03d}-{row['world']}" for n, row in enumerate(ROWS)])
def test_each_question_is_read_as_its_row_says(row: dict[str, Any], worlds: Worlds) -> None:
    question, expect = row["question"], row.get("expect") or {}
    got = reading_of(RulesPlanner().plan(question, worlds[row["world"]]))
    wrong = [f"  {name}: expected {expect.get(name, READING_DEFAULTS[name])!r}, "
             f"got {got.get(name, READING_DEFAULTS[name])!r}"
             for name in READING_DEFAULTS if got.get(name) != expect.get(name)]
    assert not wrong, f"{question!r} on {row['world']} is read differently:\n" + "\n".join(wrong)


def test_the_corpus_is_well_formed() -> None:
    """One row a question; only known keys, worlds and reading fields (a typo fails here rather
    than passing as an empty field)."""
    assert len(ROWS) >= 200
    questions = [row["question"] for row in ROWS]
    repeated = sorted({q for q in questions if questions.count(q) > 1})
    assert repeated == [], f"questions with more than one row: {repeated}"
    parts = set(Exclusions.model_fields)
    for row in ROWS:
        where = repr(row.get("question"))
        assert set(row) <= ROW_KEYS and {"question", "world"} <= set(row), f"{where}: keys {sorted(row)}"
        assert isinstance(row["question"], str) and row["question"].strip(), where
        assert row["world"] in WORLDS, f"{where}: unknown world {row['world']!r}"
        expect = row.get("expect") or {}
        unknown = sorted(set(expect) - set(READING_DEFAULTS))
        assert not unknown, f"{where}: unknown reading fields {unknown}"
        unknown = sorted(set(expect.get("exclusions", {})) - parts)
        assert not unknown, f"{where}: unknown exclusion parts {unknown}"
        # Only what differs from the default is stated, so the reading's own rule applies to rows.
        stated_defaults = [name for name, value in expect.items() if value == READING_DEFAULTS[name]]
        assert not stated_defaults, f"{where}: fields stated at their default {stated_defaults}"
