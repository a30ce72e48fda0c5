"""The theme switch: System (follow the OS), Light or Dark.

Streamlit follows the OS when ``.streamlit/config.toml`` defines ``[theme.light]`` and
``[theme.dark]``; its documented ``embed_options=light_theme`` / ``dark_theme`` URL parameter
forces one for a page load. The switch is three links to the current page with that parameter
(or without it, for System), keeping the page's own query parameters (``?session=``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

THEME_PARAM = "embed_options"
_FORCED = {"Light": "light_theme", "Dark": "dark_theme"}
THEME_CHOICES: tuple[str, ...] = ("System", "Light", "Dark")


@dataclass(frozen=True)
class ThemeLink:
    """One choice of the switch: its label, the link, and whether it is the theme shown now."""

    label: str
    href: str
    active: bool


def theme_links(query: Mapping[str, str], shown: str | None) -> list[ThemeLink]:
    """The switch's links for a page whose query parameters are ``query``; ``shown`` is the
    theme the browser shows now (``light`` / ``dark``, None when unknown)."""
    kept = {key: value for key, value in query.items() if key != THEME_PARAM}
    links = []
    for label in THEME_CHOICES:
        params = dict(kept)
        if label in _FORCED:
            params[THEME_PARAM] = _FORCED[label]
        href = "?" + urlencode(params) if params else "?"
        links.append(ThemeLink(label, href, active=label.lower() == (shown or "")))
    return links
