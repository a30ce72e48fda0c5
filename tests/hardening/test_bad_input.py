"""The bad-input table: every command, every class of hostile input.

Each case runs ``core.cli.main`` in-process with captured streams and must: exit 2, print
exactly one line on stderr (``superbiz: error: ...``), no traceback, finish before an alarm
(no hang), write nothing to the audit store or the folder it runs in, and never echo a
password or token it was given.
"""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from core.cli import main
from core.settings import get_settings
from tests.hardening.hostile import OUTSIDE_TARGET, SECRET, Hostile

QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"
HANG_SECONDS = 30  # far above any honest refusal; only a hang reaches it

# ---------------------------------------------------------------- the classes

PACK_KINDS = (
    "meta_notutf8", "meta_dir", "meta_fifo", "meta_passwd", "meta_zero", "meta_surrogate",
    "alerts_deep", "alerts_laughs", "alerts_text_laughs", "alerts_recursive", "alerts_huge", "alerts_outside",
    "logs_zero", "logs_fifo", "logs_deep", "logs_surrogate", "logs_long_line",
    "store_fifo", "store_zero", "store_passwd",
    "runbook_dir", "runbook_dangling", "runbook_loop", "runbook_fifo", "runbook_zero",
    "runbook_passwd", "runbook_huge", "runbook_notutf8", "runbook_laughs", "runbooks_outside",
)
# A few pack kinds for the commands that share ``load_pack`` with ``packs validate``.
PACK_SAMPLE = ("meta_notutf8", "meta_fifo", "alerts_laughs", "alerts_text_laughs", "logs_zero", "runbook_passwd",
               "runbook_loop", "runbooks_outside")

DB_URLS = {
    "one-slash": f"postgresql:/user:{SECRET}@db.example/x",
    "bad-port": f"postgresql://user:{SECRET}@db.example:abc/x",
    "port-range": f"postgresql://user:{SECRET}@db.example:99999/x",
    "unknown-scheme": f"nosuchdb://user:{SECRET}@db.example/x",
    "query-token": f"sqlite:///<tmp>/q.db?token={SECRET}&mode=nonsense",
    "empty": "",
    "directory": "<adir>",
    "fifo": "<fifo>",
    "devzero": "<devzero>",
    "not-a-database": "<text_file>",
    "sqlite-fifo": "sqlite:///<fifo>",
    # In memory: the audit trail would vanish with the process while the command says "recorded".
    "in-memory": "sqlite://",
    "in-memory-path": "sqlite:///:memory:",
    "in-memory-uri": "sqlite:///file:audit?mode=memory&uri=true",
}
# Commands that take --db, as argv before the option.
DB_COMMANDS = {
    "ask": ["ask", QUESTION],
    "tools-call": ["tools", "call", "query_metrics"],
    "sessions-list": ["sessions", "list"],
    "sessions-show": ["sessions", "show", "latest"],
    "sessions-export": ["sessions", "export"],
    "sessions-annotate": ["sessions", "annotate", "latest", "--verdict", "wrong"],
    "sessions-annotations": ["sessions", "annotations", "latest"],
    "eval-cases": ["eval", "cases", "from-annotations"],
    "gatekeeper-recheck": ["gatekeeper", "recheck", "--all"],
    "replay": ["replay", "<good_doc>"],
    "eval": ["eval", "<good_cases>"],
    "db-init": ["db", "init"],
    "audit-verify": ["audit", "verify"],
    "export-otlp": ["export", "otlp", "--endpoint", "http://127.0.0.1:9"],
    "serve": ["serve"],
}
FILE_KINDS = ("missing", "adir", "fifo", "dangling", "loop", "devzero", "zerolink", "notutf8",
              "nul", "empty", "huge")
DOC_KINDS = ("deep_json", "deep_object", "long_int", "json_list", "surrogate_doc",
             "huge_inv_doc")
YAML_KINDS = ("yaml_deep", "yaml_deep_block", "yaml_laughs", "yaml_recursive", "yaml_python_tag",
              "yaml_surrogate", "yaml_notutf8", "yaml_long_question", "yaml_huge_int",
              "yaml_long_int", "yaml_hostile_pack")
OUTPUT_TARGETS = ("fifo", "devnull", "adir", "link_out", "missing_dir_out", "dangling")
SURROGATE, UNDECODABLE = "\ud800", "\udcff"  # a lone surrogate; argv bytes Python could not decode


