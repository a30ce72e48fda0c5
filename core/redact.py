"""Secrets out of everything stored, printed or shown.

Configured URLs carry secrets in two places: the userinfo (``postgresql://user:pw@host``,
``https://TOKEN@host``) and the query string (``http://host/v1?api_key=...``). Error messages
of HTTP and database libraries quote those URLs. So every message that leaves a component
(an LLM call's error, a store error, the session's stored error, a CLI error line, a console
error box) goes through ``redact_text``:

- every URL in the text keeps its scheme, host, port and path; its userinfo becomes
  ``[REDACTED]`` and every query value (and any fragment) too — keys stay, for diagnosis;
- every secret configured in the environment (``configured_secrets``: the userinfo, password
  and query values of ``SUPERBIZ_DB``, ``SUPERBIZ_LLM_BASE_URL``, ``OPENAI_BASE_URL`` and any
  ``SUPERBIZ_*_URL`` such as a future ``SUPERBIZ_PROMETHEUS_URL``; the value of every
  ``*_API_KEY`` / ``*_TOKEN`` / ``*_PASSWORD`` / ``*_SECRET`` variable) is replaced wherever
  it appears, even outside a URL;
- anything shaped like a bearer key (``sk-...`` standing alone, ``Bearer ...``, ``api_key=...``)
  too -- not ``sk-`` inside a path or a file name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from core.lazypattern import LazyPattern

REDACTED = "[REDACTED]"

# A URL inside free text: a scheme, one or two slashes (the one-slash typo is still a URL to
# hide), then everything up to white space or a quote.
_URL_IN_TEXT = LazyPattern(r"\b[A-Za-z][A-Za-z0-9+.\-]*:/{1,2}[^\s'\"<>`]+")
# Shapes of bearer secrets: OpenAI-style keys and Authorization header values.
_KEY_SHAPES = (
    # A key is a word of its own: never part of a path or a file name (``/data/sk-backups``,
    # ``risk-assessment.md``, ``sk-notes.yaml``), which it used to blank out of messages.
    LazyPattern(r"(?<![A-Za-z0-9_\-./\\])sk-[A-Za-z0-9_\-]{6,}(?![A-Za-z0-9_\-/\\]|\.[A-Za-z0-9])"),
    LazyPattern(r"(?i)(bearer\s+)[A-Za-z0-9._\-~+/=]{6,}"),
    LazyPattern(r"(?i)(api[_-]?key[\"'=:\s]+)[A-Za-z0-9._\-~+/=]{6,}"),
)
# Environment variables whose values are URLs that may carry secrets.
_URL_VARIABLES = ("SUPERBIZ_DB", "SUPERBIZ_LLM_BASE_URL", "OPENAI_BASE_URL")
_URL_VARIABLE_SUFFIX = "_URL"
# Environment variables whose whole value is a secret.
_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_PASSWORD", "_SECRET")
_SECRET_PREFIXES = ("SUPERBIZ_", "OPENAI_")
# A secret shorter than this is not searched for in free text ("1" or "true" as a query value,
# "u" as a user name would blank out every such letter); inside URLs every value is redacted
# whatever its length.
_MIN_SECRET = 6


class _UrlParts(NamedTuple):
    """A URL cut into pieces that join back to exactly the original text."""

    head: str       # scheme, slashes
    userinfo: str   # without its "@" ("" when there is none)
    rest: str       # host, port, path
    query: str      # without its "?" (None-like "" when absent; see has_query)
    fragment: str   # without its "#"
    has_query: bool
    has_fragment: bool


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:/{0,2}")


def _cut(url: str) -> _UrlParts:
    """Cut without validating: malformed ports, one-slash URLs and odd brackets all cut."""
    body, has_fragment, fragment = url.partition("#")
    body, has_query, query = body.partition("?")
    scheme = _SCHEME.match(body)
    head = scheme.group() if scheme else ""
    after = body[len(head):]
    userinfo = ""
    if head.endswith("/") or not head:  # an authority (or a one-slash typo) follows
        authority = re.split(r"/", after, maxsplit=1)[0]
        if "@" in authority:
            userinfo, _, _ = authority.rpartition("@")
            after = after[len(userinfo) + 1:]
    return _UrlParts(head, userinfo, after, query, fragment, bool(has_query), bool(has_fragment))


def _redact_query(query: str) -> str:
    pairs = []
    for pair in query.split("&"):
        key, equals, value = pair.partition("=")
        pairs.append(f"{key}={REDACTED}" if equals and value else pair if equals else REDACTED)
    return "&".join(pairs)


def redact_url(url: str) -> str:
    """``url`` with its userinfo, query values and fragment replaced by ``[REDACTED]``; every
    other character is kept as written."""
    parts = _cut(url)
    text = parts.head + (f"{REDACTED}@" if parts.userinfo else "") + parts.rest
    if parts.has_query:
        text += "?" + (_redact_query(parts.query) if parts.query else "")
    if parts.has_fragment:
        text += "#" + (REDACTED if parts.fragment else "")
    return text


def public_url(url: str) -> str:
    """``url`` without its userinfo, query string and fragment: what may be shown and stored
    when the secret parts are not needed even as placeholders."""
    parts = _cut(url)
    return parts.head + parts.rest


def url_secrets(url: str) -> list[str]:
    """The secret parts of a URL: its userinfo (whole, user and password), query values
    (a bare ``?token`` whole) and fragment."""
    parts = _cut(url)
    found: list[str] = []
    if parts.userinfo:
        found += [parts.userinfo, *parts.userinfo.split(":", 1)]
    for pair in parts.query.split("&") if parts.query else []:
        key, _, value = pair.partition("=")
        found.append(value or key)
    if parts.fragment:
        found.append(parts.fragment)
    return [secret for secret in found if secret]


def configured_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret the environment configures (see the module docstring), longest first."""
    env = os.environ if environ is None else environ
    found: set[str] = set()
    for name, value in env.items():
        if not value or not name.startswith(_SECRET_PREFIXES):
            continue
        if name.endswith(_SECRET_SUFFIXES):
            found.add(value)
        if name in _URL_VARIABLES or name.endswith(_URL_VARIABLE_SUFFIX):
            found.update(url_secrets(value))
    return sorted((secret for secret in found if len(secret) >= _MIN_SECRET), key=len,
                  reverse=True)


def redact_text(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with URLs redacted, the given secrets (default: ``configured_secrets()``) and
    key-shaped tokens replaced by ``[REDACTED]``."""
    if not text:
        return text
    given = configured_secrets() if secrets is None else secrets
    for secret in sorted({secret for secret in given if len(secret) >= _MIN_SECRET}, key=len,
                         reverse=True):
        text = text.replace(secret, REDACTED)
    text = _URL_IN_TEXT.sub(lambda match: redact_url(match.group()), text)
    for shape in _KEY_SHAPES:
        text = shape.sub(lambda match: (match.group(1) if match.groups() else "") + REDACTED, text)
    return text
