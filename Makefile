# tracekit: the two commands a new user needs.
#   make demo   install what is missing, build, run tracekit on a shipped trace
#               (info, cat, check, stats)
#   make test   install what is missing, build, run the whole test suite
#   make install  install the command, libtracekit.so and .a, the headers,
#               tracekit.pc, the CMake package and the Python package
#               (PREFIX/lib/python3.X/dist-packages) (PREFIX=/usr/local, DESTDIR)
#   make qemu-demo  the recorder in a firmware on an emulated Cortex-M3:
#               build it, run it in QEMU, read its recordings (info, check,
#               stats), stream 3 s in real time to tracekit record with
#               the live view served (tracekit live: its URL printed first;
#               on a terminal, served until Ctrl-C), compare the stream's
#               figures with its snapshot's (tracekit diff), print the
#               cost of one event and the footprint
# Options: SANITIZE=1 (ASan + UBSan build), COVERAGE=1 (gcov counts),
#          BUILD=dir, BUILD_TYPE=Debug|Release; CC=clang builds with clang
# CI (.ci/run) also uses: make coverage, make analyze, make tsan, make fuzz

BUILD ?= build
SANITIZE ?= 0
BUILD_TYPE ?= Release
CMAKE_FLAGS = -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
ifeq ($(SANITIZE),1)
CMAKE_FLAGS += -DTK_SANITIZE=ON
else
CMAKE_FLAGS += -DTK_SANITIZE=OFF
endif
COVERAGE ?= 0
ifeq ($(COVERAGE),1)
CMAKE_FLAGS += -DTK_COVERAGE=ON
else
CMAKE_FLAGS += -DTK_COVERAGE=OFF
endif
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DEMO_TRACE = examples/demo.btf

PREFIX ?= /usr/local

.PHONY: install all demo test test-full test-matrices qemu-demo qemu-deps deps test-deps ci-deps build fuzz tsan coverage coverage-report \
	analyze clean

all: build

deps:
	@sh scripts/install-deps.sh

test-deps:
	@TK_TEST_DEPS=1 sh scripts/install-deps.sh

ci-deps:
	@TK_TEST_DEPS=1 TK_CI_DEPS=1 sh scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/tracekit info $(DEMO_TRACE)
	./$(BUILD)/tracekit cat $(DEMO_TRACE) --entity Task_Control
	./$(BUILD)/tracekit check $(DEMO_TRACE)
	./$(BUILD)/tracekit stats $(DEMO_TRACE) --type T

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

qemu-deps:
	@TK_QEMU_DEPS=1 sh scripts/install-deps.sh

# the firmware and its recordings in $(BUILD)/qemu: trace.bin, trace.htf
qemu-demo: qemu-deps build
	@sh examples/qemu-cortex-m/demo.sh ./$(BUILD)/tracekit $(BUILD)/qemu

test: test-deps build
ifeq ($(COVERAGE),1)
	@find $(BUILD) -name '*.gcda' -delete
endif
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# the same suite with its matrices exhaustive (TK_TEST_FULL=1: every input of
# the transport matrices through every transport, every trace through the
# report's harness, ...); `make test` samples them
test-full: test-deps build
ifeq ($(COVERAGE),1)
	@find $(BUILD) -name '*.gcda' -delete
endif
	cd $(BUILD) && TK_TEST_FULL=1 ctest --output-on-failure -j $(JOBS)

# CI's Release step, after its sanitized step ran the whole suite: the
# tests with a sampled and a whole form (CTest label `matrix`), whole, and
# those whose checks are made in full only unsanitized (label `release`:
# peak memory, instruction counts, the largest sizes)
test-matrices: test-deps build
	cd $(BUILD) && TK_TEST_FULL=1 ctest --output-on-failure -j $(JOBS) -L '^(matrix|release)$$'

# line and branch coverage of src/ under the whole test suite (gcov counts
# of a Debug build, gcovr): totals, a table per file, a page per file in
# $(COV_BUILD)/coverage/; fails below the floors, which are the figures
# measured when they were last set less half a point: raise them as tests
# are added.
# The build is CI's sanitized one (-O1, ASan + UBSan, gcov counts: CI
# runs `make test SANITIZE=1 COVERAGE=1` and then `make coverage-report`),
# so one run checks both; its branches include UBSan's checks, which a
# passing run never takes.
COV_BUILD ?= build-cov
COV_LINES ?= 91.3
COV_BRANCHES ?= 71.4
coverage: ci-deps
	@$(MAKE) --no-print-directory test COVERAGE=1 BUILD=$(COV_BUILD) BUILD_TYPE=Debug SANITIZE=1
	@$(MAKE) --no-print-directory coverage-report
coverage-report: ci-deps
	@sh scripts/coverage.sh $(COV_BUILD) $(COV_LINES) $(COV_BRANCHES)

# clang's static analyzer over src/ and recorder/ (scripts/analyze.sh): each
# finding with its path; fails when there is any
ANALYZE_BUILD ?= build-analyze
analyze: ci-deps
	@CC=clang cmake -S . -B $(ANALYZE_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_SANITIZE=OFF \
		-DTK_COVERAGE=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
	@sh scripts/analyze.sh $(ANALYZE_BUILD) $(JOBS)

# the tests whose code runs on more than one thread, under ThreadSanitizer:
# the recorder's cores, as threads of the host port; the library's objects
# on several threads; tk_jobs_run() and tracekit dataset -j on it (the
# readers run on the caller's thread alone)
TSAN_BUILD ?= build-tsan
TSAN_TESTS ?= ^(recorder\.(host|htf)|unit\.(temps|threads|jobs)|format\.parquet\.dataset_jobs)$$
tsan: test-deps
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_SANITIZE=OFF \
		-DCMAKE_C_FLAGS="-fsanitize=thread -O1 -g" \
		-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target test_recorder test_recorder_htf test_temps test_threads test_jobs \
		tracekit
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure \
		-j $(JOBS) -R '$(TSAN_TESTS)'

# libFuzzer run of every reader for FUZZ_SECONDS each (clang)
FUZZ_SECONDS ?= 60
fuzz: test-deps
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-fuzz $(TSAN_BUILD) $(COV_BUILD) $(ANALYZE_BUILD)