def _cases() -> Iterator[tuple[str, list[str], dict[str, str]]]:
    """(id, argv template, options): options may name ``stdin`` (a hostile input) or ``seed``."""
    yield from [
        # ask
        ("ask/empty", ["ask", ""], {}),
        ("ask/blank", ["ask", "  \n\t "], {}),
        ("ask/surrogate", ["ask", f"only confirm {SURROGATE} CPU"], {}),
        ("ask/undecodable-argv", ["ask", f"only {UNDECODABLE} CPU"], {}),
        ("ask/too-long", ["ask", "CPU " * 50_000], {}),
        ("ask/pack-surrogate", ["ask", QUESTION, "--pack", SURROGATE], {}),
        ("ask/pack-missing", ["ask", QUESTION, "--pack", "no-such-pack"], {}),
        ("ask/pack-is-a-file", ["ask", QUESTION, "--pack", "<text_file>"], {}),
        ("ask/pack-devnull", ["ask", QUESTION, "--pack", "/dev/null"], {}),
        ("ask/engine", ["ask", QUESTION, "--engine", "nope"], {}),
        ("ask/fault", ["ask", QUESTION, "--executor-fault", "nope"], {}),
        ("ask/unknown-option", ["ask", QUESTION, "--nope"], {}),
        # replay and gatekeeper check: documents
        *((f"replay/{kind}", ["replay", f"<{kind}>"], {}) for kind in FILE_KINDS + DOC_KINDS),
        *((f"check/{kind}", ["gatekeeper", "check", f"<{kind}>"], {})
          for kind in FILE_KINDS + DOC_KINDS),
        ("replay/huge-citation-id-db", ["replay", "<huge_id_doc>", "--db", "<tmp>/audit.db"], {}),
        ("replay/negative-citation-id-db", ["replay", "<negative_id_doc>", "--db", "<tmp>/audit.db"],
         {}),
        # gatekeeper check --db (issue 11 item 2): the document is refused before the store opens
        ("check/huge-citation-id-db", ["gatekeeper", "check", "<huge_id_doc>", "--db",
                                       "<tmp>/audit.db"], {}),
        ("check/db-one-slash", ["gatekeeper", "check", "<good_doc>", "--db", DB_URLS["one-slash"]],
         {}),
        ("replay/path-surrogate", ["replay", f"<tmp>/{SURROGATE}.json"], {}),
        ("check/path-undecodable", ["gatekeeper", "check", f"<tmp>/{UNDECODABLE}.json"], {}),
        ("replay/stdin-devzero", ["replay", "-"], {"stdin": "devzero"}),
        ("check/stdin-notutf8", ["gatekeeper", "check", "-"], {"stdin": "notutf8"}),
        ("check/stdin-deep", ["gatekeeper", "check", "-"], {"stdin": "deep_json"}),
        ("replay/stdin-surrogate", ["replay", "-", "--json"], {"stdin": "surrogate_doc"}),
        ("replay/engine", ["replay", "<good_doc>", "--engine", "nope"], {}),
        # gatekeeper recheck
        ("recheck/without-all", ["gatekeeper", "recheck"], {}),
        ("recheck/limit-text", ["gatekeeper", "recheck", "--all", "--limit", "many"], {}),
        ("recheck/limit-negative", ["gatekeeper", "recheck", "--all", "--limit", "-1"], {}),
        ("recheck/limit-huge", ["gatekeeper", "recheck", "--all", "--limit", str(2**70)], {}),
        # tools
        ("tools-call/unknown-tool", ["tools", "call", "query_everything"], {}),
        ("tools-call/tool-surrogate", ["tools", "call", SURROGATE], {}),
        ("tools-call/args-not-json", ["tools", "call", "query_logs", "--args", "{service:"], {}),
        ("tools-call/args-list", ["tools", "call", "query_logs", "--args", "[]"], {}),
        ("tools-call/args-deep", ["tools", "call", "query_logs", "--args", '{"a":' * 10_000], {}),
        ("tools-call/args-deep-closed", ["tools", "call", "query_logs", "--args",
                                         '{"query":' + "[" * 10_000 + "]" * 10_000 + "}"], {}),
        ("tools-call/args-long-int", ["tools", "call", "query_logs", "--args",
                                      '{"limit": ' + "9" * 5000 + "}"], {}),
        ("tools-call/args-huge-int", ["tools", "call", "query_logs", "--args",
                                      f'{{"limit": {2**70}}}'], {}),
        ("tools-call/args-surrogate-escape", ["tools", "call", "query_logs", "--args",
                                              '{"query": "CPU \\ud800"}'], {}),
        ("tools-call/args-surrogate-raw", ["tools", "call", "query_logs", "--args",
                                           f'{{"query": "CPU {SURROGATE}"}}'], {}),
        ("tools-call/args-unknown-key", ["tools", "call", "query_logs", "--args",
                                         '{"servcie": "x"}'], {}),
        ("tools-call/args-too-long", ["tools", "call", "query_logs", "--args",
                                      '{"query": "' + "x" * 200_000 + '"}'], {}),
        ("tools-call/pack-missing", ["tools", "call", "query_logs", "--pack", "nope"], {}),
        ("tools-list/extra", ["tools", "list", "extra"], {}),
        # packs
        ("packs-validate/missing", ["packs", "validate", "<missing>"], {}),
        ("packs-validate/surrogate", ["packs", "validate", SURROGATE], {}),
        ("packs-validate/devnull", ["packs", "validate", "/dev/null"], {}),
        ("packs-validate/fifo", ["packs", "validate", "<fifo>"], {}),
        ("packs-validate/loop", ["packs", "validate", "<loop>"], {}),
        *((f"packs-validate/{kind}", ["packs", "validate", f"<pack_{kind}>"], {})
          for kind in PACK_KINDS),
        *((f"tools-call/pack-{kind}", ["tools", "call", "lookup_knowledge", "--pack",
                                       f"<pack_{kind}>"], {}) for kind in PACK_SAMPLE),
        *((f"ask/pack-{kind}", ["ask", QUESTION, "--pack", f"<pack_{kind}>"], {})
          for kind in PACK_SAMPLE),
        *((f"eval/pack-{kind}", ["eval", "<good_cases>", "--pack", f"<pack_{kind}>"], {})
          for kind in PACK_SAMPLE),
        ("packs-list/extra", ["packs", "list", "--nope"], {}),
        # sessions
        ("sessions-show/surrogate", ["sessions", "show", SURROGATE], {}),
        ("sessions-show/unknown", ["sessions", "show", "no-such-session"], {"seed": "1"}),
        ("sessions-show/empty-store", ["sessions", "show", "latest"], {}),
        ("sessions-list/text-surrogate", ["sessions", "list", "--text", SURROGATE], {}),
        ("sessions-list/limit-huge", ["sessions", "list", "--limit", str(2**70)], {}),
        ("sessions-list/limit-negative", ["sessions", "list", "--limit", "-5"], {}),
        ("sessions-list/verdict", ["sessions", "list", "--verdict", "MAYBE"], {}),
        ("sessions-list/rule-surrogate", ["sessions", "list", "--rule", UNDECODABLE], {}),
        ("sessions-export/limit-huge", ["sessions", "export", "--limit", str(2**70)], {}),
        *((f"sessions-export/-o-{kind}", ["sessions", "export", "-o", f"<{kind}>"],
           {"seed": "1"}) for kind in OUTPUT_TARGETS),
        ("sessions-export/-o-surrogate", ["sessions", "export", "-o", f"<tmp>/{SURROGATE}"],
         {"seed": "1"}),
        # annotations (docs/qa.md)
        ("sessions-annotate/unknown", ["sessions", "annotate", "no-such-session", "--verdict",
                                       "wrong"], {"seed": "1"}),
        ("sessions-annotate/claim-range", ["sessions", "annotate", "latest", "--verdict", "wrong",
                                           "--claim", "99"], {"seed": "1"}),
        ("sessions-annotate/binding-negative", ["sessions", "annotate", "latest", "--verdict",
                                                "wrong", "--binding", "-1"], {"seed": "1"}),
        ("sessions-annotate/claim-text", ["sessions", "annotate", "latest", "--verdict", "wrong",
                                          "--claim", "first"], {"seed": "1"}),
        ("sessions-annotate/verdict", ["sessions", "annotate", "latest", "--verdict", "maybe"],
         {"seed": "1"}),
        ("sessions-annotate/note-huge", ["sessions", "annotate", "latest", "--verdict", "wrong",
                                         "--note", "x" * 5000], {"seed": "1"}),
        ("sessions-annotate/by-surrogate", ["sessions", "annotate", "latest", "--verdict",
                                            "wrong", "--by", SURROGATE], {"seed": "1"}),
        ("sessions-annotations/unknown", ["sessions", "annotations", "no-such-session"],
         {"seed": "1"}),
        ("eval-cases/verdict", ["eval", "cases", "from-annotations", "--verdict", "bogus"], {}),
        *((f"eval-cases/--out-{kind}", ["eval", "cases", "from-annotations", "--out", f"<{kind}>"],
           {}) for kind in OUTPUT_TARGETS if kind != "missing_dir_out"),  # folders are made
        # audit verify, export otlp
        ("audit-verify/head-short", ["audit", "verify", "--head", "abc123"], {}),
        ("audit-verify/head-surrogate", ["audit", "verify", "--head", SURROGATE * 12], {}),
        ("export-otlp/endpoint-ftp", ["export", "otlp", "--endpoint", "ftp://x"], {"seed": "1"}),
        ("export-otlp/since-text", ["export", "otlp", "--endpoint", "http://127.0.0.1:9",
                                    "--since", "yesterday"], {}),
        ("export-otlp/limit-huge", ["export", "otlp", "--endpoint", "http://127.0.0.1:9",
                                    "--limit", str(2**70)], {}),
        # eval
        *((f"eval/{kind}", ["eval", f"<{kind}>"], {}) for kind in FILE_KINDS + YAML_KINDS),
        ("eval/tag-surrogate", ["eval", "<good_cases>", "--tag", SURROGATE], {}),
        ("eval/workers-zero", ["eval", "<good_cases>", "--workers", "0"], {}),
        ("eval/workers-huge", ["eval", "<good_cases>", "--workers", str(2**70)], {}),
        ("eval/workers-text", ["eval", "<good_cases>", "--workers", "two"], {}),
        *((f"eval/--junit-{kind}", ["eval", "<good_cases>", "--junit", f"<{kind}>"], {})
          for kind in OUTPUT_TARGETS),
        ("eval/pack-missing", ["eval", "<good_cases>", "--pack", "no-such-pack"], {}),
        # logs import / stats / query
        *((f"logs-import/{kind}", ["logs", "import", f"<{kind}>", "--store", "<tmp>/logs.db"], {})
          for kind in ("missing", "adir", "fifo", "dangling", "loop", "devzero", "zerolink", "huge",
                       "gz_corrupt", "gz_bomb", "binary_log")),
        *((f"logs-import/store-{kind}", ["logs", "import", "<plain_log>", "--store", f"<{kind}>"], {})
          # a store path that is a dangling link or a loop is replaced whole (never written through)
          for kind in ("adir", "fifo", "devzero", "text_file", "missing_dir_out")),
        ("logs-import/pattern-invalid", ["logs", "import", "<plain_log>", "--store", "<tmp>/l.db",
                                         "--pattern", "(?P<timestamp>["], {}),
        ("logs-import/pattern-no-groups", ["logs", "import", "<plain_log>", "--store", "<tmp>/l.db",
                                           "--pattern", ".*"], {}),
        ("logs-import/pattern-catastrophic", ["logs", "import", "<redos_log>", "--store",
                                              "<tmp>/l.db", "--pattern",
                                              "(?P<timestamp>(a+)+)b(?P<message>.*)"], {}),
        ("logs-import/timezone", ["logs", "import", "<plain_log>", "--store", "<tmp>/l.db",
                                  "--timezone", "Mars/Olympus"], {}),
        ("logs-import/service-surrogate", ["logs", "import", "<plain_log>", "--store", "<tmp>/l.db",
                                           "--service", SURROGATE], {}),
        ("logs-import/format", ["logs", "import", "<plain_log>", "--store", "<tmp>/l.db",
                                "--format", "nope"], {}),
        *((f"logs-add/{kind}", ["logs", "add", f"<{kind}>", "--pack", "mine"], {})
          for kind in ("missing", "adir", "fifo", "dangling", "loop", "devzero", "zerolink", "huge",
                       "gz_corrupt", "gz_bomb", "binary_log")),
        *((f"logs-add/pack-{kind}", ["logs", "add", "<plain_log>", "--pack", name], {})
          for kind, name in (("built-in", "demo"), ("path", "../mine"), ("hidden", ".mine"),
                             ("empty", ""), ("surrogate", SURROGATE), ("long", "m" * 65))),
        ("logs-add/timezone", ["logs", "add", "<plain_log>", "--pack", "mine", "--timezone",
                               "Mars/Olympus"], {}),
        *((f"logs-stats/store-{kind}", ["logs", "stats", "--store", f"<{kind}>"], {})
          for kind in ("missing", "adir", "fifo", "devzero", "text_file", "dangling", "loop", "empty")),
        *((f"logs-query/store-{kind}", ["logs", "query", "x", "--store", f"<{kind}>"], {})
          for kind in ("missing", "fifo", "devzero", "text_file")),
        ("logs-query/limit-huge", ["logs", "query", "x", "--store", "<log_store>", "--limit",
                                   str(2**70)], {}),
        ("logs-query/limit-zero", ["logs", "query", "x", "--store", "<log_store>", "--limit", "0"], {}),
        ("logs-query/since", ["logs", "query", "x", "--store", "<log_store>", "--since", "yesterday"],
         {}),
        ("logs-query/level", ["logs", "query", "x", "--store", "<log_store>", "--level", "LOUD"], {}),
        ("logs-query/topic", ["logs", "query", "x", "--store", "<log_store>", "--topic", "weather"], {}),
        ("logs-query/text-surrogate", ["logs", "query", SURROGATE, "--store", "<log_store>"], {}),
        # sources files (--sources FILE, the sources command): read like any user document
        *((f"sources/{kind}", ["sources", "--sources", f"<{kind}>"], {})
          for kind in (*FILE_KINDS, "yaml_deep", "yaml_laughs", "yaml_recursive", "yaml_python_tag",
                       "yaml_surrogate", "yaml_notutf8")),
        *((f"ask/sources-{kind}", ["ask", QUESTION, "--sources", f"<{kind}>"], {})
          for kind in ("fifo", "devzero", "yaml_laughs", "notutf8")),
        *((f"tools-call/sources-{kind}", ["tools", "call", "query_logs", "--sources", f"<{kind}>"], {})
          for kind in ("fifo", "yaml_deep")),
        *((f"eval/sources-{kind}", ["eval", "<good_cases>", "--sources", f"<{kind}>"], {})
          for kind in ("fifo", "yaml_recursive")),
        ("sources/pack-and-sources", ["sources", "--pack", "demo", "--sources", "<text_file>"], {}),
        ("ask/pack-and-sources", ["ask", QUESTION, "--pack", "demo", "--sources", "<text_file>"], {}),
        ("sources/pack-missing", ["sources", "--pack", "no-such-pack"], {}),
        ("sources/unknown-option", ["sources", "--nope"], {}),
        # schema, db, serve
        ("schema/extra", ["schema", "extra"], {}),
        ("db/no-subcommand", ["db"], {}),
        ("serve/port-range", ["serve", "--port", "99999"], {}),
        ("serve/port-negative", ["serve", "--port", "-1"], {}),
        ("serve/port-text", ["serve", "--port", "http"], {}),
        ("serve/address-surrogate", ["serve", "--address", SURROGATE], {}),
        ("serve/address-bad", ["serve", "--address", "not an address"], {}),
        ("top/unknown-command", ["frobnicate"], {}),
        ("top/surrogate-command", [SURROGATE], {}),
    ]
    for command, argv in DB_COMMANDS.items():
        for kind, url in DB_URLS.items():
            yield (f"{command}/db-{kind}", [*argv, "--db", url], {})
    # The same store locations from the environment, for commands that read it.
    for command in ("ask", "tools-call", "sessions-list", "eval", "db-init", "serve"):
        for kind in ("one-slash", "bad-port", "directory", "fifo"):
            yield (f"{command}/SUPERBIZ_DB-{kind}", DB_COMMANDS[command],
                   {"env": f"SUPERBIZ_DB={DB_URLS[kind]}"})
    for command in ("ask", "tools-call"):  # eval's default pack is demo, whatever the settings
        yield (f"{command}/SUPERBIZ_DEFAULT_PACK-runbook-loop", DB_COMMANDS[command],
               {"env": "SUPERBIZ_DEFAULT_PACK=<pack_runbook_loop>"})
    for kind, url in (("not-http", "ftp://prom.example"), ("ipv6-open", "http://[::1"),
                      ("no-host", "http://:9090"), ("port-range", "http://prom.example:99999"),
                      ("words", "not a url")):
        for variable in ("SUPERBIZ_PROMETHEUS_URL", "SUPERBIZ_ALERTMANAGER_URL"):
            yield (f"ask/{variable}-{kind}", ["ask", QUESTION], {"env": f"{variable}={url}"})
    yield ("ask/llm-settings-malformed", ["ask", QUESTION, "--engine", "llm"],
           {"env": "SUPERBIZ_LLM_TIMEOUT_S=soon"})
    yield ("ask/llm-settings-negative-retries", ["ask", QUESTION, "--engine", "llm"],
           {"env": "SUPERBIZ_LLM_MAX_RETRIES=-1"})


