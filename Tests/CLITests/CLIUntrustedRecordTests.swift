import Foundation
import PrivateSyncSQLite
import Testing

/// What other clients write into the container is untrusted: a web client, an older build or a hostile one can put
/// any value into any field, the engine's reserved keys included. One such record once took every device of the
/// account out of service (its field version's time, 99,999,999,999 seconds, became the record's modification time,
/// which the store's opening check then refused at every command). Now each fetched record is judged as the store
/// will judge it: a reserved value out of range is set aside (the record read as another client's), a record that
/// still cannot be stored is left in the container; either way it is named in `sync now`'s output and the status,
/// and every device goes on working.
@Suite("CLI: untrusted records from the container")
struct CLIUntrustedRecordTests {
    /// A record another client puts: its fields, as `cloud record put --field` takes them.
    struct HostileRecord: Sendable, CustomTestStringConvertible {
        let fields: [String]
        /// Whether the device must name it as a record it could not take whole.
        let named: Bool

        var testDescription: String { fields.joined(separator: " ") }
    }

    static let huge = String(repeating: "9", count: 400)
    static let base = ["mood=1", "date=now"]

    /// Every out-of-range value in each reserved key, and extreme values of every field kind.
    static let cases: [HostileRecord] =
        [
            "mood=99999999999@web", "mood=-99999999999@web", "mood=1e308@web", "mood=-1e308@web", "mood=nan@web",
            "mood=inf@web", "mood=-inf@web", "mood=1@web;date=\(huge)@web",
            "mood=5@" + String(repeating: "d", count: 300),
        ].map {
            HostileRecord(fields: base + ["syncFieldVersions=\($0)"], named: true)
        }
        + [
            "garbage", "mood=5", "mood=@x", "mood=5@x;date",
        ].map { HostileRecord(fields: base + ["syncFieldVersions=\($0)"], named: true) } + [
            // A key that is one character of 70 KB (a letter and 35,000 combining accents): the problem once
            // overflowed the 64 KiB the store keeps it in, and every page of every device failed.
            HostileRecord(
                fields: base + ["syncFieldVersions=e" + String(repeating: "\u{301}", count: 35_000) + "=1e300@web"],
                named: true),
            // Just inside the range: an edit a millisecond later would fall outside it (the field uneditable).
            HostileRecord(fields: base + ["syncFieldVersions=mood=9999999999.9999@web"], named: true),
            HostileRecord(fields: base + ["syncCreatedAt:date=9999-12-31T23:59:59.999999999Z"], named: true),
            HostileRecord(fields: base + ["syncCreatedAt:date=0001-01-01"], named: true),
            // Versions that read, in range: taken as they are (edited at 2001-01-01; a version of no field; none).
            HostileRecord(fields: base + ["syncFieldVersions=mood=1@x;date=1@x"], named: false),
            HostileRecord(fields: base + ["syncFieldVersions==5@x"], named: false),
            HostileRecord(fields: base + ["syncFieldVersions=;;;"], named: false),
            // Every field kind at its extremes, and fields the app's schema does not declare.
            HostileRecord(fields: ["mood=9223372036854775807", "date=9999-12-31T23:59:59.999999999Z"], named: false),
            HostileRecord(fields: ["mood=-9223372036854775808", "date=0001-01-01", "energy=-1"], named: false),
            HostileRecord(fields: base + ["extra:double=1e308", "tiny:double=-1e-308"], named: false),
            HostileRecord(
                fields: base + ["blob:bytes=AAEC", "where:location=90,180", "other:reference=x"], named: false),
            HostileRecord(fields: base + ["when:list<date>=0001-01-01", "when:list<date>=9999-12-31"], named: false),
            HostileRecord(fields: base + ["note=" + String(repeating: "\u{202E}é\u{7}", count: 100)], named: false),
        ]

    /// Values a deployed type cannot take: refused by the container, as CloudKit's production environment refuses
    /// them, whoever saves them (otherwise the first save would fix the type and every device's save would fail).
    static let refusedByTheContainer: [[String]] = [
        base + ["syncFieldVersions:int64=5"], base + ["syncFieldVersions:list<string>=a"],
        base + ["syncCreatedAt:string=yesterday"], base + ["syncCreatedAt:int64=5"],
        ["mood:string=high", "date=now"], ["mood=1", "date:string=tuesday"], base + ["energy:double=1.5"],
    ]

