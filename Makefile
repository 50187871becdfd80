# Two commands for a fresh machine:
#   make lab    create .venv (first time only) and open the course in JupyterLab
#   make test   create .venv (first time only) and run the whole test suite
#   make test-all   the same suite on every Python 3.10-3.13 on this machine (tox)
# and for instructors: make lab-instructor (JupyterLab with nbgrader's tools).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: home lab lab-instructor lint test test-all test-browser venv dev notebooks exercises bench site clean

# Two layers in one .venv: `make lab` installs what a learner needs (the package with the
# "learn" extra: JupyterLab and a kernel); `make test` adds the "dev" extra (the test tools)
# and the "site" extra (the website's builder, which tests/test_site.py runs).
# The kernel is ipykernel's, under ipykernel's names ("python3", "Python 3 (ipykernel)"), as
# every notebook stores it, and it reports no exact Python version (which the notebooks leave
# out), so opening a notebook changes nothing in it: see tools/learner-lab/kernel.py.
$(BIN)/activate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[learn]"
	$(BIN)/python tools/learner-lab/kernel.py install
	rm -f $(VENV)/.dev $(VENV)/.instructor
	touch $(BIN)/activate

$(VENV)/.dev: $(BIN)/activate
	$(BIN)/python -m pip install --quiet -e ".[learn,dev,site]"
	touch $(VENV)/.dev

venv: $(BIN)/activate
dev: $(VENV)/.dev

# Jupyter refuses to run as root (containers, some cloud machines) unless told.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# JupyterLab rooted at the repository (notebooks/, exercises/ and solutions/ one click away)
# with chapter 01 open. tools/learner-lab/ switches nbgrader's extensions off for learners.
LAB_ARGS := $(ALLOW_ROOT) --ServerApp.root_dir="$(CURDIR)" \
	--LabApp.default_url=/lab/tree/notebooks/01_unicode_and_bytes.ipynb

lab: venv
	JUPYTER_CONFIG_PATH="$(CURDIR)/tools/learner-lab$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  $(BIN)/jupyter lab $(LAB_ARGS)

$(VENV)/.instructor: $(BIN)/activate
	$(BIN)/python -m pip install --quiet -e ".[learn,instructor]"
	touch $(VENV)/.instructor

lab-instructor: venv $(VENV)/.instructor
	$(BIN)/jupyter lab $(LAB_ARGS)

# The suite in up to 4 processes (one per core), each test file whole in one process: a
# notebook's cells and a file's shared fixtures stay together. PARALLEL= runs it in one.
PARALLEL ?= -n auto --maxprocesses=4 --dist loadfile
test: dev lint
	$(BIN)/python -m pytest $(PARALLEL)

# pyflakes' rules and import order (pyproject.toml's [tool.ruff]), in a second.
lint: dev
	$(BIN)/python -m ruff check .

# Only the browser tests (JupyterLab driven by headless Chromium; see CONTRIBUTING.md).
test-browser: dev
	$(BIN)/python -m pytest -m browser tests/notebooks/test_browser.py tests/classroom/grading/test_class_mistakes.py

# tox finds interpreters on PATH by name (python3.12, ...). pyenv's are not there by name
# unless selected, so hand tox those of pyenv's versions 3.10-3.13 that exist, if any.
PYENV_PYTHONS := $(wildcard $(shell pyenv root 2>/dev/null)/versions/3.1[0-3].*/bin/python3.1[0-3])
ENVS ?=
test-all: dev
	$(BIN)/python -m tox $(if $(ENVS),-e $(ENVS)) $(if $(PYENV_PYTHONS),--discover $(PYENV_PYTHONS))

# Re-execute every notebook and save its outputs (run after editing a notebook).
notebooks: dev
	$(BIN)/python tools/notebooks.py run

# Regenerate the student worksheets in exercises/ from solutions/.
exercises: dev
	$(BIN)/python -m bpe_course exercises

bench: dev
	$(BIN)/python benchmarks/encode_speed.py
	$(BIN)/python benchmarks/train_speed.py

# The course's website, from the stored notebooks, into _site/ (offline; tools/website.py).
# Preview: .venv/bin/python -m http.server -d _site   (then open http://127.0.0.1:8000)
site: dev
	$(BIN)/python tools/website.py _site

# Move the course's home (the repository the Colab badges open and the setup cells install
# from): rewrites course.py, every badge and setup cell, the worksheets, README and pyproject.
# It needs the package and nbformat alone, not JupyterLab: it uses .venv/ when `make lab` made
# it, else a small environment of its own (.venv-home/).
BRANCH ?= main
HOME_VENV := .venv-home
home:
	@test -n "$(REPO)" || { echo "usage: make home REPO=owner/name [BRANCH=main]" >&2; exit 2; }
	@if [ -x $(BIN)/python ]; then py=$(BIN)/python; else \
	    py=$(HOME_VENV)/bin/python; \
	    [ -x $$py ] || { $(PYTHON) -m venv $(HOME_VENV) && \
	                    $$py -m pip install --quiet -e . nbformat; } || exit 1; \
	fi; \
	$$py tools/home.py "$(REPO)" "$(BRANCH)"

clean:
	rm -rf $(VENV) $(HOME_VENV) build _site *.egg-info
