# PrivateSync: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
SOURCES := Sources Simulator Examples
FORMAT_PATHS := Sources Tests Simulator Examples Scripts/CloudKitStandIn
BIN_DEBUG := .build/debug

.PHONY: all build test suites short-sweep lint format check-network check-imports check-layering check-portability \
	check-cloudkit-bridge check-mutants docs \
	demo bench sweep torture mutants embed-schema clean

all: build

## build: the debug build of every product; a compiler warning fails it (Scripts/build-without-warnings.sh).
build:
	@bash Scripts/build-without-warnings.sh $(SWIFT)

## test: lint, the no-network, import, layering and portability checks, the build, the documentation (make docs),
## every suite (unit, conformance, exit, integration) and a short sweep; each stage's time is printed as it ends and
## in a table at the end (Scripts/run-stages.sh), so that CI's log shows which stage grew.
TEST_STAGES := lint check-network check-imports check-layering check-mutants build check-portability docs suites \
	short-sweep
test:
	@bash Scripts/run-stages.sh "$(MAKE)" $(TEST_STAGES)

## suites: every Swift Testing suite of Tests/, after the build of the test targets (a compiler warning fails it).
suites: build
	@bash Scripts/build-without-warnings.sh $(SWIFT) --build-tests
	$(SWIFT) test --skip-build

## short-sweep: make test's sweep, 300 seeds in memory on the debug build, in two shards at once (one per core),
## merged: the merge exits 1 if any seed failed and refuses a missing shard (a shard that crashed).
SHORT_SWEEP := .build/short-sweep
short-sweep: build
	@rm -rf $(SHORT_SWEEP) && mkdir -p $(SHORT_SWEEP)
	@$(BIN_DEBUG)/privatesync simulate --seeds 300 --shard 0/2 --json > $(SHORT_SWEEP)/shard-0.json & \
	$(BIN_DEBUG)/privatesync simulate --seeds 300 --shard 1/2 --json > $(SHORT_SWEEP)/shard-1.json & \
	wait
	$(BIN_DEBUG)/privatesync simulate merge $(SHORT_SWEEP)/shard-0.json $(SHORT_SWEEP)/shard-1.json

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

## check-imports: the package imports FoundationEssentials where it exists, so the CLI starts fast (see
## docs/benchmarks.md), and Foundation only where it does not (Apple's SDKs have no FoundationEssentials), always
## behind `#if canImport(FoundationEssentials)`. A file that needs the whole Foundation (NSCoder, NSNumber: the
## PrivateSyncEngine library, which the CLI does not link) imports it unguarded and says why on the import's line.
check-imports:
	@if grep -rnE '^(@_exported )?((public|package) )?import Foundation(Essentials)?[[:space:]]*$$' --include='*.swift' $(SOURCES); then \
		echo "check-imports: import FoundationEssentials behind #if canImport(FoundationEssentials), Foundation in its #else"; \
		echo "check-imports: (or the whole Foundation, with a comment on the import's line that says why)"; \
		exit 1; fi; \
	echo "check-imports: FoundationEssentials where it exists, guarded; the whole Foundation only where a comment says why"

## check-layering: each module imports exactly what README's module table says it may (Scripts/check-layering.py).
check-layering:
	@python3 Scripts/check-layering.py

## check-portability: what would not build on Apple platforms, found without a Mac: an unguarded platform import, a
## Glibc branch without its Darwin one, a Linux-only path outside #if os(Linux), process spawning in the library
## products outside #if os(macOS) || os(Linux), a Glibc-only name (st_mtim, pipe2, RUSAGE_SELF.rawValue ...) in code
## macOS or iOS would compile and a Darwin-only one (st_mtimespec, F_FULLFSYNC ...) in code Linux would compile
## (Scripts/check-portability.py; README, Apple platforms). Its --self-test runs first: snippets with known answers,
## so a rule that stops flagging fails here.
## It also type-checks the bridge to the real CKSyncEngine, which no Linux build compiles, against a stand-in of
## CloudKit's signatures (check-cloudkit-bridge): so it runs after the build.
check-portability: build
	@python3 Scripts/check-portability.py --self-test
	@python3 Scripts/check-portability.py
	@SWIFT=$(SWIFT) bash Scripts/check-cloudkit-bridge.sh

## check-cloudkit-bridge: PrivateSyncEngine type-checked with a stand-in `CloudKit` importable (Scripts/CloudKitStandIn),
## so that its `#if canImport(CloudKit)` bridge is checked on Linux, warnings as errors.
check-cloudkit-bridge: build
	@SWIFT=$(SWIFT) bash Scripts/check-cloudkit-bridge.sh

## check-mutants: every known bug of Mutants/ still applies to the tree as a patch, with a whole header (a second;
## `make mutants` proves each is caught).
check-mutants:
	@python3 Scripts/mutants.py --check