    /// A world with `phone` on alice, a build of `engine`, launched; and `far` in alice's container, another
    /// client's record whose field version's time is out of range (named by every device, read with its reserved
    /// values set aside), not yet fetched.
    static func phoneWithFar(engine: String) throws -> CLIRunner {
        let cli = try CLIRunner.world(launchingAll: ["phone"], engine: engine)
        try cli.ok(
            "cloud", "record", "put", "--account", "alice", "--type", "CheckIn", "--name", "far", "--allow-reserved",
            "--field", "mood=1", "--field", "date=now", "--field", "syncFieldVersions=mood=99999999999@web")
        return cli
    }

    /// The builds' engines: the app's own, and CKSyncEngine with the app as its delegate.
    static let engines = ["app", "cksyncengine"]

    @Test(
        "a record of another client with any value in any key leaves every device working, on either build's engine",
        arguments: cases, engines)
    func hostileRecordLeavesDevicesWorking(_ hostile: HostileRecord, engine: String) throws {
        let cli = try CLIRunner.world(launchingAll: ["phone", "tablet"], engine: engine)
        try cli.ok(
            ["cloud", "record", "put", "--account", "alice", "--type", "CheckIn", "--name", "far", "--allow-reserved"]
                + hostile.fields.flatMap { ["--field", $0] })
        for device in ["phone", "tablet"] {
            let sync = try cli.ok("sync", "now", "--device", device)
            #expect(sync.standardOutput.contains("record far from iCloud") == hostile.named, "\(sync.standardOutput)")
            let status = try cli.ok("sync", "status", "--device", device, "--json").json
            #expect(status["state"] as? String == "on", "\(status)")
            let problems = status["fetchedRecordProblems"] as? [[String: Any]] ?? []
            #expect(problems.map { $0["record"] as? String } == (hostile.named ? ["far"] : []))
        }
        for device in ["phone", "tablet"] {
            // Every command that reads the store works, and the device still writes (the record too) and syncs.
            try cli.ok("record", "list", "--device", device)
            try cli.ok("record", "list", "--device", device, "--json")
            try cli.ok("inspect", "--device", device)
            try cli.ok("launch", "--device", device)
            try cli.ok("record", "edit", "far", "--device", device, "--field", "mood=\(device == "phone" ? 2 : 3)")
            let added = try cli.addCheckIn(mood: 3, on: device).standardOutput
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try cli.ok("sync", "now", "--device", device)
            let container = try cli.ok("cloud", "record", "list", "--account", "alice", "--json").standardOutput
            #expect(container.contains(added), "a write after the hostile record still reached the container")
        }
        try cli.ok("audit")
    }

    @Test(
        "a value of another type in a deployed field is refused by the container, reserved keys included",
        arguments: refusedByTheContainer)
    func deployedTypesCannotChange(_ fields: [String]) throws {
        let cli = try CLIRunner.world(launching: "phone")
        let run = try cli.run(
            ["cloud", "record", "put", "--account", "alice", "--type", "CheckIn", "--allow-reserved"]
                + fields.flatMap { ["--field", $0] })
        #expect(run.status == 65 && run.standardError.contains("invalidArguments"), "\(run.standardError)")
        try cli.addCheckIn(mood: 2, on: "phone")
        try cli.ok("sync", "now", "--device", "phone")
    }

