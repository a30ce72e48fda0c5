"""Reading what people hand the program: files, stdin, JSON and YAML documents, text.

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

from core.inputs.documents import (
    INT_LIMIT,
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    DocumentLoader,
    check_tree,
    parse_json,
    parse_yaml,
    read_json_file,
)
from core.inputs.files import MiB, open_regular, read_bytes, read_stdin, read_text, resolve_within
from core.inputs.patterns import regex_problem
from core.inputs.text import (
    MAX_QUESTION_CHARS,
    check_question,
    check_text,
    decode_utf8,
    repair_text,
    repair_tree,
    text_problem,
)

__all__ = [
    "INT_LIMIT", "MAX_ALIAS_NODES", "MAX_DEPTH", "MAX_DOCUMENT_BYTES", "MAX_QUESTION_CHARS",
    "DocumentLoader", "MiB", "check_question", "check_text", "check_tree", "decode_utf8",
    "open_regular", "parse_json", "parse_yaml", "read_bytes", "read_json_file", "read_stdin",
    "read_text", "regex_problem", "repair_text", "repair_tree", "resolve_within", "text_problem",
]
