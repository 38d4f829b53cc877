# The two commands a newcomer needs: `make run` and `make test`.
# Each creates or refreshes the virtual environment in .venv when pyproject.toml changes.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# the tests also train one step and export it: torch (a CPU build, pinned) and onnx
$(VENV)/.installed-train: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[dev,train]'
	touch $@

run: $(VENV)/.installed
	$(BIN)/yamscope serve

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint $(VENV)/.installed-train
	$(BIN)/pytest

bench: $(VENV)/.installed
	taskset -c 0 $(BIN)/yamscope bench
