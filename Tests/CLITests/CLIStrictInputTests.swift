import Foundation
import Testing

/// The input side of issue 11, through the binary: every value that would have been silently changed, read without
/// bound, printed raw or misread is refused (or escaped), and a refusal changes no byte of the world.
@Suite("CLI: strict input")
struct CLIStrictInputTests {
    /// A world with device `phone` (alice, sync on) launched and one CheckIn; returns it and the record's name.
    static func world() throws -> (CLIRunner, String) {
        let cli = try CLIRunner.world(launching: "phone")
        let added = try cli.ok(
            "record", "add", "CheckIn", "--device", "phone", "--field", "mood=1", "--field",
            "date=2026-11-29T08:30:00Z")
        return (cli, added.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: Item 1: dates

    static let refusedDates = [
        "2026-11-29T17:45:00", "2026-11-29 08:30:00Z", "2026-11-29T08:30:00 PST", "2026-11-29xyz", "2026-02-30",
        "2026-02-29", "2026-11-29T25:00:00Z", "2026-11-29T99:99:99Z", "2026-11-29T08:60:00Z",
    ]

    @Test(
        "a date without a zone, or in any form not documented, is refused with 65 and nothing changes",
        arguments: refusedDates)
    func refusedDate(_ date: String) throws {
        let (cli, name) = try Self.world()
        let before = try cli.worldDigest()
        let edit = try cli.run(["record", "edit", name, "--device", "phone", "--field", "date=\(date)"])
        #expect(edit.status == 65, "stderr: \(edit.standardError)")
        #expect(edit.standardError.contains("YYYY-MM-DD (midnight UTC)"), "stderr: \(edit.standardError)")
        let add = try cli.run([
            "record", "add", "CheckIn", "--device", "phone", "--field", "mood=2", "--field", "date=\(date)",
        ])
        #expect(add.status == 65, "stderr: \(add.standardError)")
        #expect(try cli.worldDigest() == before, "the world changed")
    }

    @Test("a date with an offset is stored as the instant it names")
    func offsetDate() throws {
        let (cli, name) = try Self.world()
        try cli.ok("record", "edit", name, "--device", "phone", "--field", "date=2026-11-29T09:30:00.5+01:00")
        let list = try cli.ok("record", "list", "--device", "phone", "--json")
        #expect(list.standardOutput.contains("\"2026-11-29T08:30:00.5Z\""), "\(list.standardOutput)")
    }

    // MARK: Item 7: bounded reads

    @Test("@/dev/zero is refused with 65 after the record limit, in under 200 MB of memory, and nothing changes")
    func devZero() throws {
        let (cli, _) = try Self.world()
        let before = try cli.worldDigest()
        // Under a 200 MB address-space limit, reading the whole of /dev/zero first dies (it did, with exit 134).
        let run = try cli.run(
            bytes: [
                "-c", "ulimit -v 200000; exec \"$0\" \"$@\"", CLIRunner.binary, "--home", cli.home, "record", "add",
                "CheckIn", "--device", "phone", "--field", "mood=1", "--field", "date=now", "--field",
                "note=@/dev/zero",
            ].map { Array($0.utf8) }, home: false, program: "/bin/sh")
        #expect(run.status == 65, "stderr: \(run.standardError)")
        #expect(run.standardError.contains("CloudKit allows 1048576 bytes per record"), "\(run.standardError)")
        #expect(try cli.worldDigest() == before, "the world changed")
    }

    // MARK: Item 8: paths

    @Test("--home with a trailing slash or ./ names one world, at its normalized path")
    func normalizedHome() throws {
        let cli = CLIRunner.fresh()
        let folder = (cli.home as NSString).deletingLastPathComponent
        let created = try cli.run(
            bytes: [Array("--home".utf8), Array("w/".utf8), Array("init".utf8)], home: false, in: folder)
        #expect(created.status == 0, "stderr: \(created.standardError)")
        #expect(created.standardOutput.contains("Created a world at \(folder)/w\n"), "\(created.standardOutput)")
        let added = try cli.run(
            bytes: ["--home", "./w/../w/.", "device", "add", "phone"].map { Array($0.utf8) }, home: false, in: folder)
        #expect(added.status == 0, "stderr: \(added.standardError)")
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(entries == ["w"], "left behind: \(entries)")
        #expect(FileManager.default.fileExists(atPath: folder + "/w/devices/phone/device.json"))
    }

    /// The longest world folder a world with the demo container can live in: SQLite's 504 bytes less the longest
    /// database below it, a 64-character device's archive store
    /// (`/devices/<64>/AppGroup/Library/Application Support/Archives/UserCreated-_<32 hex>-999999.store`, 178 bytes)
    /// with the longer of the suffixes it carries while written (`.partial`) or once restored (`.restored`).
    static let longestHome = 504 - 178 - 9

    /// A folder path of exactly `length` bytes under a new temporary folder, in components the OS allows.
    static func folder(ofLength length: Int) -> String {
        var path = (CLIRunner.fresh().home as NSString).deletingLastPathComponent
        while path.utf8.count < length {
            let room = length - path.utf8.count - 1
            path += "/" + String(repeating: "p", count: min(max(room, 1), 200))
        }
        return path
    }

    @Test("a world folder too long for SQLite is refused at init (65) with the limit stated, and nothing is created")
    func tooLongHome() throws {
        let home = Self.folder(ofLength: Self.longestHome + 1)
        #expect(home.utf8.count == Self.longestHome + 1)
        let run = try CLIRunner(home: home).run(["init"])
        #expect(run.status == 65, "stderr: \(run.standardError)")
        #expect(run.standardError.contains("at most \(Self.longestHome) are allowed"), "\(run.standardError)")
        #expect(run.standardError.contains("504 bytes SQLite allows"), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    @Test("a world at the longest folder allowed works with the longest names, archives included")
    func longestHomeWorks() throws {
        let cli = CLIRunner(home: Self.folder(ofLength: Self.longestHome))
        let device = String(repeating: "d", count: 64)
        let first = String(repeating: "a", count: 64)
        let second = String(repeating: "b", count: 64)
        try cli.ok("init")
        try cli.ok("device", "add", device, "--account", first, "--sync", "on")
        try cli.ok("launch", "--device", device)
        try cli.addCheckIn(mood: 1, on: device)
        try cli.ok("sync", "now", "--device", device)
        try cli.ok("account", "sign-in", second, "--device", device)
        try cli.ok("launch", "--device", device)
        try cli.ok("account", "start-fresh", "--device", device)
        try cli.ok("sync", "now", "--device", device)
        try cli.ok("inspect", "--device", device)
    }

    // MARK: Item 10: escaped text output

    static let hostileValues = [
        "two\nlines", "cr\r\nlf", "\u{1B}[2J\u{1B}[31mred", "tab\there", "say \"hi\"", "back\\slash", "del\u{7F}",
        "nel\u{85}csi\u{9B}", "bell\u{7}",
    ]

    @Test(
        "record list prints a value's control characters, quotes and backslashes escaped, on its own row",
        arguments: hostileValues)
    func escapedList(_ value: String) throws {
        let (cli, _) = try Self.world()
        try cli.ok(
            "record", "add", "CheckIn", "--device", "phone", "--field", "mood=2", "--field", "date=now", "--field",
            "note=\(value)")
        let list = try cli.ok("record", "list", "--device", "phone")
        let lines = list.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4, "a value started a row: \(list.standardOutput)")
        #expect(Self.rawControls(list.standardOutput).isEmpty, "raw: \(Self.rawControls(list.standardOutput))")
        #expect(!list.standardOutput.contains("\"\(value)\""))
        #expect(list.standardOutput.contains("\\"))
    }

    @Test("an error that echoes a value shows its control characters escaped")
    func escapedError() throws {
        let (cli, _) = try Self.world()
        let run = try cli.run(["record", "add", "Check\u{1B}]0;pwned\u{7}In\nerror: fake", "--device", "phone"])
        #expect(run.status == 65)
        #expect(Self.rawControls(run.standardError).isEmpty, "raw: \(run.standardError)")
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
    }

    /// The control characters in `text` other than the newline ending each line.
    static func rawControls(_ text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { $0 != 0x0A && ($0 < 0x20 || (0x7F...0x9F).contains($0)) }
    }

    // MARK: Item 11: the smaller ones

    static let badBase64 = ["====", "AA=", "AB==", "aGk*"]

    @Test("non-canonical base64 is refused with 65 and nothing changes", arguments: badBase64)
    func badBase64Value(_ text: String) throws {
        let (cli, _) = try Self.world()
        let before = try cli.worldDigest()
        let run = try cli.run([
            "record", "add", "Document", "--device", "phone", "--field", "title=t", "--field", "kind=k", "--field",
            "attachedAt=now", "--field", "content=\(text)",
        ])
        #expect(run.status == 65, "stderr: \(run.standardError)")
        #expect(run.standardError.contains("not canonical base64"), "\(run.standardError)")
        #expect(try cli.worldDigest() == before, "the world changed")
    }

    @Test("an argument that is not valid UTF-8 is refused with 64 and nothing changes")
    func invalidUTF8() throws {
        let (cli, name) = try Self.world()
        let before = try cli.worldDigest()
        let run = try cli.run(bytes: [
            Array("record".utf8), Array("edit".utf8), Array(name.utf8), Array("--device".utf8), Array("phone".utf8),
            Array("--field".utf8), Array("note=caf".utf8) + [0xE9],
        ])
        #expect(run.status == 64, "stderr: \(run.standardError)")
        #expect(run.standardError.contains("is not valid UTF-8"), "\(run.standardError)")
        #expect(try cli.worldDigest() == before, "the world changed")
        #expect(!(try cli.ok("record", "list", "--device", "phone").standardOutput.contains("caf")))
    }

    @Test("a flag given twice is refused with 64")
    func flagTwice() throws {
        let (cli, _) = try Self.world()
        let run = try cli.run(["device", "list", "--json", "--json"])
        #expect(run.status == 64, "stderr: \(run.standardError)")
        #expect(run.standardError.contains("'--json' was given more than once"), "\(run.standardError)")
    }

    @Test("an invalid account name in device.json is a damaged file (74, naming it), not a signed-out device")
    func badAccountInDeviceFile() throws {
        let (cli, _) = try Self.world()
        let path = cli.home + "/devices/phone/device.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"alice\""))
        try text.replacingOccurrences(of: "\"alice\"", with: "\"../mallory\"").write(
            toFile: path, atomically: true, encoding: .utf8)
        let before = try cli.worldDigest()
        for arguments in [
            ["account", "status", "--device", "phone"], ["device", "list"], ["sync", "status", "--device", "phone"],
        ] {
            let run = try cli.run(arguments)
            #expect(run.status == 74, "\(arguments): \(run.standardOutput) \(run.standardError)")
            #expect(run.standardError.contains(path), "\(run.standardError)")
        }
        #expect(try cli.worldDigest() == before, "the world changed")
    }
}
