# Two commands for a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test
BSTAMP := $(VENV)/.installed-bench

.PHONY: demo test stress bench screenshots install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(TSTAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/teamtui demo

test: $(TSTAMP)
	$(PY) -m pytest -q

$(BSTAMP): pyproject.toml $(TSTAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	touch $@

stress: $(TSTAMP)
	$(PY) -m pytest -q -m stress

bench: $(BSTAMP)
	$(PY) benchmarks/run.py --save latest

screenshots: $(TSTAMP)
	$(PY) -m teamtui.tui.screenshots screenshots

clean:
	rm -rf $(VENV) build *.egg-info
