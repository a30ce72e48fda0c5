"""A tool's raw output opened at a citation's ``raw_path``: pretty JSON with the cited element
expanded and marked, the lists around it folded so it is on screen without scrolling.

Display only (the gatekeeper reads refs, not this). ``raw_path`` is the citation grammar of
``docs/gatekeeper-rules.md``: ``$`` then ``.key`` and ``[index]`` steps (``$.alerts[0]``,
``$.groups[2]``); a path that does not parse or names nothing is shown unmarked.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.views.highlight import CITED_CLASS, TEXT_CLASS

JSON_CLASS = "sb-json"
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
CONTEXT_ITEMS = 1   # items shown either side of the cited one in its list
SHOWN_ITEMS = 2     # items shown of a list the citation is not in

Step = str | int


@dataclass(frozen=True)
class JsonLine:
    """One line of the pretty JSON, and whether it belongs to the cited element."""

    text: str
    cited: bool = False


def parse_raw_path(raw_path: str | None) -> list[Step] | None:
    """``$.alerts[0]`` -> ``["alerts", 0]``; None when it is not that grammar."""
    if not raw_path or not raw_path.startswith("$"):
        return None
    steps: list[Step] = []
    position = 1
    while position < len(raw_path):
        match = _STEP.match(raw_path, position)
        if match is None:
            return None
        steps.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
        position = match.end()
    return steps


def value_at(data: Any, steps: Sequence[Step]) -> tuple[bool, Any]:
    """``(True, value)`` at ``steps`` of ``data``, ``(False, None)`` when nothing is there."""
    current = data
    for step in steps:
        in_list = isinstance(step, int) and isinstance(current, list) and 0 <= step < len(current)
        in_dict = isinstance(step, str) and isinstance(current, dict) and step in current
        if not (in_list or in_dict):
            return False, None
        current = current[step]
    return True, current


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class _Printer:
    """Pretty JSON (indent 2) that marks the element at ``target`` and folds long lists."""

    def __init__(self, target: Sequence[Step] | None) -> None:
        self.target = list(target) if target is not None else None
        self.lines: list[JsonLine] = []

    def emit(self, text: str, cited: bool) -> None:
        self.lines.append(JsonLine(text, cited))

    def value(self, value: Any, path: list[Step], indent: int, prefix: str, suffix: str,
              cited: bool) -> None:
        cited = cited or (self.target is not None and path == self.target)
        pad = "  " * indent
        if isinstance(value, dict) and value:
            self.emit(f"{pad}{prefix}{{", cited)
            items = list(value.items())
            for number, (key, item) in enumerate(items):
                comma = "," if number < len(items) - 1 else ""
                self.value(item, [*path, key], indent + 1, f"{_scalar(key)}: ", comma, cited)
            self.emit(f"{pad}}}{suffix}", cited)
        elif isinstance(value, list) and value:
            self.emit(f"{pad}{prefix}[", cited)
            self.items(value, path, indent + 1, cited)
            self.emit(f"{pad}]{suffix}", cited)
        else:
            self.emit(f"{pad}{prefix}{_scalar(value)}{suffix}", cited)

    def items(self, items: list[Any], path: list[Step], indent: int, cited: bool) -> None:
        shown = self._shown(len(items), path)
        skipped = 0
        for index, item in enumerate(items):
            if index not in shown:
                skipped += 1
                continue
            if skipped:
                self._fold(skipped, indent, cited)
                skipped = 0
            comma = "," if index < len(items) - 1 else ""
            self.value(item, [*path, index], indent, "", comma, cited)
        if skipped:
            self._fold(skipped, indent, cited)

    def _shown(self, count: int, path: list[Step]) -> set[int]:
        target = self.target
        if target is not None and len(target) > len(path) and target[:len(path)] == path:
            index = target[len(path)]
            if isinstance(index, int):  # the citation is in this list: around it
                return set(range(index - CONTEXT_ITEMS, index + CONTEXT_ITEMS + 1))
        if target is not None and len(path) >= len(target) and path[:len(target)] == target:
            return set(range(count))  # inside the cited element: everything
        return set(range(SHOWN_ITEMS)) if target is not None else set(range(count))

    def _fold(self, count: int, indent: int, cited: bool) -> None:
        self.emit(f"{'  ' * indent}… {count} more item{'s' * (count != 1)} …", cited)


def cited_json_lines(output: Any, raw_path: str | None) -> list[JsonLine]:
    """``output`` as pretty JSON lines, the element at ``raw_path`` marked (every line of it)
    and the lists around it folded; unmarked and unfolded when the path names nothing."""
    steps = parse_raw_path(raw_path)
    if steps is not None and not value_at(output, steps)[0]:
        steps = None
    printer = _Printer(steps)
    printer.value(output, [], 0, "", "", False)
    return printer.lines


def lines_html(lines: Sequence[JsonLine]) -> str:
    """Escaped HTML of the lines in one ``<div>``; the cited ones in ``<span class=sb-cited>``."""
    parts = []
    for line in lines:
        text = html.escape(line.text)
        parts.append(f'<span class="{CITED_CLASS}">{text}</span>' if line.cited else text)
    return f'<div class="{TEXT_CLASS} {JSON_CLASS}">' + "\n".join(parts) + "</div>"
