# `make run` and `make test` each create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint typecheck unit bench clean

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

unit: $(BIN)/sowboard
	$(BIN)/pytest

test: lint typecheck unit

bench: $(BIN)/sowboard
	$(BIN)/sowboard bench rules

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
