# Two commands for a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test
BSTAMP := $(VENV)/.installed-bench
LSTAMP := $(VENV)/.installed-lint
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)

.PHONY: demo test lint test-pythons test-python stress interop bench screenshots install wheel clean

# A set-up step: one line saying what it does; what the tool printed is shown only when it fails
# (pip's notices and setuptools' "Editable installation" box are no news on success).
step = @echo "make: $(1)"; log=$$(mktemp); if $(2) >"$$log" 2>&1; then rm -f "$$log"; \
	else status=$$?; cat "$$log" >&2; rm -f "$$log"; echo "make: $(1): failed" >&2; exit $$status; fi

$(STAMP): pyproject.toml
	$(call step,creating $(VENV) with $(PYTHON),$(PYTHON) -m venv $(VENV))
	$(call step,upgrading pip in $(VENV),$(PY) -m pip install --quiet --upgrade pip)
	$(call step,installing teamtui into $(VENV) (editable),$(PY) -m pip install --quiet -e .)
	@touch $@

$(TSTAMP): pyproject.toml $(STAMP)
	$(call step,installing the test extra,$(PY) -m pip install --quiet -e '.[test]')
	@touch $@

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/teamtui demo

# Two workers (pytest-xdist): the 2-core machine CI runs on; every test keeps its own HOME, tmux
# socket and ports, so none shares anything with another. TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
test: $(TSTAMP)
	$(PY) -m pytest -q -n $(TEST_WORKERS)

$(LSTAMP): pyproject.toml $(STAMP)
	$(call step,installing the lint extra,$(PY) -m pip install --quiet -e '.[lint]')
	@touch $@

# The linter, the formatter's check and the type checker (pinned in the `lint` extra; their settings are
# in pyproject.toml). All run, and the target fails if any found something (`ruff format` mends the second).
lint: $(LSTAMP)
	@status=0; \
	$(VENV)/bin/ruff check teamtui || status=1; \
	$(VENV)/bin/ruff format --check teamtui tests benchmarks || status=1; \
	$(PY) -m mypy teamtui || status=1; \
	exit $$status

# The Pythons teamtui claims (requires-python, README): the oldest and the newest, each in a venv
# of its own (.venv-3.11, .venv-3.13); every one runs, and the target fails if any failed.
PYTHONS := 3.11 3.13

test-pythons:
	@failed=""; for v in $(PYTHONS); do $(MAKE) --no-print-directory test-python V=$$v || failed="$$failed $$v"; done; \
	if [ -n "$$failed" ]; then echo "make test-pythons: the suite failed on$$failed" >&2; exit 1; fi

# One of them: make test-python V=3.13
test-python:
	@py=$$(.ci/find-python $(V)) && echo "== Python $(V): $$py" && \
	  $(MAKE) --no-print-directory test PYTHON=$$py VENV=.venv-$(V)

# The real Claude Code, pinned, in a git-ignored cache of the project (no global install; ~370 MB
# a version, reused), one folder per version. `make interop CLAUDE_CODE_VERSION=latest` runs the
# newest published release instead (npm tells which); the pin and the versions tested are also in
# teamtui/protocol/claude_versions.py.
CLAUDE_CODE_VERSION := 2.1.332
ifeq ($(CLAUDE_CODE_VERSION),latest)
CLAUDE_CODE_RESOLVED := $(shell npm view @anthropic-ai/claude-code version 2>/dev/null)
else
CLAUDE_CODE_RESOLVED := $(CLAUDE_CODE_VERSION)
endif
INTEROP_CACHE := .cache/interop/$(CLAUDE_CODE_RESOLVED)
CLAUDE_BIN := $(INTEROP_CACHE)/node_modules/.bin/claude

$(CLAUDE_BIN):
	mkdir -p $(INTEROP_CACHE)
	npm install --prefix $(INTEROP_CACHE) --no-audit --no-fund --no-save --loglevel=error @anthropic-ai/claude-code@$(CLAUDE_CODE_RESOLVED)
	@$(CLAUDE_BIN) --version | grep -q '^$(subst .,\.,$(CLAUDE_CODE_RESOLVED)) ' || { echo "make interop: $(CLAUDE_BIN) is not version $(CLAUDE_CODE_RESOLVED)" >&2; exit 1; }

# Without npm (and no cached binary) it says so; in CI (CI=true) that is a failure, elsewhere a skip.
interop: $(TSTAMP)
	@if [ -z "$(CLAUDE_CODE_RESOLVED)" ] && command -v npm >/dev/null 2>&1; then \
	  echo "make interop: npm could not tell the latest version of @anthropic-ai/claude-code (npm view failed)" >&2; exit 1; \
	fi
	@if [ ! -x "$(CLAUDE_BIN)" ] && ! command -v npm >/dev/null 2>&1; then \
	  echo "make interop: npm is not installed, so @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION) cannot be installed" >&2; \
	  if [ "$${CI:-}" = "true" ]; then exit 1; else echo "make interop: skipped" >&2; exit 0; fi; \
	fi
	$(MAKE) --no-print-directory $(CLAUDE_BIN) CLAUDE_CODE_VERSION=$(CLAUDE_CODE_RESOLVED)
	@echo "make interop: Claude Code $(CLAUDE_CODE_RESOLVED) ($(CLAUDE_BIN))"
	TEAMTUI_CLAUDE_BIN="$(abspath $(CLAUDE_BIN))" $(PY) -m pytest -q -m interop tests/interop -p no:randomly

$(BSTAMP): pyproject.toml $(TSTAMP)
	$(call step,installing the bench extra,$(PY) -m pip install --quiet -e '.[bench]')
	@touch $@

stress: $(TSTAMP)
	$(PY) -m pytest -q -m stress

bench: $(BSTAMP)
	$(PY) benchmarks/run.py --save latest

screenshots: $(TSTAMP)
	$(PY) -m teamtui.tui.screenshots screenshots

# A wheel to install elsewhere (another machine, over ssh: see the README), with pipx or uv.
wheel: $(STAMP)
	@rm -f dist/teamtui-*.whl
	$(call step,building dist/teamtui-$(VERSION)-py3-none-any.whl,$(PY) -m pip wheel --quiet --no-deps --wheel-dir dist .)

clean:
	rm -rf $(VENV) .venv-3.* build dist *.egg-info
