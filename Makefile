# Every target creates .venv and installs the project on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test play lint bench check install clean golden

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot

test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

play: $(STAMP)
	$(BIN)/python -m bot.sandbox.play $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# BENCH_ARGS: e.g. --step 20 --tables 80 for a longer load run (the default takes about 10 minutes).
bench: $(STAMP)
	$(BIN)/python -m bench.load --game all $(BENCH_ARGS)
	$(BIN)/python -m bench.bot_latency
	$(BIN)/python -m bench.eguan_balance --games 2000

clean:
	rm -rf $(VENV) build *.egg-info

check: $(STAMP)
	$(BIN)/python -m bot.check

# Rewrite the golden playthroughs and images (tests/golden/, tests/render/golden/); review the diff.
golden: $(STAMP)
	$(BIN)/python -m tests.golden.generate $(ARGS)
