# Two entry points for a fresh machine: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint format bench tools

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,etcd]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/svc-apiserver

tools: $(STAMP)
	$(BIN)/python tools/install_test_tools.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

test: $(STAMP) tools lint
	$(BIN)/pytest -n 2 --dist loadfile -q

bench: $(STAMP)
	$(BIN)/python -m bench
