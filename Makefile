# pbem: `make run` starts everything locally, `make test` checks everything. Both set up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# Python keeps what it compiles (__pycache__, git-ignored) even where the environment says not to
# (PYTHONDONTWRITEBYTECODE, set on some machines): otherwise every process the suite starts
# (servers, commands, workers) compiled pbem and its packages anew, about 3 s of CPU each.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install native translations messages wheel browser imap-server nginx run play test lint typecheck pytest bench clean

# --no-compile: Python compiles what it imports when it first does, instead of pip compiling every
# module of every package (a third of the install's time) ahead. PBEM_NATIVE=0: the editable
# build would compile the native cores one after another (16 s), and `make native` compiles them
# again, side by side.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PBEM_NATIVE=0 $(BIN)/python -m pip install --quiet --no-compile -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP) translations native

# The games' compiled playout cores (engine/native.py), built in place when a C compiler is at
# hand; one line says which. Without one, or when the build fails, the engine plays pure Python.
native: $(STAMP)
	@$(BIN)/python setup.py native

# Catalogs (docs/contributing.md, "Translations"): `make messages` after changing any text a
# person reads; translate the new entries in pbem/translations/*/LC_MESSAGES/messages.po;
# `make translations` compiles them (every command that runs the app does it first).
LOCALES := pbem/translations

translations: $(STAMP)
	@$(BIN)/pybabel compile -d $(LOCALES) -D messages

messages: $(STAMP)
	$(BIN)/python -m pbem.catalogs extract
	$(BIN)/pybabel update -i $(LOCALES)/messages.pot -d $(LOCALES) -D messages \
	  --no-fuzzy-matching --ignore-obsolete --width 100
	$(BIN)/python -m pbem.catalogs english
	$(BIN)/python -m pbem.catalogs check || true

# A wheel to install elsewhere (dist/pbem-*.whl): setup.py puts the templates, the rules pages and
# the catalogs, compiled, inside it. A fresh build/: setuptools would ship files deleted since.
wheel: $(STAMP)
	rm -rf build
	$(BIN)/python -m pip wheel --no-deps -w dist .

# The web app on 127.0.0.1:5000 with a local mail catcher and a demo game (see README.md).
run: $(STAMP) translations native
	$(BIN)/pbem dev

play: $(STAMP)
	$(BIN)/python -m engine play $(or $(GAME),mosey) --vs random

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/vulture pbem engine vulture_whitelist.py --min-confidence 60

typecheck: $(STAMP)
	$(BIN)/mypy --strict engine pbem

# Browser tests drive Debian's Chromium through Playwright (never `playwright install`).
browser:
	@command -v chromium >/dev/null 2>&1 || test -x /usr/bin/chromium || \
	  { echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } || \
	  echo "could not install chromium: browser tests will be skipped"

# The IMAP tests start their own Dovecot on a free loopback port; the system service is not needed.
imap-server:
	@test -x /usr/sbin/dovecot || \
	  { echo "installing Debian's dovecot-imapd for the IMAP tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dovecot-imapd && \
	    { systemctl disable --now dovecot.service dovecot.socket 2>/dev/null || \
	      service dovecot stop 2>/dev/null || true; }; } || \
	  echo "could not install dovecot-imapd: IMAP tests will be skipped"

# The nginx tests run Debian's nginx on free loopback ports with the shipped site.
nginx:
	@test -x /usr/sbin/nginx || \
	  { echo "installing Debian's nginx for the nginx tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx && \
	    { systemctl disable --now nginx.service 2>/dev/null || service nginx stop 2>/dev/null || true; }; } || \
	  echo "could not install nginx: the nginx tests will be skipped"

# Spread over every core (pytest-xdist); a test that needs a server starts its own on a free port.
# One worker more than cores: tests spend part of their time waiting on the servers, browsers and
# processes they start, and a third worker on two cores fills it (the suite: 585 s -> 536 s).
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
pytest: $(STAMP) translations native browser imap-server nginx
	$(BIN)/python -m pytest -n $(WORKERS) --dist worksteal

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/render.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis build dist
