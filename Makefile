# Two commands on a fresh machine: `make run` and `make test`. Both create and reuse .venv.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8501

.PHONY: run test check bench install db clean help

help:
	@echo "make run    install into $(VENV), create the audit database, start the console (demo pack, offline engine)"
	@echo "make test   install into $(VENV) and run every test"
	@echo "make check  lint (ruff) and type-check (mypy, strict for core/)"
	@echo "make bench  run the benchmarks in bench/ (figures, not assertions)"

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

db: $(STAMP)
	$(VENV)/bin/superbiz db init

run: db
	$(VENV)/bin/superbiz serve --port $(PORT)

test: $(STAMP)
	$(VENV)/bin/pytest -n 2 --dist loadfile

# Configured in pyproject.toml ([tool.ruff], [tool.mypy]). No formatter: `ruff format` is not run.
check: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# bench/_*.py are helpers the benchmarks share, not benchmarks: the loop skips them.
bench: $(STAMP)
	@for bench in bench/[!_]*.py; do echo "== $$bench"; $(PY) $$bench || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
