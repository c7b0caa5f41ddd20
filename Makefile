# The two commands README.md promises: `make demo` and `make test`. Both install what is missing
# first (scripts/install.sh), so they work on a fresh Debian 12 machine.
.PHONY: all deps build demo test test-unit test-asan test-fuzz bench bench-tpch format clean

JOBS ?= $(shell nproc)
BUILD := build/default
TANDEM := $(BUILD)/tandem

all: build

deps:
	@scripts/install.sh

build: deps
	@cmake --preset default >/dev/null
	@cmake --build --preset default -j $(JOBS)

demo: build
	@scripts/demo.sh

test: build
	@scripts/test.sh

# Pieces of `make test`, for use by hand.
test-unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
test-asan: deps
	@scripts/test.sh asan
test-fuzz: deps
	@scripts/test.sh fuzz

bench: build
	@scripts/bench.sh

bench-tpch: build
	@scripts/bench_tpch.sh

format:
	@find src tests bench fuzz -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cpp' | xargs clang-format -i

clean:
	rm -rf build
