"""Text without fields, read by its layout: the verifier's fallback, and only that.

The verifier reads a ref's facts from its fields (``EvidenceRef.fields``, carried to it as
``CheckedBinding.matched_fields``). Two texts come without them: a checked binding stored before
refs had fields (a verifier input replayed as it was stored; a whole document re-checked gets
its fields recomputed from the raw output by the gatekeeper), and a negative observation's
description. For those, the fields are read back from the text's layout -- the recipes of
``core.tools.refs`` as they were when refs had no fields. Change a recipe and these patterns
no longer describe it: that is why nothing but this fallback reads them.
"""

from __future__ import annotations

import re

from core.contracts import AlertRefFields, GroupRefFields, LogRefFields, RefFields
from core.language.lexicon import SERVICE_PATTERN
from core.language.text import fold

_LEGACY_LOG_PREFIX = re.compile(r"^\s*\[(?P<ts>[^\]]+)\]\s*\[(?P<level>[^\]]+)\]\s*\[(?P<service>[^\]]+)\]\s?")
# ``147 lines like "template" [ERROR][hadoop-mapreduce] from A to B`` (or ``at A``).
_LEGACY_GROUP = re.compile(r'^\s*(?P<count>\d+) lines? like "(?P<template>.*)" \[(?P<level>[^\]]+)\]'
                           r"\[(?P<service>[^\]]+)\] (?:from (?P<first>.*) to (?P<last>.*)|at (?P<at>.*))",
                           re.DOTALL)
_LEGACY_ALERT_HEAD = re.compile(r"^\s*(?P<name>[A-Za-z][\w.:-]*)\s+(?P<state>firing|resolved|pending|inactive)\b")
_LEGACY_SEVERITY = re.compile(r"(?<![a-z])severity=([a-z]+)")
_LEGACY_SERVICE = re.compile(r"(?<![a-z_])service=([^,;\s)]+)")
# A ref's own service in any of the layouts: a log line's third bracket, ``service=``, a group's
# second bracket.
_LEGACY_REF_SERVICE = re.compile(r"^\s*\[[^\]]*\]\s*\[[^\]]*\]\s*\[([^\]]+)\]|(?<![a-z_])service=([^,;\s)]+)|"
                                 r"\[(?:[^\]]*)\]\[([^\]]+)\] (?:from|at) ", re.IGNORECASE)


def legacy_fields(text: str) -> RefFields | None:
    """The fields of a text written by a recipe of the old layout (log line, log group, alert),
    None for any other text."""
    log = _LEGACY_LOG_PREFIX.match(text)
    if log is not None:
        return LogRefFields(timestamp=log.group("ts"), level=log.group("level"),
                            service=log.group("service"), message=text[log.end():])
    group = _LEGACY_GROUP.match(text)
    if group is not None:
        first = group.group("first") if group.group("at") is None else group.group("at")
        last = group.group("last") if group.group("at") is None else group.group("at")
        return GroupRefFields(template=group.group("template"), count=int(group.group("count")),
                              level=group.group("level"), service=group.group("service"),
                              first_timestamp=first.strip(), last_timestamp=last.strip())
    alert = _LEGACY_ALERT_HEAD.match(text)
    if alert is not None:
        folded = fold(text)
        severity = _LEGACY_SEVERITY.search(folded)
        service = _LEGACY_SERVICE.search(folded)
        return AlertRefFields(alert_name=alert.group("name"), state=alert.group("state"),
                              service=service.group(1) if service else "",
                              severity=severity.group(1) if severity else None)
    return None


def legacy_services(text: str) -> list[str]:
    """The services a text without fields names as its own (log prefix, ``service=``, a group's
    bracket) or mentions."""
    folded = fold(text)
    own = [next(group for group in match.groups() if group) for match in _LEGACY_REF_SERVICE.finditer(folded)]
    return own + [match.group(1) for match in SERVICE_PATTERN.finditer(folded)]
