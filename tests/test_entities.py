"""Entities from the data (issue 29, item 4): the hosts, components, users, pods, namespaces and
jobs a store's lines name are counted when the lines are written, listed by the world's
vocabulary, and a question naming one is read as a subject of its kind and searched for it; a
host the data lacks is searched (and found nowhere), never refused as an unknown service."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from core.agents.rules.planner import RulesPlanner
from core.cli import main
from core.contracts import SessionDocument
from core.language.reading import Entity
from core.pipeline import ask
from core.sources.base import World
from core.sources.logentities import COUNTED, source_components
from core.sources.logstore import LogStore
from core.sources.pack import load_world

SYSLOG = """\
Mar  1 10:00:01 web-01 sshd[101]: Failed password for root from 10.0.0.5 port 22 ssh2
Mar  1 10:00:02 web-01 sshd[102]: Failed password for invalid user admin from 10.0.0.6 port 22 ssh2
Mar  1 10:00:03 db-2 CRON[202]: (root) CMD (run-backup)
Mar  1 10:00:04 db-2 kernel: Out of memory: Killed process 123 (postgres)
Mar  1 10:00:05 web-01 app[300]: ERROR payment declined order=17
Mar  1 10:00:06 db-2 app[301]: ERROR replica lag too high
Mar  1 10:00:07 web-01 kubelet[400]: pod=team-3/api-5f9c job=nightly-report failed to start
Mar  1 10:00:08 web-01 sshd[103]: Accepted publickey for root from 10.0.0.7 port 22 ssh2
"""
# A Windows servicing log as JSON lines: the component is the line's source field.
CBS_LINES = [
    {"timestamp": "2016-09-28T04:30:30Z", "level": "INFO", "service": "windows", "host": "win-7",
     "source": "CBS", "message": "Loaded Servicing Stack v6.1.7601.23505"},
    {"timestamp": "2016-09-28T04:30:31Z", "level": "ERROR", "service": "windows", "host": "win-7",
     "source": "TrustedInstaller", "message": "Failed to install package KB3177467 [HRESULT = 0x800f0922]"},
    {"timestamp": "2016-09-28T04:30:32Z", "level": "INFO", "service": "windows", "host": "win-7",
     "source": "CSI", "message": "Transaction failed, rolled back"},
]


def _syslog_pack(folder: Path) -> Path:
    log = folder / "syslog"
    log.write_text(SYSLOG, encoding="utf-8")
    pack = folder / "pack"
    pack.mkdir()
    assert main(["logs", "import", str(log), "--store", str(pack / "logs.db")]) == 0
    (pack / "pack.yaml").write_text("logs:\n  store: logs.db\n", encoding="utf-8")
    return pack


@pytest.fixture
def syslog_world(tmp_path: Path) -> World:
    return load_world(str(_syslog_pack(tmp_path)))


@pytest.fixture
def cbs_world(tmp_path: Path) -> World:
    pack = tmp_path / "cbs"
    pack.mkdir()
    (pack / "logs.jsonl").write_text("".join(json.dumps(line) + "\n" for line in CBS_LINES), encoding="utf-8")
    (pack / "pack.yaml").write_text("name: cbs\n", encoding="utf-8")
    return load_world(str(pack))


def _entities(world: World) -> dict[tuple[str, str], int]:
    return {(entity.kind, entity.name): entity.lines for entity in world.vocabulary.entities}


def test_the_vocabulary_lists_what_the_lines_name_with_their_lines(syslog_world: World, cbs_world: World) -> None:
    named = _entities(syslog_world)
    assert named[("host", "web-01")] == 5 and named[("host", "db-2")] == 3
    assert named[("user", "root")] == 2 and named[("user", "admin")] == 1
    assert named[("pod", "api-5f9c")] == 1 and named[("namespace", "team-3")] == 1
    assert named[("job", "nightly-report")] == 1
    assert ("user", "invalid") not in named and ("user", "10.0.0.5") not in named
    cbs = _entities(cbs_world)
    assert cbs[("component", "TrustedInstaller")] == 1 and cbs[("component", "CBS")] == 1
    assert cbs[("host", "win-7")] == 3


def test_a_store_written_before_the_table_is_counted_when_opened(tmp_path: Path) -> None:
    store = _syslog_pack(tmp_path) / "logs.db"
    connection = sqlite3.connect(store)
    with connection:
        connection.execute("DROP TABLE entities")
        connection.execute("DELETE FROM meta WHERE key = ?", (COUNTED,))
    connection.close()
    opened = LogStore.open(store)
    assert {(e.kind, e.name): e.lines for e in opened.entities()}[("host", "web-01")] == 5
    opened.close()
    connection = sqlite3.connect(store)  # saved: the next open reads the table
    assert connection.execute("SELECT lines FROM entities WHERE kind = 'host' AND name = 'db-2'").fetchone() == (3,)
    connection.close()


@pytest.mark.parametrize("question, entity", [
    ("Did host web-01 log errors?", Entity(name="web-01", kind="host")),
    ("did WEB-01 log errors?", Entity(name="web-01", kind="host")),
    ("主机 web-01 有没有报错？", Entity(name="web-01", kind="host")),
    ("What did root do?", Entity(name="root", kind="user")),
    ("root 用户做了什么？", Entity(name="root", kind="user")),
    ("Does admin have failed logins?", Entity(name="admin", kind="user")),
    ("Why did pod api-5f9c fail?", Entity(name="api-5f9c", kind="pod")),
    ("命名空间 team-3 有没有失败？", Entity(name="team-3", kind="namespace")),
    ("Did host db-9 log errors?", Entity(name="db-9", kind="host", known=False)),
    ("主机 db-9 有没有报错？", Entity(name="db-9", kind="host", known=False)),
])
def test_a_named_entity_is_a_subject_of_its_kind_and_a_search_term(syslog_world: World, question: str,
                                                                  entity: Entity) -> None:
    reading = RulesPlanner().plan(question, syslog_world).reading
    assert reading.entities == [entity]
    assert entity.name in reading.terms
    assert reading.unknown_subjects == [] and reading.searchable
    assert not {"host", "user", "pod", "namespace"} & {stem for stems in reading.keywords for stem in stems}


def test_a_plain_word_the_data_uses_as_a_component_stays_a_word(cbs_world: World) -> None:
    """``CSI`` is shaped like a name; "transaction" never is, whatever the data calls itself."""
    reading = RulesPlanner().plan("any TrustedInstaller failures?", cbs_world).reading
    assert reading.entities == [Entity(name="TrustedInstaller", kind="component")]
    assert RulesPlanner().plan("Did any transaction fail?", cbs_world).reading.entities == []


def _searched(document: SessionDocument) -> list[str]:
    """What each log search looked for: its query and exact terms."""
    return [" ".join([str(call.arguments.get("query", "")), *call.arguments.get("terms", [])])
            for call in document.invocations if call.tool_name == "query_logs"]


def _cited_messages(document: SessionDocument) -> str:
    assert document.composer_output is not None
    return document.composer_output.user_facing_answer


def test_a_host_with_lines_is_searched_and_only_its_lines_answer(syslog_world: World) -> None:
    document = ask("Did host web-01 log errors?", pack=syslog_world)
    assert any("web-01" in query for query in _searched(document))
    answer = _cited_messages(document)
    assert "payment declined" in answer and "replica lag" not in answer
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"


def test_what_a_user_did_is_searched_for_the_user(syslog_world: World) -> None:
    for question in ("What did root do?", "root 用户做了什么？"):
        document = ask(question, pack=syslog_world)
        assert any("root" in query for query in _searched(document)), question
        answer = _cited_messages(document)
        assert "for root from" in answer and "invalid user admin" not in answer, question


def test_a_component_is_searched_in_the_source_field(cbs_world: World) -> None:
    document = ask("any TrustedInstaller failures?", pack=cbs_world)
    assert any("TrustedInstaller" in query for query in _searched(document))
    assert "KB3177467" in _cited_messages(document)


@pytest.mark.parametrize("question", ["Did host db-9 log errors?", "主机 db-9 有没有报错？"])
def test_a_host_the_data_lacks_is_searched_not_refused(syslog_world: World, question: str) -> None:
    document = ask(question, pack=syslog_world)
    assert any("db-9" in query for query in _searched(document)), "no search ran"
    assert document.plan is not None and document.plan.reading.unknown_subjects == []
    assert document.plan.reading.entities == [Entity(name="db-9", kind="host", known=False)]
    answer = _cited_messages(document)
    assert "payment declined" not in answer and "replica lag" not in answer  # no other host's errors


@pytest.mark.parametrize("source, components", [
    ("sshd[1201]", ["sshd"]),
    ("org.apache.hadoop.mapreduce.v2.app.MRAppMaster", ["org.apache.hadoop.mapreduce.v2.app.MRAppMaster",
                                                        "MRAppMaster"]),
    ("nova.compute.manager [req-3f2a 113d - - -]", ["nova.compute.manager"]),
    ("[/10.10.34.11:3888:QuorumCnxManager$Listener@493]", ["QuorumCnxManager$Listener", "QuorumCnxManager"]),
])
def test_a_source_field_names_its_components(source: str, components: list[str]) -> None:
    assert source_components(source) == components


def test_ask_prints_the_entities_it_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = _syslog_pack(tmp_path)
    capsys.readouterr()
    assert main(["ask", "Did host db-9 or user root log errors?", "--pack", str(pack), "--no-store"]) == 0
    printed = capsys.readouterr().out
    assert "entities: db-9 (host, not among the data), root (user)" in printed