CASES = list(_cases())


# ---------------------------------------------------------------- running one case


class Hang(Exception):
    """The case did not finish before the alarm."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang(f"no answer within {HANG_SECONDS}s")


def _tree(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every entry under ``root`` (not following links): kind, size, mtime. The audit store is
    compared by its rows instead (SQLite may touch its files on a read)."""
    found = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            path = Path(folder, name)
            if path.name.startswith("audit.db"):
                continue
            info = path.lstat()
            found[str(path.relative_to(root))] = (oct(info.st_mode), info.st_size, info.st_mtime_ns)
    return found


def _rows(db: Path) -> dict[str, int]:
    if not db.exists():
        return {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        tables = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {table: connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
                  for table in tables}
    # Empty tables and the store's own version stamp (store_meta): nothing of the input stored.
    return {table: count for table, count in counts.items() if count and table != "store_meta"}


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    return Hostile(tmp_path)


def _seed(hostile: Hostile, db: Path) -> None:
    """One stored session (for commands that need something to read)."""
    assert main(["tools", "call", "query_metrics", "--db", str(db)]) == 0


def _good_inputs(hostile: Hostile) -> None:
    """A valid document and case file, so the hostile part is the only thing wrong."""
    import json

    from tests.hardening.hostile import base_document

    hostile._built.setdefault("good_doc", str(hostile._file("good.json", json.dumps(base_document()))))
    hostile._built.setdefault("good_cases", str(hostile._file(
        "good.yaml", f"- {{id: good, question: {QUESTION}}}\n")))


@pytest.mark.parametrize(("argv", "options"), [pytest.param(argv, options, id=case_id)
                                               for case_id, argv, options in CASES])
def test_bad_input_is_one_line_exit_two_and_nothing_written(
        argv: list[str], options: dict[str, str], hostile: Hostile, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        request: pytest.FixtureRequest) -> None:
    db = tmp_path / "audit.db"  # SUPERBIZ_DB (tests/conftest.py)
    _good_inputs(hostile)
    filled = [hostile.fill(part) for part in argv]
    if "seed" in options:
        _seed(hostile, db)
    if "env" in options:
        name, _, value = options["env"].partition("=")
        monkeypatch.setenv(name, hostile.fill(value))
        get_settings.cache_clear()
    stdin = options.get("stdin")
    if stdin:
        stream = io.TextIOWrapper(Path(hostile.path(stdin)).open("rb"))  # noqa: SIM115
        request.addfinalizer(stream.close)
        monkeypatch.setattr(sys, "stdin", stream)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    tree, rows = _tree(tmp_path), _rows(db)

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_SECONDS)
    try:
        code = main(filled)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 2, f"exit {code}; stderr: {err[:500]!r}"
    assert len(lines) == 1, f"stderr is not one line: {err[:800]!r}"
    assert lines[0].startswith("superbiz: error: "), lines[0]
    assert "Traceback" not in err
    assert len(lines[0]) < 600, "a one-line error is short enough to read"
    assert SECRET not in err + out
    assert "root:x:0:0" not in err + out, f"content of {OUTSIDE_TARGET} was returned"
    assert _tree(tmp_path) == tree, "a rejected input changed files"
    assert _rows(db) == rows, "a rejected input wrote to the audit store"


def test_the_table_covers_every_command() -> None:
    """Every command and subcommand the parser knows has bad-input cases in the table."""
    import argparse

    from core.cli import build_parser

    def leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
        found = [action for action in parser._actions
                 if isinstance(action, argparse._SubParsersAction)]
        if not found:
            return [prefix]
        return [leaf for name, sub in found[0].choices.items()
                for leaf in leaves(sub, (*prefix, name))]

    from core.cli.annotate_cmd import route  # ``eval cases from-annotations``: a hidden command

    covered = {tuple(route(argv)[:len(leaf)]) for _, argv, _ in CASES
               for leaf in leaves(build_parser(), ())}
    missing = [" ".join(leaf) for leaf in leaves(build_parser(), ()) if leaf not in covered]
    assert not missing, f"commands without bad-input cases: {missing}"
