"""Filters kept in the page's URL (``core.views.urlfilters`` says which value wins): call
``restore_url_filters`` before the filter widgets are drawn and ``keep_url_filters`` after."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.views.urlfilters import UrlFilter, params_from_values, values_from_url

_WRITTEN = "_url_filters_written"  # the filter params this page last put in the URL


def restore_url_filters(filters: Sequence[UrlFilter]) -> None:
    """Set the filter widgets from the URL where it says something the page did not write."""
    written: dict[str, str] = st.session_state.get(_WRITTEN, {})
    params = {item.param: st.query_params[item.param] for item in filters
              if item.param in st.query_params}
    st.session_state.update(values_from_url(filters, params, written))


def keep_url_filters(filters: Sequence[UrlFilter]) -> dict[str, str]:
    """Write the filter widgets' values into the URL (defaults left out); returns them."""
    wanted = params_from_values(filters, {item.key: st.session_state.get(item.key)
                                          for item in filters})
    for item in filters:
        if item.param in wanted:
            if st.query_params.get(item.param) != wanted[item.param]:
                st.query_params[item.param] = wanted[item.param]
        elif item.param in st.query_params:
            del st.query_params[item.param]
    st.session_state[_WRITTEN] = wanted
    return wanted
