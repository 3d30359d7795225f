# `make run` and `make test` each create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint typecheck unit bench clean chromium mosquitto

$(BIN)/sowboard: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(BIN)/sowboard
	$(BIN)/sowboard run

lint: $(BIN)/sowboard
	$(BIN)/ruff check controller web_ui tests
	$(BIN)/ruff format --check controller web_ui tests

typecheck: $(BIN)/sowboard
	$(BIN)/mypy

# The browser tests use Debian's chromium (Playwright's own browser download is not used).
# As root (CI) it is installed when missing; elsewhere the browser tests say why they skip.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-ipafont-gothic >/dev/null; \
	  else echo "chromium is missing: sudo apt-get install chromium (browser tests will skip)"; fi; \
	fi

# The MQTT tests start Debian's mosquitto on a free loopback port (never the system service).
# As root (CI) it is installed when missing; elsewhere those tests say why they skip.
mosquitto:
	@if [ ! -x /usr/sbin/mosquitto ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mosquitto >/dev/null; \
	  else echo "mosquitto is missing: sudo apt-get install mosquitto (MQTT tests will skip)"; fi; \
	fi

unit: $(BIN)/sowboard chromium mosquitto
	$(BIN)/pytest

test: lint typecheck unit

bench: $(BIN)/sowboard
	$(BIN)/sowboard bench rules

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
