# PrivateSync: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
SOURCES := Sources Simulator
FORMAT_PATHS := Sources Tests Simulator
BIN_DEBUG := .build/debug

.PHONY: all build test unit lint format check-network check-imports demo bench sweep torture clean

all: build

build:
	$(SWIFT) build

## test: lint, the no-network check, the build, then every suite (unit, conformance, exit, integration).
test: lint check-network check-imports build
	$(SWIFT) test

## lint: swift-format in lint mode over every Swift file; any finding fails.
lint:
	@out=$$($(SWIFT) format lint --strict -r $(FORMAT_PATHS) 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; echo "lint: swift format found problems (run 'make format')"; exit 1; fi; \
	echo "lint: clean"

format:
	$(SWIFT) format -i -r $(FORMAT_PATHS)

## check-network: the package opens no network connection; no source may even name the APIs.
check-network:
	@if grep -rnE 'URLSession|URLRequest|FoundationNetworking' --include='*.swift' $(SOURCES); then \
		echo "check-network: network API found in the package (it must have none)"; exit 1; fi; \
	echo "check-network: no network code"

## check-imports: the package imports FoundationEssentials only, so the CLI starts fast (see docs/benchmarks.md).
check-imports:
	@if grep -rnE '^import Foundation$$|^@_exported import Foundation$$' --include='*.swift' $(SOURCES); then \
		echo "check-imports: import FoundationEssentials instead of Foundation in the package"; exit 1; fi; \
	echo "check-imports: FoundationEssentials only"

demo: build
	@echo "The demo arrives with the CLI (issue 5); the container library is built."

bench:
	@echo "Benchmarks arrive with issue 7."

clean:
	rm -rf .build
