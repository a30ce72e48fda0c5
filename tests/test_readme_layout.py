"""README's Layout section matches the tree: everything it names exists, and every module and
package of ``core/`` is named (a new one must say what it is for)."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
_NAME = re.compile(r"(?<![\w./-])([\w.-]+(?:/[\w.-]+)*(?:\.py|/))(?![\w/])")


def _layout() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Layout", 1)[1]
    return section.split("```")[1].strip("\n").splitlines()


def _named() -> set[Path]:
    """Every file or folder the layout names, resolved: an entry indented under ``core/`` is in
    core/; a name in a description may be relative to the repository or to the entry's folder;
    a deeply indented line continues the previous entry's description."""
    named: set[Path] = set()
    base, entry = REPO_ROOT, ""
    for line in _layout():
        indent = len(line) - len(line.lstrip())
        if indent > 4:  # continuation
            description = line.strip()
        else:
            base = REPO_ROOT / "core" if indent else REPO_ROOT
            entry, _, description = line.strip().partition("  ")
            named.update(base / name for name in _NAME.findall(entry))
        for name in _NAME.findall(description):
            candidates = [REPO_ROOT / name, base / name]
            if entry.endswith("/"):
                candidates.append(base / entry / name)
            named.add(next((path for path in candidates if path.exists()), candidates[0]))
    return named


def test_everything_the_layout_names_exists() -> None:
    missing = sorted(str(path.relative_to(REPO_ROOT)) for path in _named() if not path.exists())
    assert missing == []


def test_every_core_module_and_package_is_in_the_layout() -> None:
    named = {path.resolve() for path in _named()}
    entries = [path for path in sorted((REPO_ROOT / "core").iterdir())
               if path.name not in ("__init__.py", "__main__.py", "__pycache__")
               and (path.suffix == ".py" or (path / "__init__.py").exists()
                    or path.name == "prompts")]
    assert [path.name for path in entries if path.resolve() not in named] == []
