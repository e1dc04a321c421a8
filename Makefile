# Works on a fresh machine with only Python 3.11+: everything goes into .venv.
PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
# `make run` installs only what serving needs; `make test` adds the test tools.
RUN_STAMP  := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed
PYTEST_ARGS ?= -q
# Both cores: three pytest-xdist workers, each with its own Valkey and gunicorn (tests/conftest.py),
# one more than the cores because many tests wait on servers, timeouts and the browser; a worker that
# runs out of tests takes some of another's (worksteal). The schemathesis run goes on beside them,
# from the first test on (tests/support/fuzz_run.py).
PYTEST_WORKERS ?= 3
XDIST := -n $(PYTEST_WORKERS) --dist worksteal
# The tests start dozens of Python processes (the workers, gunicorns, service.run, the fuzzer): with
# PYTHONDONTWRITEBYTECODE set, each compiles the project's modules again and pytest rewrites every
# test module's asserts again (12 s of a worker's collection, 4 s with the bytecode cached). The
# tests write it, into the gitignored __pycache__/ directories.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(VPY) -m pytest

.DEFAULT_GOAL := help
.PHONY: help venv run test test-fast spec bench clean

help:
	@echo "make run    - serve the API (embedded Valkey unless REDIS_URL is set)"
	@echo "make test   - run the whole test suite (on both cores)"
	@echo "make test-fast - the edit loop: no browser tests or servers of their own, the sweeps at a tenth"
	@echo "make spec   - write openapi/openapi.json"
	@echo "make bench  - run the benchmarks (if bench/ exists)"
	@echo "make clean  - remove .venv and caches (keeps data/)"

$(VPY):
	$(PYTHON) -m venv $(VENV)

# Installs with uv (itself from PyPI, into the venv): the test extra in 3 s where pip takes 32 s of
# one core (measured on this 2-core machine, the same 94 packages at the same versions). uv writes no
# bytecode; each module is compiled the first time a process imports it. Where uv cannot be had or
# cannot install (a pip set up for a private index, which uv does not read), pip does the same.
INSTALL = $(VPY) -m pip install --disable-pip-version-check -q uv && $(VENV)/bin/uv pip install -q --python $(VPY) $(1) \
	|| $(VPY) -m pip install --disable-pip-version-check -q $(1)

# Reinstall only when the project metadata changed.
$(RUN_STAMP): pyproject.toml | $(VPY)
	$(call INSTALL,-e .)
	@touch $@

# The test extra includes everything `make run` needs, so it satisfies that stamp too.
$(TEST_STAMP): pyproject.toml | $(VPY)
	$(call INSTALL,-e '.[test]')
	@touch $@ $(RUN_STAMP)

venv: $(TEST_STAMP)

run: $(RUN_STAMP)
	$(VPY) -m service.run

test: $(TEST_STAMP)
	$(PYTEST) $(XDIST) $(PYTEST_ARGS)

# The edit loop: no browser, no second server or cluster (markers set in tests/conftest.py), and the
# heavy sweeps at a tenth of their size (REFEREE_TEST_SWEEPS, tests/support/sweep_size.py).
test-fast: $(TEST_STAMP)
	REFEREE_TEST_SWEEPS=edit $(PYTEST) $(XDIST) -m "not browser and not servers" $(PYTEST_ARGS)

spec: $(RUN_STAMP)
	$(VPY) -m service.openapi openapi/openapi.json

bench: $(TEST_STAMP)
	@if [ -d bench ]; then $(VPY) -m bench; else echo "no bench/ yet"; fi

clean:
	rm -rf $(VENV) *.egg-info build dist .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
