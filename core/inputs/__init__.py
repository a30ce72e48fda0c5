"""Reading what people hand the program: files, stdin, JSON and YAML documents, text.

Modules (import from them; this package imports nothing, so a command loads only what it reads):
``text`` (valid Unicode, questions), ``files`` (regular files, stdin), ``documents`` (JSON,
and the checks every document passes), ``yamldoc`` (YAML), ``patterns`` (regular expressions).

Every file, document and piece of text that comes from a user (a session document, an eval
case file, a pack, a question, a command-line argument) passes through here, so the limits
live in one place and every refusal is one ``InputError`` line naming the source:

- a file must be a regular file (never a directory, FIFO, device or socket: reading those hangs
  or never ends); it is opened without blocking and checked after opening, so a path swapped
  in between cannot slip through; it is read up to a size limit, never further;
- ``within=FOLDER`` also refuses a path that resolves outside the folder (a symlink in a pack
  pointing at ``/etc/passwd``), a dangling link and a link loop;
- text must be UTF-8 (the error names the byte offset) and hold only Unicode scalar values:
  no lone surrogate (``\\ud800``: no encoder can write it, so it would break every printer,
  exporter and page that meets it later);
- a JSON or YAML document may nest at most ``MAX_DEPTH`` levels, hold integers only within
  64 bits (what SQLite and PostgreSQL store), and YAML aliases may add at most
  ``MAX_ALIAS_NODES`` nodes to what the file spells out (no "billion laughs"), never a cycle.
"""
