import Foundation
import PrivateSyncSQLite
import Testing

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
}
