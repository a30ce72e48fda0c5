"""YAML documents a person gives the program (case files, pack files, front matter): safe tags
only, timestamps kept as text, duplicate keys refused, aliases bounded, then ``check_tree``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from core.errors import InputError
from core.inputs.documents import MAX_DEPTH, check_tree
from core.inputs.text import check_text

MAX_ALIAS_NODES = 100_000
# Characters of text aliases may add: a 1 MB string referred to 10,000 times is few nodes but
# 10 GB to check, store and print ("billion laughs" in text rather than in nodes).
MAX_ALIAS_CHARS = 10_000_000


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
    would expand it by more than ``MAX_ALIAS_NODES`` nodes or ``MAX_ALIAS_CHARS`` characters
    of text. Iterative: no recursion limit."""
    done: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, characters) once aliases are expanded
    own_chars = 0  # characters of the scalars as written, each once
    active = {id(root)}
    stack: list[tuple[yaml.Node, Iterator[yaml.Node]]] = [(root, iter(_children(root)))]
    while stack:
        node, pending = stack[-1]
        child = next(pending, None)
        if child is None:
            stack.pop()
            active.discard(id(node))
            children = [done[id(item)] for item in _children(node)]
            written = len(node.value) if isinstance(node, yaml.ScalarNode) else 0
            own_chars += written
            done[id(node)] = (1 + sum(nodes for nodes, _ in children),
                              written + sum(chars for _, chars in children))
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
    nodes, chars = done[id(root)]
    if nodes > len(done) + MAX_ALIAS_NODES:
        raise InputError(source, f"YAML aliases expand the document to {nodes:,} nodes "
                                 f"(aliases may add at most {MAX_ALIAS_NODES:,})")
    if chars > own_chars + MAX_ALIAS_CHARS:
        raise InputError(source, f"YAML aliases expand the document's text to {chars:,} characters "
                                 f"(aliases may add at most {MAX_ALIAS_CHARS:,})")


def parse_yaml(text: str, *, source: str) -> Any:
    """One YAML document (safe tags only), bounded (see the module docstring); ``None`` when empty.

    Syntax errors carry the line in ``InputError.line``.
    """
    documents = _parse(text, source=source, single=True)
    return documents[0] if documents else None


def parse_yaml_documents(text: str, *, source: str) -> list[Any]:
    """Every document of a multi-document YAML text (``---``), each bounded like ``parse_yaml``;
    empty documents are left out."""
    return [document for document in _parse(text, source=source, single=False) if document is not None]


def _parse(text: str, *, source: str, single: bool) -> list[Any]:
    check_text(text, source=source)
    loader = DocumentLoader(text)
    documents: list[Any] = []
    try:
        if single:
            node = loader.get_single_node()
            nodes = [node] if node is not None else []
        else:
            nodes = []
            while loader.check_node():
                nodes.append(loader.get_node())
        for node in nodes:
            _check_node_graph(node, source)
            documents.append(check_tree(loader.construct_document(node), source=source))
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
    return documents
