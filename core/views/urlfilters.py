"""Filters kept in a page's URL (``?pack=demo&outcome=rejected``), so a reload or a shared link
shows the same filtered list. Pure: ``ui.urlfilters`` applies it to Streamlit's query params
and widget state.

A filter's value lives in two places: its widget (the session state) and the URL. The URL wins
when it says something the page did not write itself (a link opened, a reload, an address
edited by hand); otherwise the widget wins, so a choice made on the page is never undone by
the URL it is about to replace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class UrlFilter:
    """One filter: its query parameter, the widget key holding it, the value meaning "no
    filter" (left out of the URL) and, for a choice, the values it accepts (others in a URL
    are ignored, never passed to the widget)."""

    param: str
    key: str
    default: str = ""
    choices: Sequence[str] | None = None

    def accepts(self, value: str) -> bool:
        """Whether ``value`` is one this filter can hold."""
        return self.choices is None or value in self.choices


def values_from_url(filters: Sequence[UrlFilter], params: Mapping[str, str],
                    written: Mapping[str, str]) -> dict[str, str]:
    """Widget values to set from the URL: each parameter that differs from what the page last
    wrote (``written``) and that its filter accepts, keyed by widget key. A parameter the page
    wrote and then removed (a filter set back to its default) is not in ``params`` and not in
    the result: the widget already says so."""
    restored: dict[str, str] = {}
    for item in filters:
        value = params.get(item.param)
        if value is None:
            if item.param in written:  # removed from the address by hand: back to the default
                restored[item.key] = item.default
            continue
        if written.get(item.param) != value and item.accepts(value):
            restored[item.key] = value
    return restored


def params_from_values(filters: Sequence[UrlFilter],
                       values: Mapping[str, object]) -> dict[str, str]:
    """The query parameters saying the widget ``values`` (keyed by widget key): only filters
    set to something other than their default."""
    params: dict[str, str] = {}
    for item in filters:
        value = values.get(item.key)
        text = "" if value is None else str(value).strip()
        if text and text != item.default:
            params[item.param] = text
    return params
