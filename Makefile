# simlib -- build, test and reproduction entry points (GNU make).
#
#   make venv        create $(VENV), install requirements.txt (JupyterLab and
#                    the notebook tooling included), register the `simlib`
#                    Jupyter kernel, link SimGrid's Python bindings
#   make lab         open JupyterLab on the repository (kernel `simlib`)
#   make test        run the test suite (pytest $(PYTEST_FLAGS); --longest-first: the
#                    longest tests first on the workers, tests/durations.json)
#   make test-fast   the developer tier: no notebooks, no SimGrid, no tests marked
#                    slow, Hypothesis profile `fast` (few examples per property);
#                    see tests/README.md for its measured time
#   make reproduce   execute every notebook (PROFILE=full by default), then
#                    print the claims-ledger summary.  Only PROFILE=full with
#                    default parameters writes the committed results (figures/,
#                    data/results/, notebooks/*.ipynb); PROFILE=quick writes to
#                    build/runs/<notebook>/<hash>/; a full run also writes
#                    requirements.lock (`pip freeze` of $(VENV))
#  make reproduce-check  after a reproduction: compare the committed result files
#                    (data/results/*.csv with the ledger, notebooks' outputs, figures/)
#                    with git revision $(CHECK_AGAINST) (default HEAD) column by column;
#                    prints "results identical" or the differing values; wall-clock
#                    measurements (data/measurements/) are not compared
#   make site        build the website of the committed executed notebooks
#                    (nothing re-run) into $(SITE_DIR): index, one page per
#                    notebook, the sortable claims ledger, every figure
#   make bench       run every benchmarks/bench_*.py
#   make warm        compile the numba kernels into numba's cache on every core
#                    (make test runs it first, make reproduce beside its first notebooks:
#                    decision S38; a no-op when current)
#   make clean       remove build/ and caches (keeps $(VENV))
#   make distclean   clean + remove $(VENV) and data/cache/
#
# Overridable: PYTHON (interpreter used to create the venv), VENV, WORKERS
# (passed to the notebooks as `workers`), JOBS (notebooks `make reproduce` runs at once,
# each paper's in order; default 2; decision S37), PROFILE (full|quick), PYTEST_FLAGS,
# NOTEBOOK_FLAGS (extra `python -m simlib.pipeline.notebooks` options, e.g. "--only 11_"),
# LAB_FLAGS (extra `jupyter lab` options, e.g. "--no-browser --port 8890"),
# SITE_DIR (where `make site` writes; default build/site), CHECK_AGAINST (the git revision
# `make reproduce-check` compares with; default HEAD).

PYTHON ?= python3
VENV ?= .venv
WORKERS ?=
JOBS ?= 2
PROFILE ?= full
PYTEST_FLAGS ?= -n 2 --longest-first
NOTEBOOK_FLAGS ?=
LAB_FLAGS ?=
SITE_DIR ?= build/site
CHECK_AGAINST ?= HEAD

VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
KERNEL_JSON := $(VENV)/share/jupyter/kernels/simlib/kernel.json
KERNEL_ROOT := $(VENV)/.kernel-checkout
# Put the in-tree package first on the path for everything run below.
RUN := PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}"

.DEFAULT_GOAL := help
.PHONY: help venv lab test test-fast reproduce reproduce-check site bench clean distclean FORCE

help:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

# --- environment ----------------------------------------------------------

$(VPY):
	$(PYTHON) -m venv $(VENV)

# Re-install only when requirements.txt is newer than the stamp.  Three steps (decision S42):
# 1. the pip pinned in requirements.txt (`pip==...`), installed first: Python 3.11's venv ships pip 23.2.1,
#    whose resolver spends most of its time judging every file on numpy's and scipy's long index pages;
#    the pinned newer pip resolves and installs the same versions (`pip freeze` identical) in about half the
#    time.  Without that line the venv's own pip installs (only slower).
# 2. every pin of requirements.txt, without pip's byte-compilation (one core, file by file) ...
# 3. ... which is then done for the whole site-packages on every core (`compileall`, the same .pyc files
#    pip would write: with PYTHONDONTWRITEBYTECODE set nothing else ever writes them, and every process
#    would compile its imports anew; a file that does not compile fails this step).
# Any step failing stops make before the stamp is touched: no half-installed venv counts as installed.
PIP_PIN = $(shell sed -n 's/^\(pip==[0-9][0-9a-z.]*\).*/\1/p' requirements.txt 2>/dev/null)
$(STAMP): requirements.txt | $(VPY)
	$(if $(PIP_PIN),$(VPY) -m pip install --disable-pip-version-check -q "$(PIP_PIN)")
	$(VPY) -m pip install --disable-pip-version-check -q --no-compile -r requirements.txt
	$(VPY) -c "import compileall, sys, sysconfig; \
		sys.exit(not compileall.compile_dir(sysconfig.get_path('purelib'), quiet=1, workers=0))"
	@touch $@

