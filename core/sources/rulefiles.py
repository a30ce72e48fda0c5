"""Prometheus alerting rules read from rule files, as reference knowledge.

Two shapes are read, in any ``.yml`` / ``.yaml`` file (several YAML documents per file too):

- a Prometheus rule file: ``groups: [{name, rules: [{alert, expr, for, labels, annotations}]}]``;
- a PrometheusRule resource (prometheus-operator): ``kind: PrometheusRule``, ``spec.groups``.

Recording rules (``record:``) and documents of other kinds (a Deployment next to the rules in a
manifests folder) are skipped. A rule says what an alert means and when it fires; it is never
evidence that the alert fires now (``lookup_knowledge`` is reference-only).

``rule_text`` is the one text a rule is searched and cited by: alert name, expr, for,
severity, summary, description, runbook_url, each on its own line, copied as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from core.errors import SourcesConfigError

RULE_SUFFIXES = (".yml", ".yaml")
_MAX_RULE_FILE_BYTES = 8 * 1024 * 1024  # kube-prometheus' largest is 60 KB


class RuleFileError(SourcesConfigError):
    """A rule file cannot be read or is not YAML (one line naming the file)."""


@dataclass(frozen=True)
class AlertRule:
    """One alerting rule, its fields as the file writes them (``for_`` is ``""`` when absent)."""

    name: str
    expr: str
    for_: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def severity(self) -> str:
        return self.labels.get("severity", "")

    @property
    def summary(self) -> str:
        return self.annotations.get("summary", "") or self.annotations.get("message", "")

    @property
    def description(self) -> str:
        return self.annotations.get("description", "")

    @property
    def runbook_url(self) -> str:
        return self.annotations.get("runbook_url", "")


@dataclass(frozen=True)
class RuleGroup:
    """The alerting rules of one group of one file (``source``: the file as shown to users)."""

    name: str
    source: str
    rules: tuple[AlertRule, ...]


def rule_text(rule: AlertRule) -> str:
    """``alert: X`` / ``expr: ...`` / ``for: 15m`` / ``severity`` / ``summary`` /
    ``description`` / ``runbook_url``: the fields present, one per line, as written."""
    fields = [("alert", rule.name), ("expr", " ".join(rule.expr.split())), ("for", rule.for_),
              ("severity", rule.severity), ("summary", rule.summary),
              ("description", rule.description), ("runbook_url", rule.runbook_url)]
    return "\n".join(f"{name}: {value}" for name, value in fields if value)


def _text(value: Any) -> str:
    """A scalar field as text (``for: 15m`` is a string, ``for: 0`` an int); others empty."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, str | int | float):
        return str(value).strip()
    return ""


def _mapping(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {str(key): _text(item) for key, item in value.items() if _text(item)}


def _groups_of(document: Any) -> list[Any]:
    """The ``groups`` list of a rule file or of a PrometheusRule's ``spec``; [] for others."""
    if not isinstance(document, dict):
        return []
    if document.get("kind") == "PrometheusRule":
        spec = document.get("spec")
        document = spec if isinstance(spec, dict) else {}
    groups = document.get("groups")
    return groups if isinstance(groups, list) else []


def rules_of_document(document: Any, source: str) -> list[RuleGroup]:
    """The alerting rule groups of one parsed YAML document (others yield nothing)."""
    found: list[RuleGroup] = []
    for number, group in enumerate(_groups_of(document)):
        if not isinstance(group, dict) or not isinstance(group.get("rules"), list):
            continue
        rules = tuple(
            AlertRule(name=_text(rule.get("alert")), expr=_text(rule.get("expr")),
                      for_=_text(rule.get("for")), labels=_mapping(rule.get("labels")),
                      annotations=_mapping(rule.get("annotations")))
            for rule in group["rules"]
            if isinstance(rule, dict) and _text(rule.get("alert")) and _text(rule.get("expr")))
        if rules:
            found.append(RuleGroup(name=_text(group.get("name")) or f"group {number + 1}",
                                   source=source, rules=rules))
    return found


def read_yaml_documents(path: Path, shown: str, max_bytes: int,
                        error: type[SourcesConfigError] = SourcesConfigError) -> list[Any]:
    """Every YAML document of a small configuration file, or ``error`` in one line naming
    ``shown``: too large, not UTF-8, unreadable, invalid YAML (with its line)."""
    try:
        if path.stat().st_size > max_bytes:
            raise error(f"{shown}: larger than {max(1, max_bytes // 1024 // 1024)} MB")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error(f"{shown}: not UTF-8 text") from None
    except OSError as exc:
        raise error(f"{shown}: cannot read: {exc.strerror or exc}") from None
    try:
        return list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise error(f"{shown}: invalid YAML{where}") from None


def read_rule_file(path: Path, source: str | None = None) -> list[RuleGroup]:
    """The alerting rule groups of one file (``source``: how to name it, default its path).

    ``RuleFileError`` when it cannot be read or is not YAML; a YAML file without rules is [].
    """
    shown = source or str(path)
    documents = read_yaml_documents(path, shown, _MAX_RULE_FILE_BYTES, RuleFileError)
    return [group for document in documents for group in rules_of_document(document, shown)]


def rule_file_paths(location: Path) -> Iterator[Path]:
    """``location`` itself if it is a file, else every ``.yml``/``.yaml`` under it, sorted."""
    if location.is_file():
        yield location
    elif location.is_dir():
        yield from sorted(path for path in location.rglob("*")
                          if path.suffix.lower() in RULE_SUFFIXES and path.is_file())


def read_rules(locations: Iterable[Path], *, relative_to: Path | None = None) -> list[RuleGroup]:
    """Every alerting rule group of the files at ``locations`` (files or folders), each file
    named relative to ``relative_to`` when it lies under it."""
    groups: list[RuleGroup] = []
    for location in locations:
        for path in rule_file_paths(location):
            shown = str(path)
            if relative_to is not None and path.is_relative_to(relative_to):
                shown = path.relative_to(relative_to).as_posix()
            groups += read_rule_file(path, shown)
    return groups


def rule_names(groups: Iterable[RuleGroup]) -> tuple[str, ...]:
    """The alert names of the groups' rules, by first appearance, without repeats."""
    return tuple(dict.fromkeys(rule.name for group in groups for rule in group.rules))
