# efc-tui: `make run` and `make test` work on a fresh machine with Python 3.11 and pip.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SAMPLE := sample_traces/noisy_high_budget.jsonl
LINTED := efc_tui tests bench hatch_build.py

.PHONY: run test check lint format sanitize sanitize-quick bench clean fit-default estimator estimator-real golden adapter-report

# the compiled fast path is built at install (hatch_build.py): reinstall when it changes
$(BIN)/efc-tui: pyproject.toml hatch_build.py efc_tui/_speedups.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.dev: pyproject.toml hatch_build.py efc_tui/_speedups.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@ $(BIN)/efc-tui

## run: install and open the replay app on a bundled sample trace
run: $(BIN)/efc-tui
	$(BIN)/efc-tui open $(SAMPLE)

## test: install dev extras, check lint, formatting, types and layers, run the whole test suite,
## then the compiled path's quick sanitizer job (sanitize-quick)
test: lint
	$(BIN)/python -m pytest
	@$(MAKE) --no-print-directory sanitize-quick

## sanitize-quick: what `make test` runs of `sanitize` (about 70 s): the compiled path's own
## tests and 20 s of the differential fuzz target under ASan + UBSan. Skipped, saying why,
## where the extension is not in use (no C compiler at install: the pure-Python path runs
## and there is no C to check) or the compiler has no AddressSanitizer runtime.
SAN_QUICK_TESTS := tests/compiled/test_speedups.py tests/compiled/test_status_prefilters.py
sanitize-quick: $(VENV)/.dev
	@if ! $(BIN)/python -c 'import sys; from efc_tui import _fast; sys.exit(_fast.speedups() is None)'; then \
		echo "sanitize-quick: skipped: the compiled extension is not in use here (no C to check)"; \
	elif ! case "$$($${CC:-cc} -print-file-name=libasan.so 2>/dev/null)" in /*) true;; *) false;; esac; then \
		echo "sanitize-quick: skipped: the C compiler has no AddressSanitizer runtime (libasan)"; \
	else $(MAKE) --no-print-directory sanitize SAN_TESTS="$(SAN_QUICK_TESTS)" FUZZ_SECONDS=20; fi

## check: what CI runs (make test), and the compiled path under the sanitizers and the fuzzer
check: test sanitize

## sanitize: build the compiled fast path with AddressSanitizer + UndefinedBehaviorSanitizer
## into a temporary folder (hatch_build.py takes CFLAGS/LDFLAGS; -Werror as always) and run
## against it (EFC_TUI_SPEEDUPS, efc_tui/_fast.py; libasan preloaded, as the interpreter is
## not built with it) the tests of the compiled path, then the differential fuzz target
## (bench/fuzz_bench.py: mutated logs through both paths) for FUZZ_SECONDS. Any sanitizer
## report, crash or difference fails the run. `make test` runs a shorter one (sanitize-quick).
FUZZ_SECONDS ?= 60
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SAN_TESTS := tests/compiled/test_speedups.py tests/compiled/test_native_lines.py \
	tests/compiled/test_hostile_inputs.py tests/compiled/test_fuzz_diff.py \
	tests/compiled/test_status_prefilters.py tests/readers/test_native.py \
	tests/unit/test_features.py tests/unit/test_adapter.py
sanitize: $(VENV)/.dev
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	so="$$tmp/_speedups$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"; \
	CFLAGS="-O1 -g $(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" $(BIN)/python -c \
		'import sys, hatch_build; from pathlib import Path; why = hatch_build.build_extension(Path("efc_tui/_speedups.c"), Path(sys.argv[1])); sys.exit(why)' "$$so"; \
	export EFC_TUI_SPEEDUPS="$$so" LD_PRELOAD="$$($${CC:-cc} -print-file-name=libasan.so)" \
		PYTHONMALLOC=malloc ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; \
	$(BIN)/python -c 'import os; from efc_tui import _fast; m = _fast.speedups(); \
		assert m is not None and m.__file__ == os.environ["EFC_TUI_SPEEDUPS"], _fast.STATUS'; \
	echo "sanitize: $$so (ASan + UBSan) in use"; \
	$(BIN)/python -m pytest -q -p no:cacheprovider $(SAN_TESTS) $(SAN_PYTEST_ARGS); \
	$(BIN)/python bench/fuzz_bench.py --seconds $(FUZZ_SECONDS)

## lint: ruff's rules, ruff's formatting of every Python file and Markdown code block
## (checked, never rewritten), mypy (~15 s) and the import contracts (the layers,
## [tool.importlinter] in pyproject.toml)
lint: $(VENV)/.dev
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

## format: apply ruff's formatting and its safe fixes
format: $(VENV)/.dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix $(LINTED)

## golden: rewrite every golden output (tests/golden/) from the current code; review the diff
golden: $(VENV)/.dev
	EFC_GOLDEN_UPDATE=1 $(BIN)/python -m pytest -q tests/golden/test_outputs.py

bench: $(VENV)/.dev
	$(BIN)/python bench/startup_bench.py
	$(BIN)/python bench/score_bench.py
	$(BIN)/python bench/adapter_bench.py
	$(BIN)/python bench/fit_bench.py
	$(BIN)/python bench/simulate_bench.py
	$(BIN)/python bench/app_bench.py
	$(BIN)/python bench/open_bench.py
	$(BIN)/python bench/open_instructions.py
	$(BIN)/python bench/dask_bench.py
	$(BIN)/python bench/folder_bench.py

## fit-default: regenerate efc_tui/data/default_fit.json and the table in docs/fitting.md
## from the default synthetic corpus, and default_fit_real.json from ../shared/real-runs and
## ../shared/real-runs-grouped (see docs/fitting.md)
fit-default: $(VENV)/.dev
	$(BIN)/python -m efc_tui.fitting.reproduce

## estimator: regenerate efc_tui/data/estimator.json, the shipped estimator, from the
## default synthetic corpus (seed 7; see docs/calibration.md), then the default fit that
## depends on it
estimator: $(VENV)/.dev
	rm -rf build/estimator-corpus
	$(BIN)/efc-tui simulate -o build/estimator-corpus --seed 7 --quiet
	$(BIN)/efc-tui calibrate build/estimator-corpus -o efc_tui/data/estimator.json \
		--note "make estimator (docs/calibration.md)"
	$(MAKE) estimator-real
	$(MAKE) fit-default

## adapter-report: regenerate the adapter's figures in docs/adapter.md (synthetic corpus and
## ../shared/real-runs, in-sample and leave one real source out; see docs/adapter.md)
adapter-report: $(VENV)/.dev
	$(BIN)/python -m efc_tui.adapter.reproduce --write

## estimator-real: regenerate efc_tui/data/estimator_real.json (the shipped estimator's θ,
## task demand calibrated on the labeled real runs in ../shared/real-runs and
## ../shared/real-runs-grouped)
estimator-real: $(VENV)/.dev
	$(BIN)/efc-tui calibrate ../shared/real-runs ../shared/real-runs-grouped --from outcomes --quiet \
		-o efc_tui/data/estimator_real.json --note "make estimator-real (docs/calibration.md)"

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info
