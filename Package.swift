// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "PrivateSync",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PrivateCloud", targets: ["PrivateCloud"]),
        .library(name: "DeviceStore", targets: ["DeviceStore"]),
        .library(name: "PrivateSync", targets: ["PrivateSync"]),
        .library(name: "PrivateSyncTesting", targets: ["PrivateSyncTesting"]),
        .executable(name: "privatesync", targets: ["PrivateSyncCLI"]),
        .executable(name: "privatesync-bench", targets: ["PrivateSyncBench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "SQLite", dependencies: ["CSQLite", "FileSystem"]),
        .target(name: "FileSystem"),
        .target(name: "PrivateCloud", dependencies: ["SQLite", "FileSystem"]),
        .target(
            name: "DeviceStore", dependencies: ["PrivateCloud", "SQLite", "FileSystem"],
            exclude: ["DemoHealthSchema.json"]),
        .target(name: "PrivateSync", dependencies: ["DeviceStore", "PrivateCloud", "SQLite", "FileSystem"]),
        .target(
            name: "SimulatedWorld", dependencies: ["PrivateSync", "DeviceStore", "PrivateCloud", "SQLite", "FileSystem"]),
        .target(
            name: "PrivateSyncTesting",
            dependencies: ["SimulatedWorld", "PrivateSync", "DeviceStore", "PrivateCloud", "FileSystem"]),
        .target(name: "ArgumentParsing"),
        .target(
            name: "Simulator", dependencies: ["PrivateSyncTesting", "SimulatedWorld", "PrivateSync", "DeviceStore", "PrivateCloud", "FileSystem"],
            path: "Simulator"),
        .executableTarget(
            name: "PrivateSyncCLI",
            dependencies: [
                "ArgumentParsing", "Simulator", "SimulatedWorld", "PrivateSync", "DeviceStore", "PrivateCloud", "SQLite",
                "FileSystem",
            ]),
        .executableTarget(
            name: "PrivateSyncBench",
            dependencies: ["Simulator", "SimulatedWorld", "PrivateSync", "DeviceStore", "PrivateCloud", "SQLite", "FileSystem"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "FileSystem"]),
        .testTarget(name: "PrivateCloudTests", dependencies: ["PrivateCloud", "SQLite", "FileSystem"]),
        .testTarget(name: "DeviceStoreTests", dependencies: ["DeviceStore", "PrivateCloud", "SQLite", "FileSystem"]),
        .testTarget(
            name: "PrivateSyncTests",
            dependencies: ["PrivateSyncTesting", "PrivateSync", "DeviceStore", "PrivateCloud", "SQLite", "FileSystem"]),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"]),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "PrivateSyncTesting"]),
        .testTarget(name: "CLITests", dependencies: ["PrivateSyncCLI", "SQLite", "Simulator", "PrivateSync"]),
    ],
    swiftLanguageModes: [.v6]
)
