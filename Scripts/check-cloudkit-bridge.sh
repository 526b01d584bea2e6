#!/usr/bin/env bash
# make check-cloudkit-bridge: type-checks PrivateSyncEngine with a stand-in `CloudKit` importable, so that the bridge
# to the real CKSyncEngine (Sources/PrivateSyncEngine/CloudKitBridge, all behind `#if canImport(CloudKit)`), which no
# Linux build compiles, is checked with warnings as errors on every `make test` (Scripts/CloudKitStandIn/README.md).
# Needs the debug build of PrivateSyncEngine's dependencies (make build).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFTC=${SWIFTC:-swiftc}
build=$(${SWIFT:-swift} build --show-bin-path)
modules="$build/Modules"
[ -d "$modules" ] || modules="$build"
[ -e "$modules/PrivateCloud.swiftmodule" ] || { echo "check-cloudkit-bridge: run make build first"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The stand-in, as a module named CloudKit, with library evolution as Apple builds it. (Its one warning, that Linux's
# Foundation is not built with library evolution, is about the stand-in's binary, which is never linked.)
"$SWIFTC" -emit-module -module-name CloudKit -parse-as-library -swift-version 6 -enable-library-evolution \
    -emit-module-path "$out/CloudKit.swiftmodule" Scripts/CloudKitStandIn/*.swift -module-cache-path "$out/cache" \
    2>&1 | grep -v "was not compiled with library evolution support" | grep -E "error|warning" -A3 \
    | sed 's/^/check-cloudkit-bridge (stand-in): /' || true
[ -e "$out/CloudKit.swiftmodule" ] || { echo "check-cloudkit-bridge: the stand-in did not compile"; exit 1; }

# The root package's identity, which SwiftPM passes as the package name: its folder's name, lowercased.
package=$(basename "$(pwd)" | tr '[:upper:]' '[:lower:]')
sources=$(find Sources/PrivateSyncEngine -name '*.swift' | sort)
bridge=$(find Sources/PrivateSyncEngine/CloudKitBridge -name '*.swift' | wc -l)
# shellcheck disable=SC2086
"$SWIFTC" -typecheck -module-name PrivateSyncEngine -parse-as-library -swift-version 6 \
    -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature MemberImportVisibility \
    -package-name "$package" -I "$out" -I "$modules" \
    -Xcc -fmodule-map-file="$(pwd)/Sources/CSQLite/module.modulemap" -module-cache-path "$out/cache" \
    -warnings-as-errors $sources
echo "check-cloudkit-bridge: PrivateSyncEngine type-checks with CloudKit importable ($bridge bridge files, no warning)"