    @Test(
        "a later sound version of the record takes it off the list; so does its deletion (either build's engine)",
        arguments: engines)
    func soundVersionClearsTheProblem(engine: String) throws {
        let cli = try Self.phoneWithFar(engine: engine)
        /// Syncs phone, and counts the records its status lists as fetched with a problem (`sync now` names each).
        func syncAndCountProblems() throws -> Int? {
            let sync = try cli.ok("sync", "now", "--device", "phone")
            let status = try cli.ok("sync", "status", "--device", "phone", "--json").json
            let count = (status["fetchedRecordProblems"] as? [Any])?.count
            #expect(sync.standardOutput.contains("record far from iCloud") == (count == 1), "\(sync.standardOutput)")
            return count
        }
        #expect(try syncAndCountProblems() == 1)
        for (versions, problems) in [("mood=5@web", 0), ("mood=-1e300@web", 1)] {
            try cli.ok(
                "cloud", "record", "edit", "far", "--account", "alice", "--allow-reserved", "--field",
                "syncFieldVersions=\(versions)")
            #expect(try syncAndCountProblems() == problems, "\(versions)")
        }
        try cli.ok("cloud", "record", "delete", "far", "--account", "alice")
        #expect(try syncAndCountProblems() == 0)
    }

    @Test(
        "a list of refused records hand-edited into something else is refused (74) by the status and by sync now, and left as it is",
        arguments: engines)
    func damagedListIsRefused(engine: String) throws {
        let cli = try Self.phoneWithFar(engine: engine)
        try cli.ok("sync", "now", "--device", "phone")
        let mine = try cli.addCheckIn(mood: 3, on: "phone").standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let store = cli.home + "/devices/phone/AppGroup/Library/Application Support/UserCreated.store"
        try Connection(path: store, mode: .readWrite).execute(
            "UPDATE sync_state SET value = 'no tab here' WHERE key = 'fetched_record_problems'")
        // Another client's change waits on the server: a sync that ran would store it over the damaged list.
        try cli.ok(
            "cloud", "record", "put", "--account", "alice", "--type", "CheckIn", "--field", "mood=2", "--field",
            "date=now")
        for command in [["sync", "status"], ["sync", "now"]] {
            let run = try cli.run(command + ["--device", "phone"])
            #expect(run.status == 74, "\(command): \(run.standardOutput) \(run.standardError)")
            #expect(run.standardError.contains("fetched_record_problems"), "\(run.standardError)")
        }
        let value = try Connection(path: store, mode: .readWrite).scalarText(
            "SELECT value FROM sync_state WHERE key = 'fetched_record_problems'")
        #expect(value == "no tab here", "left as it is")
        // Refused before anything synced: nothing went up from a store whose state cannot be read.
        let container = try cli.ok("cloud", "record", "list", "--account", "alice", "--json").standardOutput
        #expect(!container.contains(mine), "\(container)")
    }

    @Test(
        "after a start afresh for another account, the records of the previous account's zone are no longer named",
        arguments: engines)
    func startingAfreshForgetsTheListOfTheAccountLeft(engine: String) throws {
        let cli = try Self.phoneWithFar(engine: engine)
        try cli.ok("sync", "now", "--device", "phone")
        let named = try cli.ok("sync", "status", "--device", "phone", "--json").json["fetchedRecordProblems"]
        #expect((named as? [Any])?.count == 1, "\(String(describing: named))")
        try cli.ok("account", "sign-in", "bob", "--device", "phone")
        try cli.run(["sync", "now", "--device", "phone"])
        try cli.ok("account", "start-fresh", "--device", "phone")
        try cli.ok("sync", "now", "--device", "phone")
        let status = try cli.ok("sync", "status", "--device", "phone", "--json").json
        #expect((status["fetchedRecordProblems"] as? [Any])?.isEmpty == true, "\(status)")
    }

    @Test("cloud record put and edit write the reserved keys only with --allow-reserved")
    func reservedKeysNeedTheFlag() throws {
        let cli = try CLIRunner.world(launching: "phone")
        for key in ["syncFieldVersions=mood=1@x", "syncCreatedAt:date=now"] {
            let run = try cli.exits(
                65, "cloud", "record", "put", "--account", "alice", "--type", "CheckIn", "--field", "mood=1",
                "--field", key)
            #expect(run.standardError.contains("--allow-reserved"))
        }
        try cli.ok(
            "cloud", "record", "put", "--account", "alice", "--type", "CheckIn", "--name", "c", "--field", "mood=1")
        try cli.exits(65, "cloud", "record", "edit", "c", "--account", "alice", "--field", "syncCreatedAt:date=now")
    }
}
