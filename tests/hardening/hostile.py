"""Hostile inputs, built on demand in a temp folder: files, packs, documents, URLs.

Each builder returns a path (or text) a user could hand the CLI. Names are what the bad-input
table refers to as ``<name>`` placeholders in its argv templates.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.settings import DEFAULT_PACKS_DIR

DEMO_PACK = DEFAULT_PACKS_DIR / "demo"
SECRET = "s3cr3t-T0KEN-do-not-echo"
OUTSIDE_TARGET = "/etc/passwd"  # a file outside every pack whose content must never be returned

_PLACEHOLDER = re.compile(r"<([a-z_]+)>")
DEEP = 10_000
DEEP_JSON = "[" * DEEP + "]" * DEEP
DEEP_JSON_OBJECT = '{"a":' * DEEP + "1" + "}" * DEEP
DEEP_YAML_FLOW = "[" * DEEP + "]" * DEEP
DEEP_YAML_BLOCK = "".join(" " * depth + "-\n" for depth in range(400)) + " " * 400 + "- x\n"
LONG_INTEGER = "1" * 5000
BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True))
# Few nodes, much text: a 1 MB string referred to 10,000 times is 10 GB to check and print.
TEXT_LAUGHS = ("a: &a '" + "lol" * 350_000 + "'\nb: &b [" + ", ".join(["*a"] * 100) + "]\n"
               "alerts: [" + ", ".join(["*b"] * 100) + "]\n")
RECURSIVE_ALIAS = "- &loop [*loop]\n"


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _link(path: Path, target: str | Path) -> Path:
    path.symlink_to(target)
    return path


def _loop(path: Path) -> Path:
    path.symlink_to(path.name)  # a link to itself
    return path


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


class Hostile:
    """Builds each hostile input once, in ``root``; ``path(name)`` returns it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._built: dict[str, str] = {}

    def path(self, name: str) -> str:
        if name not in self._built:
            self._built[name] = str(self._build(name))
        return self._built[name]

    def fill(self, template: str) -> str:
        """``template`` with every ``<name>`` of a known input replaced by the built input
        (other ``<...>``, such as a regex's named group, stay as written)."""
        def one(match: re.Match[str]) -> str:
            try:
                return self.path(match.group(1))
            except KeyError:
                return match.group(0)

        return _PLACEHOLDER.sub(one, template)

    # ------------------------------------------------------------ builders

    def _file(self, name: str, content: str | bytes) -> Path:
        path = self.root / name
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogatepass")
        path.write_bytes(content)
        return path

    def _build(self, name: str) -> Path | str:
        if name.startswith("pack_"):
            return self._pack(name.removeprefix("pack_"))
        file_builders: dict[str, Callable[[], Path | str]] = {
            "tmp": lambda: self.root,
            "missing": lambda: self.root / "no-such-file.json",
            "adir": lambda: _mkdir(self.root / "adir"),
            "fifo": lambda: _fifo(self.root / "fifo"),
            "dangling": lambda: _link(self.root / "dangling", self.root / "nowhere"),
            "loop": lambda: _loop(self.root / "loop"),
            "devzero": lambda: "/dev/zero",
            "devnull": lambda: "/dev/null",
            "zerolink": lambda: _link(self.root / "zerolink", "/dev/zero"),
            "notutf8": lambda: self._file("notutf8.json", b'{"question": "\xff\xfe\xc3"}'),
            "nul": lambda: self._file("nul.json", b"\x00\x00\x00"),
            "empty": lambda: self._file("empty.json", b""),
            "huge": lambda: _sparse(self.root / "huge.json", 300 * 1024 * 1024),
            "deep_json": lambda: self._file("deep.json", DEEP_JSON),
            "deep_object": lambda: self._file("deep-object.json", DEEP_JSON_OBJECT),
            "long_int": lambda: self._file("long-int.json", LONG_INTEGER),
            "json_list": lambda: self._file("list.json", "[1, 2, 3]"),
            "surrogate_doc": lambda: self._file("surrogate-doc.json", self._document(
                question="\ud800 question")),
            "huge_id_doc": lambda: self._file("huge-id.json", self._document(citation_id=2**70)),
            "huge_inv_doc": lambda: self._file("huge-inv.json", self._document(invocation_id=2**70)),
            "negative_id_doc": lambda: self._file("neg-id.json", self._document(citation_id=-(2**70))),
            "text_file": lambda: self._file("text.txt", "this is not a database\n" * 100),
            "regular_out": lambda: self._file("existing-output.jsonl", "keep me\n"),
            "link_out": lambda: _link(self.root / "link-out.jsonl", self.path("regular_out")),
            "missing_dir_out": lambda: self.root / "no-such-dir" / "out.jsonl",
            # log files and stores
            "plain_log": lambda: self._file(
                "app.log", "2026-07-08 10:58:12,001 INFO [main] payment-service: started\n" * 20),
            "redos_log": lambda: self._file("redos.log", ("a" * 40 + "!\n") * 5),
            "binary_log": lambda: self._file("binary.log", bytes(range(256)) * 64),
            "gz_corrupt": lambda: self._file("corrupt.log.gz", b"\x1f\x8b\x08\x00garbage" * 10),
            "gz_bomb": lambda: _gzip_bomb(self.root / "bomb.log.gz"),
            "log_store": lambda: _log_store(self.root / "store.db", self.path("plain_log")),
            # YAML case files
            "yaml_deep": lambda: self._file("deep.yaml", DEEP_YAML_FLOW),
            "yaml_deep_block": lambda: self._file("deep-block.yaml", DEEP_YAML_BLOCK),
            "yaml_laughs": lambda: self._file("laughs.yaml", BILLION_LAUGHS),
            "yaml_recursive": lambda: self._file("recursive.yaml", RECURSIVE_ALIAS),
            "yaml_python_tag": lambda: self._file(
                "python-tag.yaml", "- !!python/object/apply:os.system ['true']\n"),
            "yaml_surrogate": lambda: self._file(
                "surrogate.yaml", '- {id: s, question: "only confirm \\ud800 CPU"}\n'),
            "yaml_notutf8": lambda: self._file("notutf8.yaml", b"- {id: x, question: \"\xff\xfe\"}\n"),
            "yaml_long_question": lambda: self._file(
                "long-question.yaml", f"- {{id: long, question: \"{'CPU ' * 50_000}\"}}\n"),
            "yaml_huge_int": lambda: self._file(
                "huge-int.yaml", f"- {{id: h, question: CPU, expect: {{max_claims: {2**70}}}}}\n"),
            "yaml_long_int": lambda: self._file(
                "long-int.yaml", f"- {{id: h, question: CPU, expect: {{max_claims: {LONG_INTEGER}}}}}\n"),
            "yaml_hostile_pack": lambda: self._file(
                "hostile-pack.yaml", f"- {{id: p, question: CPU, pack: {self.path('pack_runbook_passwd')}}}\n"),
        }
        if name not in file_builders:
            raise KeyError(f"no hostile input named {name!r}")
        return file_builders[name]()

    def _document(self, **changes: object) -> str:
        """A real session document (an offline ``ask``) with one hostile change, as JSON text.

        ``question`` replaces the question; ``citation_id`` the first binding's invocation id;
        ``invocation_id`` the first invocation's id. ``ensure_ascii`` writes a lone surrogate
        as the escape ``\\ud800``, exactly what a hostile file would hold.
        """
        document = base_document()
        if "question" in changes:
            document["question"] = changes["question"]
        if "citation_id" in changes:
            document["executor_output"]["claims"][0]["evidence_bindings"][0][
                "source_invocation_id"] = changes["citation_id"]
        if "invocation_id" in changes:
            document["invocations"][0]["invocation_id"] = changes["invocation_id"]
        return json.dumps(document, ensure_ascii=True)

    # ------------------------------------------------------------ packs

    def _pack(self, kind: str) -> Path:
        """A copy of the demo pack with one hostile part."""
        folder = self.root / "packs" / kind
        shutil.copytree(DEMO_PACK, folder)
        runbook = folder / "runbooks" / "hostile.md"
        edits: dict[str, Callable[[], object]] = {
            "meta_notutf8": lambda: (folder / "pack.yaml").write_bytes(b"name: x\ndescription: \xff\xfe\n"),
            "meta_dir": lambda: _replace_with_dir(folder / "pack.yaml"),
            "meta_fifo": lambda: _replace(folder / "pack.yaml", _fifo),
            "meta_passwd": lambda: _replace(folder / "pack.yaml", lambda p: _link(p, OUTSIDE_TARGET)),
            "meta_zero": lambda: _replace(folder / "pack.yaml", lambda p: _link(p, "/dev/zero")),
            "meta_surrogate": lambda: (folder / "pack.yaml").write_text(
                'name: x\ndescription: "\\ud800"\nnow: "2026-07-08T11:20:00+08:00"\n'),
            "alerts_deep": lambda: (folder / "alerts.yaml").write_text(DEEP_YAML_FLOW),
            "alerts_laughs": lambda: (folder / "alerts.yaml").write_text(
                BILLION_LAUGHS.replace("i: &i", "alerts: &i")),
            "alerts_text_laughs": lambda: (folder / "alerts.yaml").write_text(TEXT_LAUGHS),
            "alerts_recursive": lambda: (folder / "alerts.yaml").write_text(RECURSIVE_ALIAS),
            "alerts_huge": lambda: _replace(folder / "alerts.yaml",
                                            lambda p: _sparse(p, 300 * 1024 * 1024)),
            "alerts_outside": lambda: _replace(folder / "alerts.yaml",
                                               lambda p: _link(p, OUTSIDE_TARGET)),
            "logs_zero": lambda: _replace(folder / "logs.jsonl", lambda p: _link(p, "/dev/zero")),
            "logs_fifo": lambda: _replace(folder / "logs.jsonl", _fifo),
            "logs_deep": lambda: (folder / "logs.jsonl").write_text(DEEP_JSON_OBJECT + "\n"),
            "logs_surrogate": lambda: (folder / "logs.jsonl").write_text(
                '{"timestamp": "2026-07-08T10:58:12+08:00", "level": "INFO", '
                '"service": "payment-service", "message": "bad \\ud800 text"}\n'),
            "logs_long_line": lambda: (folder / "logs.jsonl").write_text(
                '{"timestamp": "2026-07-08T10:58:12+08:00", "level": "INFO", '
                f'"service": "payment-service", "message": "{"x" * (5 * 1024 * 1024)}"}}\n'),
            "store_fifo": lambda: _point_at_store(folder, str(_fifo(folder / "store.db"))),
            "store_zero": lambda: _point_at_store(folder, "/dev/zero"),
            "store_passwd": lambda: _point_at_store(folder, OUTSIDE_TARGET),
            "runbook_dir": lambda: runbook.mkdir(),
            "runbook_dangling": lambda: _link(runbook, folder / "nowhere.md"),
            "runbook_loop": lambda: _loop(runbook),
            "runbook_fifo": lambda: _fifo(runbook),
            "runbook_zero": lambda: _link(runbook, "/dev/zero"),
            "runbook_passwd": lambda: _link(runbook, OUTSIDE_TARGET),
            "runbook_huge": lambda: _sparse(runbook, 300 * 1024 * 1024),
            "runbook_notutf8": lambda: runbook.write_bytes(b"# T\n\xff\xfe\n"),
            "runbook_laughs": lambda: runbook.write_text(
                "---\n" + BILLION_LAUGHS.replace("i: &i", "title: &i") + "---\n# T\ntext\n"),
            "runbooks_outside": lambda: _replace_tree(folder / "runbooks", "/etc"),
        }
        edits[kind]()
        return folder


