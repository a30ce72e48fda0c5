"""Runbook folders and Prometheus rule files as the knowledge source of ``lookup_knowledge``.

A world's knowledge need not live in a pack: a sources file may name folders of Markdown
runbooks and rule files or folders (``core.sources.rulefiles``), optionally next to a pack's own
runbooks and rules. Everything is read once when the world opens (a file that cannot be read is
a ``SourcesFileError`` then, not a failed call later) and searched like a pack's runbooks:
each rule is a section (``<group> / <AlertName>``), reference-only like every runbook.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from core.contracts import KnowledgeResult
from core.errors import SourcesConfigError
from core.packs import Pack, Runbook, read_markdown_runbooks, rule_runbooks
from core.sources.base import Request, SourceDescription, Vocabulary
from core.sources.rulefiles import read_rules
from core.tools.args import LookupKnowledgeArgs
from core.tools.knowledge import IndexedSection, build_sections, search_sections


class KnowledgeFiles:
    """Runbooks and alerting rules read from files (a ``KnowledgeSource``)."""

    kind = "files"

    def __init__(self, runbooks: Sequence[Runbook], rules: Sequence[Runbook],
                 locations: Sequence[str]) -> None:
        self.runbooks = list(runbooks)
        self.rules = list(rules)
        self.locations = list(locations)
        self._sections: list[IndexedSection] = build_sections(self.runbooks, self.rules)

    @classmethod
    def read(cls, *, runbook_dirs: Sequence[Path] = (), rule_paths: Sequence[Path] = (),
             pack: Pack | None = None) -> KnowledgeFiles:
        """Read the folders and files now (``SourcesConfigError`` naming the first problem);
        a pack's own runbooks and rules come first when one is given."""
        runbooks = list(pack.runbooks) if pack else []
        rules = list(pack.rules) if pack else []
        locations = [str(pack.root)] if pack else []
        for folder in runbook_dirs:
            if not folder.is_dir():
                raise SourcesConfigError(f"runbook folder not found: {folder}")
            found, problems = read_markdown_runbooks(folder, folder)
            if problems:
                raise SourcesConfigError(f"{folder}: {problems[0]}")
            runbooks += found
            locations.append(str(folder))
        for path in rule_paths:
            if not path.exists():
                raise SourcesConfigError(f"rule file or folder not found: {path}")
            # A rule file that is not YAML raises RuleFileError (a SourcesConfigError) here.
            groups = read_rules([path], relative_to=path if path.is_dir() else path.parent)
            rules += rule_runbooks(groups)
            locations.append(str(path))
        return cls(runbooks, rules, locations)

    @property
    def source_id(self) -> str:
        """``files:/srv/runbooks+/etc/prometheus/rules``."""
        return f"{self.kind}:" + "+".join(self.locations)

    def describe(self) -> SourceDescription:
        holds = {"runbooks": len(self.runbooks),
                 "sections": sum(len(runbook.sections) for runbook in self.runbooks),
                 "rules": sum(len(group.sections) for group in self.rules)}
        return SourceDescription(kind=self.kind, source_id=self.source_id, capability="knowledge",
                                 holds=holds, location=", ".join(self.locations))

    def vocabulary(self) -> Vocabulary:
        """The alert names of the rules (runbooks name no services)."""
        return Vocabulary(rule_names=tuple(dict.fromkeys(
            section.title for group in self.rules for section in group.sections)))

    def lookup_knowledge(self, args: LookupKnowledgeArgs) -> tuple[KnowledgeResult, Request]:
        return search_sections(self._sections, args), args.model_dump(mode="json", exclude_none=True)
