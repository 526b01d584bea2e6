import Foundation
import PrivateSyncSQLite
import SimulatedWorld
import Testing

/// The JSON object a command printed.
private func object(_ run: CLIRunner.Run) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
}

@Suite("CLI: chosen names, writes by other clients, aimed faults")
struct CLIScenarioTests {
    /// A world with phone and tablet on alice, both launched.
    private func world() throws -> CLIRunner {
        try CLIRunner.world(launching: "phone", "tablet")
    }

    @Test("record add --name uses the name; two devices creating it sync as one record")
    func chosenNamesConverge() throws {
        let cli = try world()
        let added = try cli.ok(
            "record", "add", "CheckIn", "--device", "phone", "--name", "daily-1", "--field", "mood=1", "--field",
            "date=2026-11-29")
        #expect(added.standardOutput == "daily-1\n")
        try cli.ok(
            "record", "add", "CheckIn", "--device", "tablet", "--name", "daily-1", "--field", "mood=2", "--field",
            "date=2026-11-29")
        try cli.ok("sync", "now", "--device", "phone")
        try cli.ok("sync", "now", "--device", "tablet")
        try cli.ok("sync", "now", "--device", "phone")
        let records = try object(try cli.ok("cloud", "record", "list", "--account", "alice", "--json"))["records"]
        let names = try #require(records as? [[String: Any]]).map { $0["name"] as? String }
        #expect(names == ["daily-1"])
        let phone =
            try object(try cli.ok("record", "list", "--device", "phone", "--json"))["records"] as? [[String: Any]]
        let tablet =
            try object(try cli.ok("record", "list", "--device", "tablet", "--json"))["records"] as? [[String: Any]]
        #expect(
            (phone?.first?["fields"] as? [String: Any])?["mood"] as? Int
                == (tablet?.first?["fields"] as? [String: Any])?["mood"] as? Int)
    }

    @Test("cloud record put writes unknown types and typed or inferred fields; list shows them")
    func cloudPutAndList() throws {
        let cli = try world()
        let put = try cli.ok(
            "cloud", "record", "put", "--account", "alice", "--type", "FutureThing", "--name", "f1", "--field",
            "weight:double=3", "--field", "count=5", "--field", "flag=true", "--field", "label=hello", "--field",
            "when=2026-11-29", "--field", "tags:list<string>=a", "--field", "tags:list<string>=b", "--zone", "Other",
            "--json")
        let record = try object(put)
        #expect(record["zone"] as? String == "Other")
        #expect(record["changeTag"] as? String != nil)
        let fields = try #require(record["fields"] as? [String: Any])
        #expect(fields["weight"] as? Double == 3)
        #expect(fields["count"] as? Int == 5)
        #expect(fields["flag"] as? Bool == true)
        #expect(fields["label"] as? String == "hello")
        #expect(fields["when"] as? String == "2026-11-29T00:00:00Z")
        #expect(fields["tags"] as? [String] == ["a", "b"])
        let zones = try object(try cli.ok("cloud", "zone", "list", "--account", "alice", "--json"))["zones"]
        #expect(zones as? [String] == ["_defaultZone", "Other"])
        let listed = try cli.ok("cloud", "record", "list", "--account", "alice", "--zone", "Other")
        #expect(listed.standardOutput.contains("f1    FutureThing  Other"))
    }

    @Test("another client's edit reaches the device; a stale edit reports serverRecordChanged and saves over it")
    func cloudEditsReachTheDevice() throws {
        let cli = try world()
        try cli.ok(
            "record", "add", "CheckIn", "--device", "phone", "--name", "c1", "--field", "mood=1", "--field",
            "date=2026-11-29")
        try cli.ok("sync", "now", "--device", "phone")
        let stale = try object(
            try cli.ok("cloud", "record", "edit", "c1", "--account", "alice", "--field", "mood=5", "--stale", "--json"))
        let conflict = try #require(stale["conflict"] as? [String: Any])
        #expect(conflict["code"] as? Int == 14)
        #expect(conflict["name"] as? String == "serverRecordChanged")
        try cli.ok("sync", "now", "--device", "phone")
        let phone =
            try object(try cli.ok("record", "list", "--device", "phone", "--json"))["records"] as? [[String: Any]]
        #expect((phone?.first?["fields"] as? [String: Any])?["mood"] as? Int == 5)
        let plain = try cli.ok("cloud", "record", "edit", "c1", "--account", "alice", "--field", "mood=6")
        #expect(!plain.standardOutput.contains("serverRecordChanged"))
    }

    @Test("cloud record delete and cloud zone delete remove what they name, and only that")
    func cloudDeletes() throws {
        let cli = try world()
        try cli.ok("cloud", "record", "put", "--account", "alice", "--type", "Note", "--name", "n1")
        try cli.ok("cloud", "record", "put", "--account", "alice", "--type", "Note", "--name", "n2", "--zone", "Other")
        try cli.ok("cloud", "record", "delete", "n1", "--account", "alice")
        try cli.exits(66, "cloud", "record", "delete", "n1", "--account", "alice")
        try cli.ok("cloud", "zone", "delete", "Other", "--account", "alice")
        let zones = try object(try cli.ok("cloud", "zone", "list", "--account", "alice", "--json"))["zones"]
        #expect(zones as? [String] == ["_defaultZone", "PrivateSyncZone"])
        let records = try object(try cli.ok("cloud", "record", "list", "--account", "alice", "--json"))["records"]
        #expect((records as? [Any])?.isEmpty == true)
    }

    @Test("a fault aimed at a device waits for that device; list shows its aim")
    func faultAimedAtADevice() throws {
        let cli = try world()
        try cli.ok("fault", "inject", "network-unavailable", "--device", "tablet", "--after", "1", "--count", "2")
        try cli.ok(
            "record", "add", "CheckIn", "--device", "phone", "--field", "mood=1", "--field", "date=2026-11-29")
        let phone = try cli.ok("sync", "now", "--device", "phone")
        #expect(phone.standardOutput.contains("sent 1 save(s)"))
        let waiting = try object(try cli.ok("fault", "list", "--json"))["waiting"] as? [[String: Any]]
        #expect(waiting?.count == 1)
        #expect(waiting?.first?["device"] as? String == "tablet")
        #expect(waiting?.first?["after"] as? Int == 1)
        #expect(waiting?.first?["remaining"] as? Int == 2)
        try cli.exits(75, "sync", "now", "--device", "tablet")  // struck: the attempt will be retried
        let struck = try object(try cli.ok("fault", "list", "--json"))["struck"] as? [String: Int]
        #expect(struck?["network-unavailable"] == 1, "the first call was let through, the second struck")
    }

    @Test("a partial failure aimed at a record fails that record's save")
    func partialFailureAimedAtARecord() throws {
        let cli = try world()
        for name in ["r1", "r2"] {
            try cli.ok(
                "record", "add", "CheckIn", "--device", "phone", "--name", name, "--field", "mood=1", "--field",
                "date=2026-11-29")
        }
        try cli.ok("fault", "inject", "item-quota-exceeded", "--record", "r2", "--device", "phone")
        try cli.run(["sync", "now", "--device", "phone"])
        let struck = try object(try cli.ok("fault", "list", "--json"))["struck"] as? [String: Int]
        #expect(struck?["item-quota-exceeded"] == 1)
        let records = try object(try cli.ok("cloud", "record", "list", "--account", "alice", "--json"))["records"]
        #expect(try #require(records as? [[String: Any]]).allSatisfy { $0["name"] as? String != "r2" })
    }

    @Test("a version-1 fault file is read as it is, and upgraded in place, faults kept, by the first write")
    func version1FaultFileIsRead() throws {
        let cli = try world()
        let path = cli.home + "/faults.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        do {
            let connection = try DatabaseFile.open(at: path, format: PersistentFaults.version1Format, create: true)
            try connection.execute("INSERT INTO faults (kind, account, remaining) VALUES ('network-failure', NULL, 3)")
        }
        let waiting = try object(try cli.ok("fault", "list", "--json"))["waiting"] as? [[String: Any]]
        #expect(waiting?.first?["kind"] as? String == "network-failure")
        #expect(waiting?.first?["remaining"] as? Int == 3)
        #expect(waiting?.first?["after"] as? Int == 0)
        #expect(waiting?.first?["device"] == nil, "any device, as before")
        #expect(
            try Connection(path: path, mode: .readOnly).scalarInt("PRAGMA user_version") == 1, "a read writes nothing")
        try cli.ok("fault", "inject", "zone-busy", "--device", "phone")
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("PRAGMA user_version") == 2)
        let after = try object(try cli.ok("fault", "list", "--json"))["waiting"] as? [[String: Any]]
        #expect(after?.map { $0["kind"] as? String } == ["network-failure", "zone-busy"])
    }

    @Test("a fault file holding a value out of range is refused as damaged (74)")
    func faultFileOutOfRange() throws {
        let cli = try world()
        try cli.ok("fault", "inject", "network-failure")
        let connection = try Connection(path: cli.home + "/faults.sqlite", mode: .readWrite)
        try connection.execute("UPDATE faults SET kind = 'gremlins'")
        let run = try cli.exits(74, "fault", "list")
        #expect(run.standardError.contains("an unknown kind"))
    }
}