_BASE_DOCUMENT: dict[str, Any] = {}


def base_document() -> dict[str, Any]:
    """A real session document of the demo pack (computed once, in memory; a fresh copy)."""
    if not _BASE_DOCUMENT:
        from core.pipeline import ask

        document = ask("只确认 payment-service 当前是否存在 CPU 使用率过高告警", store=None)
        _BASE_DOCUMENT.update(document.model_dump(mode="json"))
    return copy.deepcopy(_BASE_DOCUMENT)


def _gzip_bomb(path: Path) -> Path:
    """A small .gz file that expands to 2 GiB of one line with no newline."""
    import zlib

    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip container
    chunk = b"x" * (1024 * 1024)
    with path.open("wb") as out:
        for _ in range(2048):
            out.write(compressor.compress(chunk))
        out.write(compressor.flush())
    return path


def _log_store(path: Path, log_file: str) -> Path:
    """A real log store holding ``log_file``."""
    from core.cli import main

    assert main(["logs", "import", log_file, "--store", str(path)]) == 0
    return path


def _point_at_store(folder: Path, store: str) -> None:
    """The pack's logs come from a log store at ``store`` (pack.yaml ``logs: {store: ...}``)."""
    (folder / "logs.jsonl").unlink()
    with (folder / "pack.yaml").open("a", encoding="utf-8") as meta:
        meta.write(f"logs: {{store: {json.dumps(store)}}}\n")


def _mkdir(path: Path) -> Path:
    path.mkdir(exist_ok=True)
    return path


def _replace(path: Path, make: Callable[[Path], Path]) -> Path:
    path.unlink()
    return make(path)


def _replace_with_dir(path: Path) -> Path:
    path.unlink()
    path.mkdir()
    return path


def _replace_tree(path: Path, target: str) -> Path:
    shutil.rmtree(path)
    path.symlink_to(target)
    return path
