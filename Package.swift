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
        .target(name: "PrivateSyncSQLite", dependencies: ["CSQLite", "PrivateSyncFileSystem"]),
        .target(name: "PrivateSyncFileSystem"),
        .target(name: "PrivateCloud", dependencies: ["PrivateSyncSQLite", "PrivateSyncFileSystem"]),
        .target(
            name: "DeviceStore", dependencies: ["PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem"],
            exclude: ["DemoHealthSchema.json"]),
        .target(name: "PrivateSync", dependencies: ["DeviceStore", "PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem"]),
        .target(
            name: "SimulatedWorld", dependencies: ["PrivateSync", "DeviceStore", "PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem"]),
        .target(
            name: "PrivateSyncTesting",
            dependencies: ["SimulatedWorld", "PrivateSync", "DeviceStore", "PrivateCloud", "PrivateSyncFileSystem"]),
        .target(name: "ArgumentParsing"),
        .target(
            name: "Simulator", dependencies: ["PrivateSyncTesting", "SimulatedWorld", "PrivateSync", "DeviceStore", "PrivateCloud", "PrivateSyncFileSystem"],
            path: "Simulator"),
        .executableTarget(
            name: "PrivateSyncCLI",
            dependencies: [
                "ArgumentParsing", "Simulator", "SimulatedWorld", "PrivateSync", "DeviceStore", "PrivateCloud", "PrivateSyncSQLite",
                "PrivateSyncFileSystem",
            ]),
        .executableTarget(
            name: "PrivateSyncBench",
            dependencies: ["Simulator", "SimulatedWorld", "PrivateSync", "DeviceStore", "PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem"]),
        .testTarget(name: "PrivateSyncSQLiteTests", dependencies: ["PrivateSyncSQLite", "PrivateSyncFileSystem"]),
        .testTarget(name: "PrivateCloudTests", dependencies: ["PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem"]),
        .testTarget(name: "DeviceStoreTests", dependencies: ["DeviceStore", "PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem"]),
        .testTarget(
            name: "PrivateSyncTests",
            dependencies: ["PrivateSyncTesting", "PrivateSync", "DeviceStore", "PrivateCloud", "PrivateSyncSQLite", "PrivateSyncFileSystem"]),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"]),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "PrivateSyncTesting"]),
        .testTarget(name: "CLITests", dependencies: ["PrivateSyncCLI", "PrivateSyncSQLite", "Simulator", "PrivateSync"]),
    ],
    swiftLanguageModes: [.v6]
)
