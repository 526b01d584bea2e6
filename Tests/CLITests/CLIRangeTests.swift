import Foundation
import PrivateSyncSQLite
import Testing

/// Values read from the world's files are range-checked before use: a hand-edited value out of range is refused
/// with 74 naming the file, never traps, and nothing is written.
@Suite("CLI: values read from files are range-checked")
struct CLIRangeTests {
    /// A world with device A launched, signed into alice, one record synced.
    static func world() throws -> CLIRunner {
        try CLIRunner.syncedWorld(device: "A", mood: 2)
    }

    static func edit(_ path: String, _ sql: String) throws {
        let connection = try Connection(path: path, mode: .readWrite)
        try connection.execute(sql)
    }

    static func expectRefused(
        _ cli: CLIRunner, _ arguments: [String], naming file: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try cli.worldDigest()
        let run = try cli.run(arguments)
        let line = arguments.joined(separator: " ")
        #expect(run.signal == nil, "\(line) trapped", sourceLocation: sourceLocation)
        #expect(run.status == 74, "\(line) exited \(run.status): \(run.standardError)", sourceLocation: sourceLocation)
        #expect(run.standardError.contains(file), "\(line): \(run.standardError)", sourceLocation: sourceLocation)
        #expect(try cli.worldDigest() == before, "\(line) wrote to the world", sourceLocation: sourceLocation)
    }

    @Test("a fault's retry_after of 1e19 is refused by sync now and fault list, naming the fault file; it never traps")
    func hugeRetryAfterIsRefused() throws {
        let cli = try Self.world()
        try cli.ok("fault", "inject", "service-unavailable", "--retry-after", "10")
        try Self.edit(cli.home + "/faults.sqlite", "UPDATE faults SET retry_after = 1e19")
        for arguments in [["sync", "now", "--device", "A"], ["fault", "list"]] {
            try Self.expectRefused(cli, arguments, naming: "faults.sqlite")
        }
        // The crash does not stick: nothing bad was saved, and clearing the faults brings everything back.
        try cli.ok("fault", "clear")
        try cli.ok("sync", "status", "--device", "A")
        try cli.ok("inspect", "--device", "A")
        try cli.syncNow("--device", "A")
        try cli.ok("launch", "--device", "A")
    }

    @Test("a fault of an unknown kind is refused, not listed as network-failure")
    func unknownFaultKindIsRefused() throws {
        let cli = try Self.world()
        try cli.ok("fault", "inject", "zone-busy")
        try Self.edit(cli.home + "/faults.sqlite", "UPDATE faults SET kind = 'meteor-strike'")
        for arguments in [["sync", "now", "--device", "A"], ["fault", "list"]] {
            try Self.expectRefused(cli, arguments, naming: "faults.sqlite")
        }
    }

    @Test(
        "a store already holding an out-of-range retry time is refused with 74, never trapping",
        arguments: ["1e19", "-1e300", "'soon'", "9.9e15"])
    func outOfRangeNextAttemptIsRefused(value: String) throws {
        let cli = try Self.world()
        let store = cli.home + "/devices/A/AppGroup/Library/Application Support/UserCreated.store"
        try Self.edit(
            store, "INSERT OR REPLACE INTO sync_state (key, value) VALUES ('next_attempt_at', \(value))")
        for arguments in [
            ["sync", "status", "--device", "A"], ["inspect", "--device", "A"], ["launch", "--device", "A"],
            ["sync", "now", "--device", "A"], ["record", "list", "--device", "A"],
        ] {
            try Self.expectRefused(cli, arguments, naming: "UserCreated.store")
        }
    }

    @Test("a store whose values were checked and remembered is checked again once a value is edited out of range")
    func rememberedStoreValuesAreCheckedAgain() throws {
        let cli = try Self.world()
        let store = cli.home + "/devices/A/AppGroup/Library/Application Support/UserCreated.store"
        let memo = cli.home + "/verified.memo"
        // A status remembers the store once its times are older than the clock's last tick; read it until it does.
        for _ in 0..<200 {
            try cli.ok("sync", "status", "--device", "A")
            if let text = try? String(contentsOfFile: memo, encoding: .utf8), text.contains("store-values:" + store) {
                break
            }
            usleep(10_000)
        }
        #expect(
            try String(contentsOfFile: memo, encoding: .utf8).contains("store-values:" + store),
            "the store's values were never remembered")
        try Self.edit(store, "INSERT OR REPLACE INTO sync_state (key, value) VALUES ('next_attempt_at', 1e19)")
        for arguments in [["sync", "status", "--device", "A"], ["record", "list", "--device", "A"]] {
            try Self.expectRefused(cli, arguments, naming: "UserCreated.store")
        }
    }

    @Test(
        "a device.json with an invalid account, status or build is a damaged file, not signed out",
        arguments: [
            ("\"account\" : \"alice\"", "\"account\" : \"not a name!\""),
            ("\"accountStatus\" : \"available\"", "\"accountStatus\" : \"sunny\""),
            ("\"version\" : 1", "\"version\" : 9223372036854775807"),
            ("\"version\" : 1", "\"version\" : -4"),
        ])
    func damagedDeviceProfileIsRefused(from: String, to: String) throws {
        let cli = try Self.world()
        let path = cli.home + "/devices/A/device.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(from))
        try text.replacingOccurrences(of: from, with: to).write(toFile: path, atomically: true, encoding: .utf8)
        for arguments in [
            ["device", "list"], ["sync", "status", "--device", "A"], ["device", "upgrade", "A"],
            ["account", "sign-in", "bob", "--device", "A"],
        ] {
            try Self.expectRefused(cli, arguments, naming: "device.json")
        }
    }

    @Test(
        "a launch record with a launch time out of range is refused, naming it",
        arguments: ["1e300", "-1e19"])
    func launchTimeOutOfRangeIsRefused(value: String) throws {
        let cli = try Self.world()
        let path = cli.home + "/devices/A/AppGroup/Library/Preferences/last-launch.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = text.replacingOccurrences(
            of: #""launchedAt" : [-0-9.e]+"#, with: "\"launchedAt\" : \(value)", options: .regularExpression)
        #expect(edited != text)
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        for arguments in [["sync", "status", "--device", "A"], ["device", "list"], ["inspect", "--device", "A"]] {
            try Self.expectRefused(cli, arguments, naming: "last-launch.json")
        }
    }
}
