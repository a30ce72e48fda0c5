"""``superbiz logs add FILE... --pack NAME`` as a user runs it: one command from a log file to a
pack that ``packs list`` shows and ``ask --pack NAME`` answers from, with citations of its lines;
bad input refused in one line, exit 2, nothing written."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from core.cli import main
from core.contracts import EvidenceRef, GroupRefFields, LogRefFields, SessionDocument
from core.packs import load_pack
from core.settings import get_settings

LINES = [f"2024-03-01 10:00:{i:02d},000 {'ERROR' if i % 10 == 0 else 'INFO'} [m] shop.Db: "
         f"{f'connection refused by db-{i}' if i % 10 == 0 else f'query {i} ok'}" for i in range(60)]
MORE = [f"2024-03-01 11:00:{i:02d},000 WARN [m] shop.Cache: cache miss for key k{i}" for i in range(5)]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def user_packs() -> Path:
    return get_settings().user_packs_path()


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_one_command_makes_a_pack_listed_and_askable(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    log = write(tmp_path / "shop.log", LINES)
    added = run_json(capsys, "logs", "add", str(log), "--pack", "shop", "--json")
    assert isinstance(added, dict)
    assert (added["pack"], added["pack_created"], added["entries"]) == ("shop", True, 60)
    assert added["store"] == str(user_packs() / "shop" / "logs.db")  # where it is, not where it was built
    assert sorted(p.name for p in user_packs().iterdir()) == ["shop"]  # no building folder left

    listed = run_json(capsys, "packs", "list", "--json")
    assert isinstance(listed, list)
    assert {"name": "shop", "description": "Logs imported by superbiz logs add: shop.log"} in listed
    assert main(["packs", "validate", "shop"]) == 0
    assert "60 log lines" in capsys.readouterr().out

    # The pack's example question (the console offers it) is answered from the file's lines.
    (example,) = load_pack("shop").example_questions
    assert example == "Which errors did shop log?"
    assert main(["ask", example, "--pack", "shop", "--json"]) == 0
    document = SessionDocument.model_validate_json(capsys.readouterr().out)
    assert document.outcome == "found" and document.pack == "shop"
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    refs: dict[tuple[int | None, str | None], EvidenceRef] = {
        (invocation.invocation_id, ref.raw_path): ref for invocation in document.invocations
        if invocation.retrieval_details for ref in invocation.retrieval_details.evidence_refs}
    assert document.executor_output is not None
    cited = [refs[(binding.source_invocation_id, binding.raw_path)]
             for claim in document.executor_output.claims for binding in claim.evidence_bindings]
    assert cited
    errors = [line.split(": ", 1)[1] for line in LINES if " ERROR " in line]
    for ref in cited:  # each citation is of the file's ERROR lines: a line, or their group
        assert isinstance(ref.fields, LogRefFields | GroupRefFields)
        assert (ref.fields.service, ref.fields.level) == ("shop", "ERROR")
        if isinstance(ref.fields, LogRefFields):
            assert ref.fields.message in errors
        else:
            assert ref.fields.count == len(errors)
            assert re.fullmatch(re.escape(ref.fields.template).replace("<\\*>", ".+"), errors[0])


def test_a_logs_only_pack_says_metrics_and_knowledge_are_absent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", "add", str(write(tmp_path / "shop.log", LINES)), "--pack", "shop"]) == 0
    capsys.readouterr()
    assert main(["ask", "is there a HighCPUUsage alert on shop?", "--pack", "shop"]) == 0
    out = capsys.readouterr().out
    assert "this world has no metrics source" in out and "this world has no knowledge source" in out


def test_adding_again_grows_the_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["logs", "add", str(write(tmp_path / "shop.log", LINES)), "--pack", "shop"]) == 0
    out = capsys.readouterr().out
    assert "pack shop: made" in out and "--pack shop" in out
    added = run_json(capsys, "logs", "add", str(write(tmp_path / "cache.log", MORE)), "--pack", "shop",
                     "--service", "shop", "--json")
    assert isinstance(added, dict) and (added["pack_created"], added["entries"]) == (False, 5)
    warned = write(tmp_path / "cache.log", MORE)
    assert main(["logs", "add", str(warned), "--pack", "caches"]) == 0  # warnings, no errors
    capsys.readouterr()
    assert load_pack("caches").example_questions == ["Which warnings did cache log?"]
    stats = run_json(capsys, "logs", "stats", "--store", str(user_packs() / "shop" / "logs.db"), "--json")
    assert isinstance(stats, dict) and stats["lines"] == 65


@pytest.mark.parametrize(("name", "message"), [
    ("demo", "a pack of that name is already at"),
    ("../escape", "a pack name is letters, digits"),
    (".hidden", "a pack name is letters, digits"),
    ("a/b", "a pack name is letters, digits"),
    ("x" * 65, "at most 64 characters"),
    ("", "no pack name given"),
])
def test_bad_pack_names_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                    message: str) -> None:
    log = write(tmp_path / "shop.log", LINES)
    assert main(["logs", "add", str(log), "--pack", name]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not user_packs().exists()  # nothing written, not even the folder
    assert not (tmp_path / "escape").exists()


def test_names_taken_by_other_packs_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    log = write(tmp_path / "shop.log", LINES)
    mine = tmp_path / "mine" / "handmade"
    mine.mkdir(parents=True)
    write(mine / "pack.yaml", ["description: by hand"])
    write(mine / "logs.jsonl", ['{"timestamp": "2024-03-01T10:00:00Z", "level": "INFO", '
                                '"service": "a", "message": "m"}'])
    monkeypatch.setenv("SUPERBIZ_PACKS_DIR", str(tmp_path / "mine"))
    get_settings.cache_clear()
    assert main(["logs", "add", str(log), "--pack", "handmade"]) == 2
    assert "SUPERBIZ_PACKS_DIR" in capsys.readouterr().err
    (user_packs() / "notmine").mkdir(parents=True)  # a folder logs add did not make
    assert main(["logs", "add", str(log), "--pack", "notmine"]) == 2
    assert "is not a pack of a log store" in capsys.readouterr().err
    assert os.listdir(user_packs() / "notmine") == []


def test_a_failed_import_leaves_no_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path / "shop.log", LINES)
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    assert main(["logs", "add", str(tmp_path / "missing.log"), "--pack", "shop"]) == 2
    assert "missing.log: cannot read: no such file" in capsys.readouterr().err
    assert not user_packs().exists()
    assert main(["logs", "add", str(good), str(binary), "--pack", "shop"]) == 2
    assert "core.bin: a binary file" in capsys.readouterr().err
    assert not user_packs().exists()  # the half-built pack went with the error, and its folder
    assert main(["packs", "list"]) == 0 and "shop" not in capsys.readouterr().out
    # A failed add to an existing pack leaves its store as it was.
    assert main(["logs", "add", str(good), "--pack", "shop"]) == 0
    assert main(["logs", "add", str(binary), "--pack", "shop"]) == 2
    capsys.readouterr()
    stats = run_json(capsys, "logs", "stats", "--store", str(user_packs() / "shop" / "logs.db"), "--json")
    assert isinstance(stats, dict) and stats["lines"] == 60


def test_add_takes_the_import_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``logs add`` reads files as ``logs import`` does: ``--strict`` refuses a stray line (and no
    pack is made), ``--no-timestamps`` keeps lines without a time, in file order."""
    log = write(tmp_path / "shop.log", [*LINES[:5], "a line of no layout at all", *LINES[5:10]])
    assert main(["logs", "add", str(log), "--pack", "shop", "--strict"]) == 2
    assert "unparsed" in capsys.readouterr().err
    assert not (user_packs() / "shop").exists()

    bare = write(tmp_path / "worker.log", ["ERROR lost the lease on job 7", "INFO took the lease on job 8"])
    added = run_json(capsys, "logs", "add", str(bare), "--pack", "worker", "--no-timestamps", "--json")
    assert isinstance(added, dict) and added["entries"] == 2
