"""Readers of a pack's knowledge: Markdown runbooks (``runbooks/``, any depth, split into
sections at level-2 headings) and Prometheus alerting rules (``rules/``), both as ``Runbook``s
that ``lookup_knowledge`` ranks and cites."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from core.errors import InputError
from core.inputs.files import read_text, resolve_within
from core.inputs.text import check_text
from core.inputs.yamldoc import parse_yaml
from core.packfiles.formats import (
    MAX_RUNBOOK_BYTES,
    MAX_RUNBOOKS,
    RULES_DIR,
    RUNBOOKS_DIR,
    PackProblem,
    Runbook,
    RunbookSection,
    input_problem,
    present,
)
from core.sources.rulefiles import RuleFileError, RuleGroup, read_rules, rule_text

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def split_markdown(text: str, fallback_title: str) -> tuple[str, list[tuple[str, str]]]:
    """(title, [(section title, content)]) of a Markdown runbook.

    The title is the first level-1 heading, else the front matter's ``title``, else
    ``fallback_title``. Sections split at level-2 headings; deeper headings stay in their
    section's content; text before the first section becomes a section named after the title.
    Headings inside fenced code blocks are text. Front matter that is not acceptable YAML
    raises ``InputError``.
    """
    front_title = None
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            front = parse_yaml(text[3:end], source="front matter")  # InputError: reported
            if isinstance(front, dict) and front.get("title"):
                front_title = str(front["title"])
            body = text.find("\n", end + 1)
            text = text[body + 1:] if body != -1 else ""
    title: str | None = None
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading and len(heading.group(1)) == 1 and title is None:
            title = heading.group(2)
        elif heading and len(heading.group(1)) == 2:
            sections.append((heading.group(2), []))
        else:
            sections[-1][1].append(line)
    title = title or front_title or fallback_title
    result = []
    for section_title, lines in sections:
        content = "\n".join(lines).strip()
        if content:
            result.append((section_title or title, content))
    return title, result


def _runbook_files(folder: Path) -> Iterator[Path]:
    """Every ``*.md`` under ``folder``, sorted, without following links to folders (a linked
    folder could lead outside the pack or round in a loop)."""
    for current, folders, files in os.walk(folder, followlinks=False):
        folders.sort()
        for name in sorted(files + [d for d in folders if d.endswith(".md")]):
            if name.endswith(".md"):
                yield Path(current) / name


def read_markdown_runbooks(folder: Path, relative_to: Path) -> tuple[list[Runbook], list[PackProblem]]:
    """The Markdown runbooks under ``folder`` (any depth), each named by its path relative to
    ``relative_to`` and read only from inside it: a link out of it, a special file, an oversized
    or non-UTF-8 file is a problem, not a runbook."""
    runbooks, problems = [], []
    for count, path in enumerate(_runbook_files(folder)):
        source = path.relative_to(relative_to).as_posix() if path.is_relative_to(relative_to) else str(path)
        if count >= MAX_RUNBOOKS:
            problems.append(PackProblem(RUNBOOKS_DIR + "/", f"more than {MAX_RUNBOOKS} runbooks"))
            break
        try:
            text = read_text(path, source=source, max_bytes=MAX_RUNBOOK_BYTES, within=relative_to)
            check_text(text, source=source)
        except InputError as error:
            problems.append(input_problem(source, error))
            continue
        try:
            title, sections = split_markdown(text, fallback_title=path.stem)
        except InputError as error:
            problems.append(PackProblem(source, f"front matter: {error.problem}"))
            continue
        runbooks.append(Runbook(
            title=title, source=source,
            sections=[RunbookSection(title=t, content=c) for t, c in sections]))
    return runbooks, problems


def read_runbooks_dir(root: Path) -> tuple[list[Runbook], list[PackProblem]]:
    """The pack's optional ``runbooks/`` folder, read within the pack."""
    folder = root / RUNBOOKS_DIR
    if not present(folder):
        return [], []
    try:
        real_folder = resolve_within(folder, root, source=RUNBOOKS_DIR + "/")
    except InputError as error:
        return [], [input_problem(RUNBOOKS_DIR + "/", error)]
    if not real_folder.is_dir():
        return [], [PackProblem(RUNBOOKS_DIR + "/", "must be a folder")]
    return read_markdown_runbooks(real_folder, root)


def rule_runbooks(groups: list[RuleGroup]) -> list[Runbook]:
    """Alerting rule groups as runbooks: titled by group, a section per rule (its name and
    ``rule_text``), so ``lookup_knowledge`` ranks and cites them like any runbook section."""
    return [Runbook(title=group.name, source=group.source,
                    sections=[RunbookSection(title=rule.name, content=rule_text(rule))
                              for rule in group.rules])
            for group in groups]


def read_rules_dir(root: Path) -> tuple[list[Runbook], list[PackProblem]]:
    """The pack's optional ``rules/`` folder of alerting rules, as runbooks."""
    folder = root / RULES_DIR
    if not folder.is_dir():
        return [], []  # optional
    try:
        return rule_runbooks(read_rules([folder], relative_to=root, within=root)), []
    except RuleFileError as error:
        return [], [PackProblem(RULES_DIR + "/", str(error))]
