# Two entry points for a fresh machine: `make run` and `make test` (see README.md).
# Every Python package comes from requirements.lock (exact versions and hashes); `make lock` refreshes it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements.lock
TOOLS_LOCK := tools/lock/test-tools.lock
LOCK_VENV := .venv-lock
UV_VERSION := 0.13.9
COMPILE := $(LOCK_VENV)/bin/uv pip compile --upgrade --generate-hashes --python-version 3.11 --quiet

.PHONY: run test lint format bench tools lock

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# The API server, and the controller daemon beside it once the server has written its kubeconfig;
# `make run NODES=3` adds the node simulator with that many nodes. Stopping make (Ctrl-C) stops all.
# The server authorizes as a real cluster does (Node,RBAC); the admin kubeconfig is in system:masters.
NODES ?= 0
run: $(STAMP)
	@$(BIN)/svc-apiserver --authorization-mode=Node,RBAC & api=$$!; cm=; nodes=; trap 'kill $$api $$cm $$nodes 2>/dev/null; wait' EXIT INT TERM; \
	while [ ! -f .svc-data/admin.kubeconfig ]; do kill -0 $$api 2>/dev/null || exit 1; sleep 0.2; done; \
	$(BIN)/svc-controller-manager --kubeconfig .svc-data/admin.kubeconfig --bind-address 127.0.0.1 & cm=$$!; \
	if [ "$(NODES)" != 0 ]; then $(BIN)/svc-nodes --kubeconfig .svc-data/admin.kubeconfig --count=$(NODES) & nodes=$$!; fi; \
	wait $$api

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

# The newest versions of everything, written to the locks, then the whole suite on them.
lock:
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet uv==$(UV_VERSION)
	$(COMPILE) --universal --extra test --extra etcd -o $(LOCK) pyproject.toml tools/lock/build.in
	$(COMPILE) --no-deps -o $(TOOLS_LOCK) tools/lock/test-tools.in
	$(MAKE) test
