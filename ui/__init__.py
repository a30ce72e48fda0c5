"""Streamlit-side helpers shared by the console pages (``app.py`` and ``pages/``).

``core`` never imports streamlit; this package is the only place besides the pages that does.
It renders what ``core.views`` computes and holds the per-process resources (store, runs).
"""