# The kernelspec runs $(VPY) with PYTHONPATH=$(CURDIR), so `import simlib`
# also works when a notebook is opened interactively from notebooks/.  That path
# is the checkout's, so $(KERNEL_ROOT) records it and is rewritten -- and the
# kernel registered again -- whenever make runs from another path (a moved or
# copied checkout, another worktree sharing the venv); otherwise it is left alone.
$(KERNEL_ROOT): FORCE | $(VPY)
	@test "$$(cat $@ 2>/dev/null)" = "$(CURDIR)" || printf '%s\n' "$(CURDIR)" > $@

$(KERNEL_JSON): $(STAMP) $(KERNEL_ROOT)
	$(VPY) -m ipykernel install --sys-prefix --name simlib \
		--display-name "Python (simlib)" --env PYTHONPATH "$(CURDIR)"

# The shim step is cheap and idempotent; it runs every time so that SimGrid
# bindings installed (or removed) after the venv was created are picked up.
venv: $(STAMP) $(KERNEL_JSON)
	@$(VPY) scripts/simgrid_shim.py

FORCE:

# --- targets ---------------------------------------------------------------

# The kernelspec puts the repository on PYTHONPATH; jupytext pairs each
# notebooks/NN_x.py with its .ipynb, so edits in either stay in sync.
# (--allow-root only when run as root, e.g. in a container.)
lab: venv
	$(RUN) $(VENV)/bin/jupyter lab --notebook-dir="$(CURDIR)" \
		--ServerApp.default_url=/lab/tree/notebooks/README.md \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_FLAGS)

test: venv
	$(RUN) $(VPY) -m pytest $(PYTEST_FLAGS)

# The tests while developing: what `make test` runs without the notebooks, the SimGrid
# cross-checks and the tests marked slow, with at most a few Hypothesis examples each
# (profile `fast`, tests/conftest.py).  Not a substitute for `make test` before a commit.
FAST_TESTS := -m "not notebooks and not simgrid and not slow" --hypothesis-profile fast
test-fast: venv
	$(RUN) $(VPY) -m pytest $(PYTEST_FLAGS) $(FAST_TESTS)

# A full run of every notebook starts a fresh claims ledger (--fresh-ledger), so
# claims a notebook no longer records (renamed or removed) do not linger; a
# partial run (NOTEBOOK_FLAGS="--only ...") updates its own rows in place.  The
# runner checks every argument before it deletes or writes anything.
# --warm: the runner compiles the numba kernels (`make warm`'s warm-up) and starts beside it, on the core it
# leaves idle, the notebooks whose kernel families are compiled already (decision S38).
reproduce: venv
	$(RUN) $(VPY) -m simlib.pipeline.notebooks --profile "$(PROFILE)" --warm \
		$(if $(strip $(WORKERS)),--workers "$(WORKERS)") --jobs "$(JOBS)" \
		$(if $(strip $(NOTEBOOK_FLAGS)),,$(if $(filter full,$(PROFILE)),--fresh-ledger)) $(NOTEBOOK_FLAGS)
	$(if $(filter full,$(PROFILE)),$(RUN) $(VPY) -m simlib claims)
	$(if $(filter full,$(PROFILE)),$(MAKE) --no-print-directory requirements.lock)

# Decision S27; `--report benchmarks/reference/<commit>_<date>_check.txt` keeps a reference run's report.
reproduce-check: | $(VPY)
	$(RUN) $(VPY) -m simlib.pipeline.check --against "$(CHECK_AGAINST)"

# The exact versions of the environment a full reproduction ran in (`pip freeze`), committed with its results,
# and the numerical kernels its processes dispatched to (decision S43: `make reproduce-check` names them when
# results differ).
requirements.lock: FORCE | $(VPY)
	{ echo "# pip freeze of the environment of the last full \`make reproduce\` ($$($(VPY) --version))" && \
	  $(RUN) $(VPY) -c "from simlib.pipeline import numerics as n; print(n.LOCK_PREFIX + n.numerics_identity())" && \
	  $(VPY) -m pip freeze --disable-pip-version-check --exclude-editable; } > $@.tmp && mv $@.tmp $@

# Reads notebooks/*.ipynb, data/results/claims.csv and figures/ as committed; checks
# SITE_DIR before writing (a new or empty folder, or a site built there before).
site: venv
	$(RUN) $(VPY) -m simlib.pipeline.site --out "$(SITE_DIR)"

# Compile every numba kernel the notebooks and tests use into numba's cache, one process per kernel family on
# every core, before `make test` runs (decision S33; `make reproduce` runs it beside its first notebooks, S38); a
# no-op while the cache is current.
.PHONY: warm
warm: venv
	$(RUN) $(VPY) -m simlib.pipeline.warm
test: warm

# Lists the scripts with an estimate from build/bench_times.csv (their last wall
# times), runs each, records its time and prints a table at the end.
bench: venv
	@$(RUN) $(VPY) benchmarks/run_benchmarks.py

clean:
	rm -rf build .setuptools-build .pytest_cache .hypothesis .cache dask-worker-space *.egg-info
	find . -path ./$(VENV) -prune -o -path ./.git -prune -o \
		\( -name __pycache__ -o -name .ipynb_checkpoints \) -type d -print0 \
		| xargs -0 rm -rf

distclean: clean
	rm -rf $(VENV) data/cache
