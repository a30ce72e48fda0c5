"""No tracked text file holds a merge's conflict markers (a README once did, unnoticed, because
Markdown renders them as text and no test read that paragraph)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
_MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)
_TEXT_SUFFIXES = {".py", ".md", ".toml", ".yaml", ".yml", ".json", ".txt", ".cfg", ".ini", ""}


def _tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True,
                                check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: nothing tracked to read")
    files = [REPO_ROOT / name for name in listed if name]
    return [path for path in files if path.suffix in _TEXT_SUFFIXES and path.is_file()]


def test_no_tracked_file_holds_conflict_markers() -> None:
    files = _tracked_text_files()
    assert len(files) > 50, "git ls-files listed the repository"
    marked = [f"{path.relative_to(REPO_ROOT)}:{text[:match.start()].count(chr(10)) + 1}"
              for path in files
              for text in [path.read_text(encoding="utf-8", errors="replace")]
              for match in [_MARKER.search(text)] if match]
    assert not marked, f"conflict markers left by a merge: {marked}"


def test_the_marker_pattern_finds_each_of_the_three_markers() -> None:
    for line in ("<<<<<<< HEAD", ">>>>>>> branch", "======="):
        assert _MARKER.search(f"text\n{line}\nmore"), line
    assert not _MARKER.search("a Markdown rule\n=====\nand ======== longer")
