"""The vocabularies: word lists kept as YAML data in ``core/language/vocab/``, read once.

Each file is one document whose shape a pydantic model (or any type ``TypeAdapter`` takes)
states; ``load(name, shape)`` reads ``vocab/<name>.yaml``, validates it into that shape and
caches the result, so a module turns its file into the same typed objects it used to write as
Python literals. A file that does not validate is a bug in the product, raised at once with the
file and the field (``VocabularyError``). The format of each file: ``vocab/README.md``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, TypeVar, cast

import yaml
from pydantic import TypeAdapter, ValidationError

from core.errors import SuperbizError

VOCAB_DIR = Path(__file__).with_name("vocab")
_T = TypeVar("_T")
# libyaml's loader where PyYAML was built with it: the pure-Python one costs start-up time.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class VocabularyError(SuperbizError):
    """A vocabulary file is missing or does not have its shape."""


@cache
def _document(name: str) -> Any:
    path = VOCAB_DIR / f"{name}.yaml"
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.load(handle, Loader=_LOADER)  # a safe loader, C or Python
    except (OSError, yaml.YAMLError) as error:
        raise VocabularyError(f"vocabulary {path.name}: {error}") from None


def load(name: str, shape: type[_T]) -> _T:
    """``vocab/<name>.yaml`` validated as ``shape`` (cached per name and shape): a pydantic
    model or dataclass whose fields are the file's top-level keys."""
    return cast(_T, _load(name, cast(Any, shape)))


@cache
def _load(name: str, shape: type[Any]) -> Any:
    try:
        return TypeAdapter(shape).validate_python(_document(name))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise VocabularyError(f"vocabulary {name}.yaml: {where}: {first['msg']}") from None


def names() -> list[str]:
    """Every vocabulary file's name (without ``.yaml``)."""
    return sorted(path.stem for path in VOCAB_DIR.glob("*.yaml"))
