"""JSON and YAML documents a person gives the program: bounded in depth, integers, aliases."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from core.errors import InputError
from core.inputs.files import MiB, read_text
from core.inputs.text import check_text, text_problem

MAX_DEPTH = 64
MAX_ALIAS_NODES = 100_000
INT_LIMIT = 2**63 - 1
MAX_DOCUMENT_BYTES = 64 * MiB  # a session document (gatekeeper check, replay)


def _path_of(parts: list[Any]) -> str:
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def _walk(data: Any) -> Iterator[tuple[list[Any], Any]]:
    """Every (path, value) of a JSON-like tree, depth first, without recursion."""
    stack: list[tuple[list[Any], Any]] = [([], data)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if len(path) > MAX_DEPTH:
            continue  # the caller refuses it; no need to go deeper
        if isinstance(value, dict):
            for key, item in value.items():
                yield [*path, key], key if isinstance(key, str) else None
                stack.append(([*path, key], item))
        elif isinstance(value, list):
            stack.extend(([*path, index], item) for index, item in enumerate(value))


def check_tree(data: Any, *, source: str) -> Any:
    """``data`` (parsed JSON or YAML) itself, or ``InputError`` for the first value that is
    nested too deep, an integer beyond 64 bits, or text that is not valid Unicode."""
    for path, value in _walk(data):
        if len(path) > MAX_DEPTH:
            raise InputError(source, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                raise InputError(source, f"{_path_of(path)}: text {problem}")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT_LIMIT:
            raise InputError(source, f"{_path_of(path)}: integer out of range "
                                     f"(beyond ±{INT_LIMIT}, the 64-bit limit)")
    return data


def parse_json(text: str, *, source: str) -> Any:
    """A JSON document, bounded (see the module docstring)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"not JSON: {exc.msg} at line {exc.lineno}, "
                                 f"column {exc.colno}") from None
    except RecursionError:
        raise InputError(source, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(source, f"not usable JSON: {exc}".split(";")[0]) from None
    return check_tree(data, source=source)


def read_json_file(path: str | Path, *, source: str | None = None,
                   max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """``read_text`` then ``parse_json`` (``-`` is stdin)."""
    label = source or ("stdin" if str(path) == "-" else str(path))
    return parse_json(read_text(path, source=label, max_bytes=max_bytes), source=label)


_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: fast


class DocumentLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe YAML for user documents: timestamps stay text (the contracts hold them as strings)
    and a duplicated key is an error (PyYAML would silently keep the last one)."""


DocumentLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_unique_mapping(loader: DocumentLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if not isinstance(key, str | int | float | bool):
            continue  # unhashable keys are left to construct_mapping to reject
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    mapping: dict[Any, Any] = loader.construct_mapping(node)
    return mapping


DocumentLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                               _construct_unique_mapping)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_node_graph(root: yaml.Node, source: str) -> None:
    """Refuse a composed document that nests too deep, holds an alias cycle, or whose aliases
    would expand it by more than ``MAX_ALIAS_NODES`` nodes. Iterative: no recursion limit."""
    done: dict[int, int] = {}  # id(node) -> nodes once aliases are expanded
    active = {id(root)}
    stack: list[tuple[yaml.Node, Iterator[yaml.Node]]] = [(root, iter(_children(root)))]
    while stack:
        node, pending = stack[-1]
        child = next(pending, None)
        if child is None:
            stack.pop()
            active.discard(id(node))
            done[id(node)] = 1 + sum(done[id(item)] for item in _children(node))
            continue
        if id(child) in active:
            raise InputError(source, "a YAML alias refers to a node that contains it (a cycle)",
                             line=child.start_mark.line + 1)
        if id(child) in done:
            continue
        if len(stack) >= MAX_DEPTH:
            raise InputError(source, f"nested deeper than {MAX_DEPTH} levels",
                             line=child.start_mark.line + 1)
        active.add(id(child))
        stack.append((child, iter(_children(child))))
    if done[id(root)] > len(done) + MAX_ALIAS_NODES:
        raise InputError(source, f"YAML aliases expand the document to {done[id(root)]:,} nodes "
                                 f"(aliases may add at most {MAX_ALIAS_NODES:,})")


def parse_yaml(text: str, *, source: str) -> Any:
    """One YAML document (safe tags only), bounded (see the module docstring); ``None`` when empty.

    Syntax errors carry the line in ``InputError.line``.
    """
    check_text(text, source=source)
    loader = DocumentLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_node_graph(node, source)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        detail = " ".join(part for part in (exc.context, exc.problem) if part) or str(exc)
        if "nesting depth" in detail or "flow level" in detail:
            raise InputError(source, f"nested deeper than {MAX_DEPTH} levels",
                             line=mark.line + 1 if mark else None) from None
        raise InputError(source, f"invalid YAML: {detail}",
                         line=mark.line + 1 if mark else None,
                         column=mark.column + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise InputError(source, f"invalid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:  # the pure-Python composer, before our own depth check
        raise InputError(source, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(source, f"not usable YAML: {exc}".split(";")[0]) from None
    finally:
        loader.dispose()
    return check_tree(data, source=source)
