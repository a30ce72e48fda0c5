"""View models of the console: pure functions from core objects to what a page shows.

Pages under ``pages/`` (and ``app.py``) only read and render; everything they compute comes from
here, so it is tested without a browser. Nothing in this package imports streamlit.

- ``badges``     verdict / severity / binding status -> label, tone and icon
- ``highlight``  aligned spans and differing characters -> escaped HTML segments
- ``timeline``   pipeline events (live or stored) -> one investigation view
- ``sessions``   session summaries -> table rows, JSON Lines export
- ``inspector``  the bindings of a session, and the tamper-and-re-check box
- ``data``       a pack's alerts, logs, runbooks and series -> rows and plotly figures
- ``evals``      eval runs and case results -> matrix rows and plotly figures
"""
