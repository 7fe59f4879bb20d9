# tracekit: the two commands a new user needs.
#   make demo   install what is missing, build, run tracekit on a shipped trace
#               (info, cat, check, stats)
#   make test   install what is missing, build, run the whole test suite
# Options: SANITIZE=1 (ASan + UBSan build), BUILD=dir, BUILD_TYPE=Debug|Release

BUILD ?= build
SANITIZE ?= 0
BUILD_TYPE ?= Release
CMAKE_FLAGS = -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
ifeq ($(SANITIZE),1)
CMAKE_FLAGS += -DTK_SANITIZE=ON
else
CMAKE_FLAGS += -DTK_SANITIZE=OFF
endif
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DEMO_TRACE = examples/demo.btf

.PHONY: all demo test deps test-deps build fuzz tsan clean

all: build

deps:
	@sh scripts/install-deps.sh

test-deps:
	@TK_TEST_DEPS=1 sh scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/tracekit info $(DEMO_TRACE)
	./$(BUILD)/tracekit cat $(DEMO_TRACE) --entity Task_Control
	./$(BUILD)/tracekit check $(DEMO_TRACE)
	./$(BUILD)/tracekit stats $(DEMO_TRACE) --type T

test: test-deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# the tests of the readers' second thread under ThreadSanitizer
TSAN_BUILD ?= build-tsan
tsan: test-deps
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_SANITIZE=OFF \
		-DCMAKE_C_FLAGS="-fsanitize=thread -O1 -g" \
		-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target tracekit test_reader_threads \
		test_readahead shark_warn_order shark_gen shark_shrink
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure \
		-j $(JOBS) -R 'threads'

# libFuzzer run of every reader for FUZZ_SECONDS each (clang)
FUZZ_SECONDS ?= 60
fuzz: test-deps
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-fuzz $(TSAN_BUILD)
