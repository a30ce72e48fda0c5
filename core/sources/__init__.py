"""Where tools get their data: the source seam (``base``), its implementations (``pack``), and
the log store (``logstore``, filled by ``logimport``).

See docs/sources.md and docs/logstore.md."""
