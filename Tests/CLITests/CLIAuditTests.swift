import Foundation
import PrivateSyncSQLite
import Testing

@testable import PrivateSyncCLI

@Suite("CLI: audit")
struct CLIAuditTests {
    /// A world where phone (alice) synced one CheckIn.
    static func syncedWorld() throws -> CLIRunner {
        try CLIRunner.syncedWorld(mood: 3)
    }

    @Test("the audit catches a local-only record planted in a container file")
    func catchesLocalOnlyRecords() throws {
        let cli = try Self.syncedWorld()
        #expect(try cli.run(["audit"]).status == 0)
        let connection = try Connection(path: cli.home + "/cloud/alice/iCloud.com.example.me.sqlite", mode: .readWrite)
        try connection.execute(
            """
            INSERT INTO records (zone_name, record_name, record_type, fields, change_tag, change_seq, created_at,
                modified_at, creator, last_modifier)
            VALUES ('PrivateSyncZone', 'PLANTED', 'Baseline', '{"value":{"double":58.0}}', 'x', 999, 0, 0, 'u', 'u')
            """)
        let run = try cli.run(["audit", "--json"])
        #expect(run.status == 1)
        let findings = run.json["findings"] as? [[String: Any]]
        #expect(findings?.count == 1)
        #expect(findings?.first?["kind"] as? String == "localOnlyType")
        #expect(findings?.first?["record"] as? String == "PLANTED")
    }

    @Test("the audit catches a record that reached another account's container")
    func catchesCrossAccountRecords() throws {
        let cli = try Self.syncedWorld()
        try cli.ok("device", "add", "laptop", "--account", "bob", "--sync", "on")
        try cli.ok("launch", "--device", "laptop")
        try cli.ok("sync", "now", "--device", "laptop")
        let alice = try Connection(path: cli.home + "/cloud/alice/iCloud.com.example.me.sqlite", mode: .readOnly)
        let row = try alice.query("SELECT record_name, fields FROM records") { ($0.text(0), $0.text(1)) }.first!
        let bob = try Connection(path: cli.home + "/cloud/bob/iCloud.com.example.me.sqlite", mode: .readWrite)
        try bob.run(
            """
            INSERT INTO records (zone_name, record_name, record_type, fields, change_tag, change_seq, created_at,
                modified_at, creator, last_modifier)
            VALUES ('PrivateSyncZone', ?, 'CheckIn', ?, 'x', 999, 0, 0, 'u', 'u')
            """, .text(row.0), .text(row.1))
        let run = try cli.run(["audit", "--json"])
        #expect(run.status == 1)
        let findings = run.json["findings"] as? [[String: Any]]
        #expect(findings?.map { $0["kind"] as? String } == ["wrongAccount"])
        #expect((findings?.first?["detail"] as? String)?.contains("bob's container") == true)
    }

    @Test("audit --convergence shows creation times that differ by less than a second as different")
    func subSecondTimesDifferVisibly() throws {
        let cli = try CLIRunner.world(launching: "A")
        try cli.addNote(on: "A", title: "a", "--name", "tag")
        try cli.ok("sync", "now", "--device", "A")
        let listed = try cli.ok("record", "list", "--device", "A", "--json").json["records"] as? [[String: Any]]
        let created = try #require(listed?.first?["createdAt"] as? String)
        // Another client moves the creation time by 0.3 s (the same second, unless it crosses one).
        let shifted = try #require(DateArgument.parse(created, now: Date())).addingTimeInterval(0.3)
        try cli.ok(
            "cloud", "record", "edit", "tag", "--account", "alice", "--allow-reserved", "--field",
            "syncCreatedAt:date=\(DateArgument.text(shifted))")
        let audit = try cli.exits(1, "audit", "--convergence")
        let line = try #require(audit.standardOutput.split(separator: "\n").first { $0.contains("differentTimes") })
        let parts = line.components(separatedBy: " here, ")
        #expect(
            parts.count == 2 && !parts[1].hasPrefix(parts[0].components(separatedBy: "created ").last ?? ""), "\(line)")
        #expect(line.contains("s apart"), "\(line)")
    }
}
