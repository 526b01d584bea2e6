import PrivateSyncFileSystem
import PrivateSyncSQLite
import Testing

@testable import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What only the file backend promises: persistence, permissions, several connections, refusing damaged files.
@Suite("File container")
struct FileContainerTests {
    @Test("data survives closing and reopening the file")
    func dataSurvivesReopening() async throws {
        let harness = ContainerHarness(.file)
        do {
            let container = harness.device("alice").container
            _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
            try await saveAll([makeRecord("kept", fields: ["note": .string("still here")])], to: container)
        }
        let reopened = harness.device("alice").container
        #expect(try await reopened.record(for: makeRecord("kept").recordID)["note"] == .string("still here"))
    }

    @Test("the database file is owner-only, in an owner-only folder, at cloud/<account>/<container>.sqlite")
    func fileLocationAndPermissions() async throws {
        let harness = ContainerHarness(.file)
        _ = try await harness.device("alice").container.allZones()
        let path = harness.databasePath("alice")
        #expect(path == harness.cloudRoot + "/alice/iCloud.com.example.me.sqlite")
        #expect(try FileSystem.permissions(of: path) == 0o600)
        #expect(try FileSystem.permissions(of: harness.cloudRoot + "/alice") == 0o700)
    }

    @Test("the records table can be read with plain SQL")
    func recordsTableIsReadable() async throws {
        let harness = ContainerHarness(.file)
        let container = harness.device("alice").container
        _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
        try await saveAll([makeRecord("r1", type: "CheckIn", fields: ["mood": .int64(4)])], to: container)
        let connection = try Connection(path: harness.databasePath("alice"), mode: .readOnly)
        let rows = try connection.query(
            "SELECT zone_name, record_name, record_type, json_extract(fields, '$.mood.int64') FROM records"
        ) { [$0.text(0), $0.text(1), $0.text(2), String($0.int64(3))] }
        #expect(rows == [["SyncZone", "r1", "CheckIn", "4"]])
    }

    @Test("fetching changes walks the change index, not the zone")
    func changeFetchUsesTheIndex() async throws {
        let harness = ContainerHarness(.file)
        _ = try await harness.device("alice").container.allZones()
        let connection = try Connection(path: harness.databasePath("alice"), mode: .readOnly)
        let plan = try connection.query(
            """
            EXPLAIN QUERY PLAN SELECT change_seq FROM records WHERE zone_name = 'z' AND change_seq > 5
            ORDER BY change_seq LIMIT 10
            """
        ) { $0.text(3) }.joined(separator: "\n")
        #expect(plan.contains("records_by_change"), "plan: \(plan)")
        #expect(!plan.contains("SCAN"), "plan: \(plan)")
        // The query the container runs: both arms walk their change index and are merged in order, nothing sorted.
        let changes = try connection.query("EXPLAIN QUERY PLAN \(SQLiteDatabaseStorage.changesQuery)") { $0.text(3) }
            .joined(separator: "\n")
        #expect(changes.contains("SEARCH records USING INDEX records_by_change"), "plan: \(changes)")
        #expect(
            changes.contains("SEARCH record_tombstones USING INDEX record_tombstones_by_change"), "plan: \(changes)")
        #expect(!changes.contains("SCAN") && !changes.contains("TEMP B-TREE"), "plan: \(changes)")
    }

    @Test("two connections writing to one file at once lose nothing, and a true conflict surfaces")
    func concurrentConnectionsLoseNothing() async throws {
        let harness = ContainerHarness(.file)
        let setup = harness.device("alice").container
        _ = try await setup.saveZones([RecordZone(zoneID: syncZone)])
        let (phone, tablet) = harness.containers("alice", "alice")
        async let phoneWrites: Void = {
            for batch in 0..<20 {
                try await saveAll((0..<10).map { makeRecord("phone-\(batch)-\($0)") }, to: phone)
            }
        }()
        async let tabletWrites: Void = {
            for batch in 0..<20 {
                try await saveAll((0..<10).map { makeRecord("tablet-\(batch)-\($0)") }, to: tablet)
            }
        }()
        _ = try await (phoneWrites, tabletWrites)
        var names = Set<String>()
        for page in try await ContainerConformance.ChangeFetching.allPages(setup, from: nil) {
            names.formUnion(page.modifications.map(\.recordID.recordName))
        }
        #expect(names.count == 400)
        try await saveAll([makeRecord("contested", fields: ["by": .string("phone")])], to: phone)
        let result = try await tablet.modifyRecords(
            saving: [makeRecord("contested", fields: ["by": .string("tablet")])], deleting: [])
        #expect(result.saveResults[makeRecord("contested").recordID]?.cloudCode == .serverRecordChanged)
    }

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case notSQLite, empty, truncated, zeroedHeader, foreignDatabase, anotherAccount
        var testDescription: String { rawValue }
    }

    @Test(
        "a damaged or foreign file fails every call with an error naming it, and is left byte for byte",
        arguments: Damage.allCases)
    func damagedFilesAreRefusedAndKept(damage: Damage) async throws {
        let harness = ContainerHarness(.file)
        let path = harness.databasePath("alice")
        do {
            let container = harness.device("alice").container
            _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
            try await saveAll(
                (0..<50).map { makeRecord("r\($0)", fields: ["note": .string(String(repeating: "n", count: 200))]) },
                to: container)
        }
        // Fold the WAL into the file so that the damage below hits the data.
        try Connection(path: path, mode: .readWrite).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        var bytes = try FileSystem.read(path)
        switch damage {
        case .notSQLite: bytes = Array("this is a shopping list, not a database\n".utf8)
        case .empty: bytes = []
        case .truncated: bytes = Array(bytes.prefix(bytes.count - 4096 - 100))
        case .zeroedHeader: for index in 0..<100 { bytes[index] = 0 }
        case .foreignDatabase:
            try FileSystem.removeItem(path)
            let other = try Connection(path: path, mode: .readWriteCreate)
            try other.execute("CREATE TABLE shopping (item TEXT); INSERT INTO shopping VALUES ('milk')")
            bytes = try FileSystem.read(path)
        case .anotherAccount:
            let bob = harness.device("bob").container
            _ = try await bob.allZones()
            try Connection(path: harness.databasePath("bob"), mode: .readWrite).execute(
                "PRAGMA wal_checkpoint(TRUNCATE)")
            bytes = try FileSystem.read(harness.databasePath("bob"))
        }
        try FileSystem.removeItem(path + "-wal")
        try FileSystem.removeItem(path + "-shm")
        try FileSystem.writeAtomically(bytes, to: path)
        let container = harness.device("alice").container
        do {
            _ = try await container.allZones()
            Issue.record("a \(damage) file was accepted")
        } catch {
            #expect(error.code == .internalError)
            #expect(error.message.contains(path), "the message names the file: \(error.message)")
            #expect(error.storageError is DatabaseFileError)
        }
        #expect(try FileSystem.read(path) == bytes, "the file is unchanged")
    }
}
