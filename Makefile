# Every target creates .venv and installs the project on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast test-slow fuzz play lint bench check install clean golden i18n sync backup restore ora-kennerspiel

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# (without a token the bot explains how to get one and exits 78: not a failure of make)
run: $(STAMP)
	$(BIN)/python -m bot || { status=$$?; test $$status -eq 78 || exit $$status; }

# The suite without the tests marked slow (PYTEST_ARGS="-m ''" runs every test).
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 4 --dist worksteal -m "not slow" $(PYTEST_ARGS)

# The edit-test loop: engines, renderers, golden files, the bot's units, the repository checks
# and one whole game through the offline Discord; no e2e or reliability suites, nothing slow, and
# not the engines' longest playout checks (the drawn playouts' promises, the reveals' oracle).
FAST := tests/engines tests/render tests/golden tests/bot tests/test_architecture.py tests/test_repository_text.py \
	tests/e2e/test_carnival_e2e.py::test_whole_three_player_game_by_clicks
FAST_SKIP := test_drawn_playouts_keep_every_promise or test_the_declaration_agrees_with_the_oracle_on_every_move
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n 4 --dist worksteal -m "not slow" -k "not ($(FAST_SKIP))" $(FAST) $(PYTEST_ARGS)

# The tests marked slow: the 10,000 raw interaction payloads, the longest whole games.
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n 4 --dist worksteal -m slow $(PYTEST_ARGS)

# The payload fuzz at length: 10,000 raw interaction payloads and 400 examples of each other
# fuzz test (about 5,400 payloads).
fuzz: $(STAMP)
	FUZZ_EXAMPLES=400 $(BIN)/python -m pytest -q -n 4 --dist worksteal tests/reliability/test_fuzz.py $(PYTEST_ARGS)

play: $(STAMP)
	$(BIN)/python -m bot.sandbox.play $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# BENCH_ARGS: e.g. --step 20 --tables 80 for a longer load run (the default takes about 10 minutes).
# BENCH_BEFORE=PATH (a git worktree of an older commit): load, hops, undo_check and footprint measure it beside this tree
COMPARE = $(if $(BENCH_BEFORE),--compare $(BENCH_BEFORE))
bench: $(STAMP)
	$(BIN)/python -m bench.load --game all $(COMPARE) $(BENCH_ARGS)
	$(BIN)/python -m bench.render --draw
	$(BIN)/python -m bench.hops --game all $(COMPARE)
	$(BIN)/python -m bench.undo_check $(COMPARE)
	$(BIN)/python -m bench.bot_latency
	$(BIN)/python -m bench.eguan_balance --games 2000
	$(BIN)/python -m bench.requests
	$(BIN)/python -m bench.footprint $(COMPARE)

# Replay kennerspiel's games (tests/engines/records/kennerspiel, or KS_RECORDS=<folder of .jsonl records>)
# as recorded: games whose every breakdown equals the record's, and the replay speed.
KS_RECORDS ?= tests/engines/records/kennerspiel
ora-kennerspiel: $(STAMP)
	$(BIN)/python -m bench.ora_kennerspiel --as-recorded $(KS_RECORDS)

clean:
	rm -rf $(VENV) build *.egg-info

check: $(STAMP)
	$(BIN)/python -m bot.check

# Publish the slash commands (after a change to them); GUILD=<server id> syncs to one server only.
sync: $(STAMP)
	$(BIN)/python -m bot sync $(if $(GUILD),--guild $(GUILD))

# A backup of the database now (the running bot also takes them by itself: BACKUP_* in .env).
backup: $(STAMP)
	$(BIN)/python -m bot backup

# Restore a backup into a new database and verify it by replay: make restore FILE=data/backups/… [TO=path]
restore: $(STAMP)
	@test -n "$(FILE)" || { echo "usage: make restore FILE=<backup> [TO=<new database>]"; exit 2; }
	$(BIN)/python -m bot restore "$(FILE)" $(if $(TO),--to "$(TO)")

# Rewrite the golden playthroughs and images (tests/golden/, tests/render/golden/); review the diff.
golden: $(STAMP)
	$(BIN)/python -m tests.golden.generate $(ARGS)

# Message catalogs: the English TOML files (bot/text/en/) are the source strings. Extract them to
# bot/text/messages.pot and merge it into each language's .po file; translate the new entries there.
I18N_LANGS := zh_TW zh_CN ja
i18n: $(STAMP)
	$(BIN)/pybabel extract --no-location --omit-header --no-wrap -F bot/text/babel.cfg -o bot/text/messages.pot .
	for lang in $(I18N_LANGS); do \
	  if [ -f bot/text/locale/$$lang/LC_MESSAGES/messages.po ]; then \
	    $(BIN)/pybabel update --no-wrap --ignore-obsolete --no-fuzzy-matching -i bot/text/messages.pot -d bot/text/locale -l $$lang; \
	  else \
	    $(BIN)/pybabel init --no-wrap -i bot/text/messages.pot -d bot/text/locale -l $$lang; \
	  fi; \
	done
	sed -i '/^"POT-Creation-Date: /d' bot/text/locale/*/LC_MESSAGES/messages.po
