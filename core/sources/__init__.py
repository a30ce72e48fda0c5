"""Where tools get their data: the source seam (``base``) and its implementations (``pack``).

See docs/sources.md."""
