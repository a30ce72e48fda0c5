"""Pack files are regular files inside the pack: links that stay inside work, nothing else is read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.cli import main
from core.errors import PackError
from core.packs import load_pack, validate_pack
from core.settings import get_settings
from tests.hardening.hostile import DEMO_PACK, OUTSIDE_TARGET, Hostile


def test_packs_list_survives_every_broken_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    hostile = Hostile(tmp_path)
    kinds = ("meta_notutf8", "meta_fifo", "meta_passwd", "meta_zero", "meta_dir",
             "meta_surrogate", "alerts_laughs", "runbook_passwd")
    for kind in kinds:
        hostile.path(f"pack_{kind}")
    shutil.copytree(DEMO_PACK, tmp_path / "packs" / "demo")
    monkeypatch.setenv("SUPERBIZ_PACKS_DIR", str(tmp_path / "packs"))
    get_settings.cache_clear()

    assert main(["packs", "list", "--json"]) == 0
    captured = capsys.readouterr()
    listed = {pack["name"]: pack["description"] for pack in json.loads(captured.out)}
    assert captured.err == ""
    assert set(listed) == {"demo", *kinds}
    assert not listed["demo"].startswith("(invalid")
    for kind in kinds:
        if kind.startswith("meta"):  # pack.yaml is what the listing reads
            assert listed[kind].startswith("(invalid: pack.yaml"), (kind, listed[kind])
    assert "root:x:0" not in captured.out
    assert main(["packs", "list"]) == 0  # the readable table too
    assert len(capsys.readouterr().out.splitlines()) == len(kinds) + 1


@pytest.mark.parametrize(("kind", "message"), [
    ("meta_notutf8", "pack.yaml: not UTF-8 text (byte 0xff at offset 21)"),
    ("meta_fifo", "pack.yaml: cannot read: a FIFO, not a regular file"),
    ("meta_passwd", "pack.yaml: cannot read: it links outside its folder"),
    ("meta_zero", "pack.yaml: cannot read: it links outside its folder"),
    ("meta_dir", "pack.yaml: cannot read: a directory, not a regular file"),
    ("alerts_deep", "alerts.yaml: line 1: nested deeper than 64 levels"),
    ("alerts_laughs", "alerts.yaml: YAML aliases expand the document to"),
    ("alerts_recursive", "alerts.yaml: line 1: a YAML alias refers to a node that contains it"),
    ("alerts_huge", "alerts.yaml: is too large (300 MiB; the limit is 64 MiB)"),
    ("logs_zero", "logs.jsonl: cannot read: it links outside its folder"),
    ("logs_fifo", "logs.jsonl: cannot read: a FIFO, not a regular file"),
    ("logs_surrogate", "logs.jsonl: line 1: invalid JSON"),
    ("logs_long_line", "logs.jsonl: line 1: line longer than 1,048,576 bytes"),
    ("store_fifo", "pack.yaml: logs.store: log store is not a file"),
    ("store_zero", "pack.yaml: logs.store: log store is not a file"),
    ("store_passwd", "pack.yaml: logs.store: "),
    ("runbook_dir", "runbooks/hostile.md: cannot read: a directory, not a regular file"),
    ("runbook_dangling", "runbooks/hostile.md: cannot read: a symlink to nothing (dangling)"),
    ("runbook_loop", "runbooks/hostile.md: cannot read: a symlink loop"),
    ("runbook_fifo", "runbooks/hostile.md: cannot read: a FIFO, not a regular file"),
    ("runbook_zero", "runbooks/hostile.md: cannot read: it links outside its folder"),
    ("runbook_passwd", "runbooks/hostile.md: cannot read: it links outside its folder"),
    ("runbook_huge", "runbooks/hostile.md: is too large (300 MiB; the limit is 4 MiB)"),
    ("runbook_laughs", "runbooks/hostile.md: front matter: YAML aliases expand"),
    ("runbooks_outside", "runbooks/: cannot read: it links outside its folder"),
])
def test_each_broken_pack_file_is_one_named_problem(tmp_path: Path, kind: str, message: str) -> None:
    pack = Hostile(tmp_path).path(f"pack_{kind}")
    problems = [str(problem) for problem in validate_pack(pack)]
    assert len(problems) == 1 and problems[0].startswith(message), problems
    with pytest.raises(PackError, match="^" + message.split(":")[0]):
        load_pack(pack)


def test_links_inside_the_pack_are_followed(tmp_path: Path) -> None:
    pack = tmp_path / "linked"
    shutil.copytree(DEMO_PACK, pack)
    (pack / "shared").mkdir()
    (pack / "runbooks" / "high-cpu.md").rename(pack / "shared" / "high-cpu.md")
    (pack / "runbooks" / "high-cpu.md").symlink_to(Path("..") / "shared" / "high-cpu.md")
    (pack / "logs.jsonl").rename(pack / "shared" / "logs.jsonl")
    (pack / "logs.jsonl").symlink_to(pack / "shared" / "logs.jsonl")
    assert validate_pack(pack) == []
    loaded = load_pack(str(pack))
    assert "runbooks/high-cpu.md" in {runbook.source for runbook in loaded.runbooks}
    assert len(loaded.logs) == len(load_pack("demo").logs)
    # The pack folder itself may be a link: its files are inside the folder it resolves to.
    (tmp_path / "alias").symlink_to(pack)
    assert validate_pack(tmp_path / "alias") == []


def test_a_link_out_of_the_pack_never_returns_the_content(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    pack = Hostile(tmp_path).path("pack_runbook_passwd")
    assert main(["tools", "call", "lookup_knowledge", "--pack", pack, "--args",
                 '{"query": "root"}', "--no-store"]) == 2
    captured = capsys.readouterr()
    assert "root:x:0" not in captured.out + captured.err
    assert OUTSIDE_TARGET not in captured.err  # the message names the pack file, not its target
