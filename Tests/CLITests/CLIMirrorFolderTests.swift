import Foundation
import Testing

/// The folder of a device's CKSyncEngine delegate (`CKSyncEngine/` beside its store), held by another process or
/// littered by a killed one: a command that needs the mirror waits at most `PRIVATESYNC_BUSY_TIMEOUT_MS`, then exits
/// 75 "busy, try again" having changed nothing (it once waited for ever); what a bookkeeping write killed before its
/// rename left is removed by the next mirror (it once stayed for good).
@Suite("CLI: the mirror's folder, held or littered")
struct CLIMirrorFolderTests {
    /// A command that opens the device's mirror.
    enum MirrorCommand: String, CaseIterable, CustomTestStringConvertible {
        case syncNow
        case syncOn
        /// `sync on` on a device whose switch is off: it must not turn the switch on and then fail.
        case syncOnFromOff
        case recordDelete

        var testDescription: String { rawValue }

        func arguments(deleting name: String) -> [String] {
            switch self {
            case .syncNow: ["sync", "now", "--device", "A"]
            case .syncOn, .syncOnFromOff: ["sync", "on", "--device", "A"]
            case .recordDelete: ["record", "delete", name, "--device", "A"]
            }
        }
    }

    /// The mirror's folder of device A.
    static func folder(_ cli: CLIRunner) -> String {
        cli.home + "/devices/A/AppGroup/Library/Application Support/CKSyncEngine"
    }

    /// What the user and the server see of device A: its records, alice's container, and its status.
    static func seen(_ cli: CLIRunner) throws -> [String] {
        try [
            cli.ok("record", "list", "--device", "A", "--json").standardOutput,
            cli.ok("cloud", "record", "list", "--account", "alice", "--json").standardOutput,
            cli.ok("sync", "status", "--device", "A", "--json").standardOutput,
        ]
    }

    /// Holds an exclusive `flock` on `folder`, as another process's mirror does, for as long as `body` runs.
    static func holding<T>(_ folder: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0, "cannot open \(folder)")
        defer { close(descriptor) }
        try #require(flock(descriptor, LOCK_EX) == 0)
        return try body()
    }

    @Test(
        "a command that needs the mirror, while another process's mirror holds its folder past the wait, exits 75 busy and changes nothing",
        arguments: MirrorCommand.allCases)
    func heldFolderIsBusy(command: MirrorCommand) throws {
        let cli = try CLIRunner.world(launchingAll: ["A"], engine: "cksyncengine")
        let sent = try CLIMirroredDeviceTests.addNote(cli, on: "A", title: "sent")
        try cli.ok("sync", "now", "--device", "A")
        let waiting = try CLIMirroredDeviceTests.addNote(cli, on: "A", title: "waiting")
        if command == .syncOnFromOff { try cli.ok("sync", "off", "--device", "A") }
        let before = try Self.seen(cli)
        let busy = try Self.holding(Self.folder(cli)) {
            try cli.run(command.arguments(deleting: sent), environment: CLIBusyTests.shortWait)
        }
        #expect(busy.status == 75, "\(busy.standardOutput) \(busy.standardError)")
        #expect(busy.standardError.contains("busy, try again"), "\(busy.standardError)")
        #expect(busy.standardError.contains("CKSyncEngine"), "the message names the folder: \(busy.standardError)")
        #expect(!busy.standardError.contains("damaged"), "\(busy.standardError)")
        #expect(try Self.seen(cli) == before, "a busy command changed nothing")
        // Once the other mirror is gone, the same command does what it was asked.
        try cli.ok(command.arguments(deleting: sent))
        try cli.ok("sync", "now", "--device", "A")
        let names = try CLIMirroredDeviceTests.containerNames(cli)
        #expect(names.contains(waiting) && names.contains(sent) == (command != .recordDelete), "\(names)")
    }

    @Test("what a bookkeeping write killed before its rename left is removed by the next mirror, and nothing else")
    func killedWritesLeftoversAreRemoved() throws {
        let cli = try CLIRunner.world(launchingAll: ["A"], engine: "cksyncengine")
        let note = try CLIMirroredDeviceTests.addNote(cli, on: "A")
        try cli.ok("sync", "now", "--device", "A")
        let folder = Self.folder(cli)
        let leftovers = ["bookkeeping.json.tmp-4242-1", "bookkeeping.json.tmp-4243-17"]
        let kept = ["bookkeeping.json", "notes.txt", "notes.txt.tmp-4242-1"]
        for name in leftovers + ["notes.txt", "notes.txt.tmp-4242-1"] {
            try Data("{\"half".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        try cli.ok("sync", "now", "--device", "A")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == kept)
        let status = try cli.ok("sync", "status", "--device", "A", "--json").json
        #expect(status["detail"] as? String == "upToDate", "\(status)")
        #expect(try CLIMirroredDeviceTests.containerNames(cli) == [note])
    }
}
