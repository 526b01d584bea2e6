// swift-tools-version: 6.2
import PackageDescription

/// Every target: an import is internal unless it says `public` (so a module's public API names only its own types
/// and those of the modules it re-exports on purpose), and a member is visible only in files that import its module.
/// `make check-layering` checks the imports themselves against README's module table.
let layering: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "PrivateSync",
    platforms: [.macOS(.v15), .iOS(.v18)],  // Mutex (Synchronization) needs both
    products: [
        .library(name: "PrivateCloud", targets: ["PrivateCloud"]),
        .library(name: "PrivateCloudFaults", targets: ["PrivateCloudFaults"]),
        .library(name: "DeviceStore", targets: ["DeviceStore"]),
        .library(name: "PrivateSync", targets: ["PrivateSync"]),
        .library(name: "PrivateSyncTesting", targets: ["PrivateSyncTesting"]),
        .library(name: "PrivateSyncEngine", targets: ["PrivateSyncEngine"]),
        .library(name: "PrivateSyncEngineTesting", targets: ["PrivateSyncEngineTesting"]),
        .library(name: "PartitionMirror", targets: ["PartitionMirror"]),
        .executable(name: "privatesync", targets: ["PrivateSyncCLI"]),
        .executable(name: "privatesync-bench", targets: ["PrivateSyncBench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "PrivateSyncFileSystem", swiftSettings: layering),
        .target(
            name: "PrivateSyncSQLite", dependencies: ["CSQLite", "PrivateSyncFileSystem"], swiftSettings: layering),
        .target(name: "PrivateSyncJSON", swiftSettings: layering),
        .target(name: "PrivateSyncDeterminism", swiftSettings: layering),
        .target(name: "PrivateSyncHTML", swiftSettings: layering),
        .target(
            name: "PrivateCloud",
            dependencies: ["PrivateSyncDeterminism", "PrivateSyncJSON", "PrivateSyncSQLite", "PrivateSyncFileSystem"],
            swiftSettings: layering),
        .target(name: "PrivateCloudFaults", dependencies: ["PrivateCloud"], swiftSettings: layering),
        .target(
            name: "DeviceStore",
            dependencies: ["PrivateCloud", "PrivateSyncJSON", "PrivateSyncSQLite", "PrivateSyncFileSystem"],
            swiftSettings: layering),
        .target(
            name: "DemoSchema", dependencies: ["DeviceStore"], exclude: ["DemoHealthSchema.json"],
            swiftSettings: layering),
        .target(
            name: "DeviceSimulation",
            dependencies: ["DeviceStore", "PrivateCloud", "PrivateSyncJSON", "PrivateSyncFileSystem"],
            swiftSettings: layering),
        .target(
            name: "PrivateSync",
            dependencies: [
                "DeviceSimulation", "DeviceStore", "PrivateCloud", "PrivateSyncJSON", "PrivateSyncFileSystem",
            ],
            swiftSettings: layering),
        .target(
            name: "SimulatedWorld",
            dependencies: [
                "PrivateSync", "PartitionMirror", "DemoSchema", "DeviceStore", "PrivateCloudFaults", "PrivateCloud",
                "PrivateSyncHTML", "PrivateSyncJSON", "PrivateSyncSQLite", "PrivateSyncFileSystem",
            ],
            swiftSettings: layering),
        .target(
            name: "PrivateSyncTesting",
            dependencies: [
                "SimulatedWorld", "PrivateSync", "DemoSchema", "DeviceSimulation", "DeviceStore",
                "PrivateCloudFaults", "PrivateCloud", "PrivateSyncFileSystem",
            ],
            swiftSettings: layering),
        .target(name: "PrivateSyncEngine", dependencies: ["PrivateCloud"], swiftSettings: layering),
        .target(
            name: "PrivateSyncEngineTesting",
            dependencies: ["PrivateSyncEngine", "PrivateCloudFaults", "PrivateSyncDeterminism", "PrivateSyncHTML"],
            swiftSettings: layering),
        .target(
            name: "PartitionMirror",
            dependencies: ["PrivateSyncEngine", "PrivateSync", "DeviceStore", "PrivateSyncFileSystem"],
            swiftSettings: layering),
        .target(
            name: "PartitionMirrorSweep",
            dependencies: ["PartitionMirror", "PrivateSyncEngineTesting", "PrivateSync", "DemoSchema"],
            swiftSettings: layering),
        .target(
            name: "ContactsSample", dependencies: ["PrivateSyncEngine"], path: "Examples/ContactsSample",
            swiftSettings: layering),
        .target(
            name: "ContactsSampleSweep", dependencies: ["ContactsSample", "PrivateSyncEngineTesting"],
            path: "Examples/ContactsSampleSweep", swiftSettings: layering),
        .target(name: "ArgumentParsing", swiftSettings: layering),
        .target(
            name: "Simulator",
            dependencies: [
                "PrivateSyncTesting", "SimulatedWorld", "PartitionMirror", "PrivateSync", "DeviceStore",
                "PrivateCloudFaults", "PrivateCloud", "PrivateSyncJSON", "PrivateSyncFileSystem",
            ],
            path: "Simulator", swiftSettings: layering),
        .executableTarget(
            name: "PrivateSyncCLI",
            dependencies: [
                "ArgumentParsing", "Simulator", "SimulatedWorld", "PartitionMirror", "PartitionMirrorSweep",
                "PrivateSyncEngineTesting", "PrivateSync", "DemoSchema", "DeviceSimulation",
                "DeviceStore", "PrivateCloudFaults", "PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem",
            ],
            swiftSettings: layering),
        .executableTarget(
            name: "PrivateSyncBench",
            dependencies: [
                "Simulator", "SimulatedWorld", "PrivateSync", "ContactsSample", "ContactsSampleSweep",
                "PartitionMirrorSweep", "PrivateSyncEngineTesting",
                "PrivateSyncEngine", "DeviceStore", "PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem",
            ],
            swiftSettings: layering),
        .testTarget(
            name: "PrivateSyncSQLiteTests", dependencies: ["PrivateSyncSQLite", "PrivateSyncFileSystem"],
            swiftSettings: layering),
        .testTarget(name: "PrivateSyncJSONTests", dependencies: ["PrivateSyncJSON"], swiftSettings: layering),
        .testTarget(
            name: "PrivateCloudTests",
            dependencies: [
                "PrivateCloudFaults", "PrivateCloud", "PrivateSyncDeterminism", "PrivateSyncSQLite",
                "PrivateSyncFileSystem",
            ],
            swiftSettings: layering),
        .testTarget(
            name: "DeviceStoreTests",
            dependencies: [
                "DemoSchema", "DeviceSimulation", "DeviceStore", "PrivateCloud", "PrivateSyncDeterminism",
                "PrivateSyncJSON", "PrivateSyncSQLite", "PrivateSyncFileSystem",
            ],
            swiftSettings: layering),
        .testTarget(
            name: "PrivateSyncTests",
            dependencies: [
                "PrivateSyncTesting", "PrivateSync", "DemoSchema", "DeviceSimulation", "DeviceStore",
                "PrivateCloudFaults", "PrivateCloud", "PrivateSyncDeterminism", "PrivateSyncJSON", "PrivateSyncSQLite",
                "PrivateSyncFileSystem",
            ],
            swiftSettings: layering),
        .testTarget(
            name: "PrivateSyncEngineTests",
            dependencies: [
                "PrivateSyncEngineTesting", "PrivateSyncEngine", "ContactsSample", "ContactsSampleSweep",
                "PrivateCloudFaults", "PrivateCloud",
            ],
            swiftSettings: layering),
        .testTarget(
            name: "PartitionMirrorTests",
            dependencies: [
                "PartitionMirrorSweep", "PartitionMirror", "PrivateSyncEngineTesting", "PrivateSync",
                "PrivateSyncTesting", "PrivateCloudFaults", "DemoSchema",
            ],
            swiftSettings: layering),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"], swiftSettings: layering),
        .testTarget(
            name: "SimulatorTests", dependencies: ["Simulator", "PrivateSyncTesting"], swiftSettings: layering),
        .testTarget(
            name: "CLITests",
            dependencies: ["PrivateSyncCLI", "PrivateSyncSQLite", "Simulator", "SimulatedWorld", "PrivateSync"],
            swiftSettings: layering),
    ],
    swiftLanguageModes: [.v6]
)
