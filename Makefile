# Two commands for a fresh machine:
#   make lab    create .venv (first time only) and open the course in JupyterLab
#   make test   create .venv (first time only) and run the whole test suite
#   make test-all   the same suite on every Python 3.10-3.13 on this machine (tox)
# and for instructors: make lab-instructor (JupyterLab with nbgrader's tools).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: lab lab-instructor test test-all test-browser venv notebooks exercises bench clean

$(BIN)/activate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (bpe-course)" >/dev/null
	touch $(BIN)/activate

venv: $(BIN)/activate

# Jupyter refuses to run as root (containers, some cloud machines) unless told.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# JupyterLab rooted at the repository (notebooks/, exercises/ and solutions/ one click away)
# with chapter 01 open. tools/learner-lab/ switches nbgrader's extensions off for learners.
LAB_ARGS := $(ALLOW_ROOT) --ServerApp.root_dir="$(CURDIR)" \
	--LabApp.default_url=/lab/tree/notebooks/01_unicode_and_bytes.ipynb

lab: venv
	JUPYTER_CONFIG_PATH="$(CURDIR)/tools/learner-lab$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  $(BIN)/jupyter lab $(LAB_ARGS)

lab-instructor: venv
	$(BIN)/jupyter lab $(LAB_ARGS)

# The suite in up to 4 processes (one per core), each test file whole in one process: a
# notebook's cells and a file's shared fixtures stay together. PARALLEL= runs it in one.
PARALLEL ?= -n auto --maxprocesses=4 --dist loadfile
test: venv
	$(BIN)/python -m pytest $(PARALLEL)

# Only the browser tests (JupyterLab driven by headless Chromium; see CONTRIBUTING.md).
test-browser: venv
	$(BIN)/python -m pytest -m browser tests/notebooks/test_browser.py

# tox finds interpreters on PATH by name (python3.12, ...). pyenv's are not there by name
# unless selected, so hand tox those of pyenv's versions 3.10-3.13 that exist, if any.
PYENV_PYTHONS := $(wildcard $(shell pyenv root 2>/dev/null)/versions/3.1[0-3].*/bin/python3.1[0-3])
ENVS ?=
test-all: venv
	$(BIN)/python -m tox $(if $(ENVS),-e $(ENVS)) $(if $(PYENV_PYTHONS),--discover $(PYENV_PYTHONS))

# Re-execute every notebook and save its outputs (run after editing a notebook).
notebooks: venv
	$(BIN)/python tools/notebooks.py run

# Regenerate the student worksheets in exercises/ from solutions/.
exercises: venv
	$(BIN)/python -m bpe_course exercises

bench: venv
	$(BIN)/python benchmarks/encode_speed.py
	$(BIN)/python benchmarks/train_speed.py

clean:
	rm -rf $(VENV) build *.egg-info
