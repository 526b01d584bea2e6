#!/usr/bin/env bash
# make docs: the DocC catalog of the library products, built with the toolchain's docc from the compiler's symbol
# graphs, warnings treated as errors, and every public symbol documented.
#
# 1. `swift package dump-symbol-graph` extracts each module's public symbols from the debug build.
# 2. `Scripts/doc-coverage.py` fails on any public symbol without a doc comment.
# 3. `docc convert --warnings-as-errors` builds one archive per module, in dependency order, each resolving its
#    links to the ones below it (`--dependency`), then `docc merge` combines them into .build/docs/PrivateSync.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
# The modules of the library products (PrivateCloud, PrivateCloudFaults, DeviceStore, PrivateSync, PrivateSyncTesting,
# PrivateSyncEngine, PrivateSyncEngineTesting)
# and every module whose public types their APIs name: PrivateSyncDeterminism (the clocks), PrivateSyncHTML (the
# pages' escaper, which SimulatedWorld re-exports), DemoSchema,
# DeviceSimulation, SimulatedWorld (PrivateSyncTesting's), and the one public type each of PrivateSyncFileSystem and
# PrivateSyncSQLite has (FileSystemError, Durability, which the products re-export). Each has a catalog,
# Sources/<module>/<module>.docc, and they are built in dependency order. PrivateSyncJSON is all `package`.
MODULES=(PrivateSyncFileSystem PrivateSyncSQLite PrivateSyncDeterminism PrivateSyncHTML PrivateCloud PrivateCloudFaults
    DeviceStore DemoSchema DeviceSimulation PrivateSync SimulatedWorld PrivateSyncTesting PrivateSyncEngine
    PrivateSyncEngineTesting PartitionMirror)
COVERED=("${MODULES[@]}")

if [ -z "${DOCC:-}" ]; then
    toolchain=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")
    if [ -x "$toolchain/docc" ]; then DOCC=$toolchain/docc
    elif command -v xcrun >/dev/null 2>&1; then DOCC=$(xcrun --find docc)
    else DOCC=docc; fi
fi

out=.build/docs
rm -rf "$out"
mkdir -p "$out/symbol-graphs" "$out/archives"

# The command exits non-zero when it cannot load a module it was not asked for but finds anyway: in a fresh clone the
# test targets' modules (PrivateSyncPackageTests, ...) have not been built. What matters is that every module
# documented here has its graph, which is checked below, so its exit status is not.
$SWIFT package dump-symbol-graph --skip-synthesized-members > "$out/dump-symbol-graph.log" 2>&1 || true
graphs=$(sed -n 's/^Files written to //p' "$out/dump-symbol-graph.log")
[ -n "$graphs" ] || { cat "$out/dump-symbol-graph.log"; echo "docs: no symbol graphs"; exit 1; }
for module in "${MODULES[@]}"; do
    [ -s "$graphs/$module.symbols.json" ] ||
        { cat "$out/dump-symbol-graph.log"; echo "docs: no symbol graph for $module"; exit 1; }
done

python3 Scripts/doc-coverage.py "$graphs" "${COVERED[@]}"

dependencies=()
for module in "${MODULES[@]}"; do
    mkdir -p "$out/symbol-graphs/$module"
    cp "$graphs/$module".symbols.json "$out/symbol-graphs/$module/"
    for extension in "$graphs/$module"@*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$out/symbol-graphs/$module/"
    done
    "$DOCC" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$out/symbol-graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "com.example.privatesync.$module" \
        --output-dir "$out/archives/$module.doccarchive" \
        --warnings-as-errors --enable-experimental-external-link-support "${dependencies[@]}" \
        > "$out/$module.log" 2>&1 || { cat "$out/$module.log"; echo "docs: $module failed"; exit 1; }
    grep -iE "warning|error" "$out/$module.log" && { echo "docs: $module has diagnostics"; exit 1; }
    dependencies+=(--dependency "$out/archives/$module.doccarchive")
done

"$DOCC" merge "$out"/archives/*.doccarchive --synthesized-landing-page-name PrivateSync \
    --output-path "$out/PrivateSync.doccarchive" > "$out/merge.log" 2>&1 || { cat "$out/merge.log"; exit 1; }
echo "docs: ${MODULES[*]} built without a warning into $out/PrivateSync.doccarchive"
