"""Defaults of the live sources (``core.sources.http``, ``prometheus``) that their configuration
(``core.sources.config``) also states: here, so that reading a configuration -- which every
``ask`` does -- does not import the HTTP client (urllib, ssl, http.client)."""

from __future__ import annotations

from datetime import timedelta

DEFAULT_TIMEOUT = 5.0  # seconds per HTTP call
DEFAULT_SERIES_WINDOW = timedelta(minutes=30)  # how far back a series is read