## docs: the DocC catalog of the library products, with the toolchain's docc from the compiler's symbol graphs,
## warnings as errors, every public symbol documented; into .build/docs/PrivateSync.doccarchive (Scripts/build-docs.sh).
docs: build
	@SWIFT=$(SWIFT) bash Scripts/build-docs.sh

## demo: a scripted walk through a fresh world in a temporary folder (see docs/cli.md).
demo: build
	@$(BIN_DEBUG)/privatesync demo

## bench: every figure of docs/benchmarks.md, each a ratio against a baseline measured in the same run (release build,
## the Swift runtime linked statically as a shipped CLI would be).
## The CLI is measured as it would ship on Linux: one static executable, so that a command starts with no dynamic
## loader (which was half of `sync status`'s 6.8 million instructions: symbol lookups and relocations). It is built
## in a folder of its own, since its flags differ from the other release products'. Elsewhere, the Swift runtime
## linked statically.
STATIC_EXECUTABLE := $(if $(filter Linux,$(shell uname -s)),-Xswiftc -static-executable,)
bench:
	$(SWIFT) build -c release --static-swift-stdlib $(STATIC_EXECUTABLE) --build-path .build/static --product privatesync
	$(SWIFT) build -c release --static-swift-stdlib --product privatesync-bench
	.build/release/privatesync-bench --cli $(CURDIR)/.build/static/release/privatesync

## torture: the kill (200 SIGKILLs), corruption, bad-input, hostile-input (every value in every slot), disk-full,
## files (every garbage case, 200 races, 150 signals) and many-processes (every workload at 8 times its rounds)
## torture suites (make test runs 20 kills, a rotating seventh of the hostile values, 12 garbage cases, 20 races,
## 15 signals, each many-processes workload once).
torture: build
	PRIVATESYNC_TORTURE_KILLS=200 PRIVATESYNC_TORTURE_HOSTILE=all PRIVATESYNC_TORTURE_GARBAGE=all \
		PRIVATESYNC_TORTURE_RACES=200 PRIVATESYNC_TORTURE_SIGNALS=150 PRIVATESYNC_TORTURE_PROCESSES=8 \
		$(SWIFT) test --filter 'Torture|CLIBadInputTests'

## sweep: a long simulator sweep on the release build: 10,000 seeds in memory, then 1,000 on SQLite files; then
## the same for the delegate sweep of Apple's sample delegate, and for the demo app through the CKSyncEngine-shaped
## engine, under the even mix and under the swarm, which also crashes it inside its own writes; then 2,000 seeds of
## the app simulator over the delegate's build (docs/simulator.md, "Sweeping your own delegate", "The swarm", "The
## demo app through the CKSyncEngine-shaped engine" and "The app simulator over the delegate's build").
sweep:
	$(SWIFT) build -c release --static-swift-stdlib --product privatesync
	$(SWIFT) build -c release --static-swift-stdlib --product privatesync-bench
	.build/release/privatesync simulate --seeds 10000
	.build/release/privatesync simulate --seeds 1000 --backend file
	.build/release/privatesync-bench delegate-sweep 10000
	.build/release/privatesync-bench delegate-sweep 1000 0/1 files
	.build/release/privatesync simulate --engine cksyncengine --seeds 10000
	.build/release/privatesync simulate --engine cksyncengine --seeds 1000 --backend file
	.build/release/privatesync simulate --engine cksyncengine --swarm --seeds 10000
	.build/release/privatesync simulate --engine cksyncengine --swarm --seeds 1000 --backend file
	.build/release/privatesync simulate --build cksyncengine --seeds 2000

## mutants: each known bug of the engine, the launch code and the stores (Mutants/*.patch) applied to a scratch copy
## of the package, built, and caught by the simulator alone within 300 seeds by an invariant its header names; a bug
## of the demo app's mirror (Engine: cksyncengine) by the delegate sweep, each seed under the even mix and the swarm,
## with outages and without, then by the app simulator over the delegate's build; one no sweep reaches must fail its
## scenario test (Pinned-by), said PINNED ONLY (Scripts/mutants.py; docs/simulator.md).
## CI runs it after make test.
mutants:
	@SWIFT=$(SWIFT) python3 Scripts/mutants.py

clean:
	rm -rf .build

## embed-schema: regenerate the demo schema compiled into the package from its JSON file (a test checks they agree).
embed-schema:
	@{ printf '// Generated by `make embed-schema` from DemoHealthSchema.json, the source of truth. Do not edit.\n\n'; \
	   printf 'extension SyncPartition {\n    /// The demo schema'"'"'s JSON, as in `Sources/DemoSchema/DemoHealthSchema.json`.\n'; \
	   printf '    public static let demoHealthSchemaJSON = #"""\n'; \
	   sed "s/^/    /" Sources/DemoSchema/DemoHealthSchema.json; \
	   printf '    """#\n}\n'; } > Sources/DemoSchema/SyncPartition+DemoHealthSchema.swift
