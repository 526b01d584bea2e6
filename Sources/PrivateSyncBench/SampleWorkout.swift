import ContactsSample
import PrivateSyncEngineTesting

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The scenarios of Apple's CKSyncEngine sample tests, run with the ported sample delegate for
/// `apple_sample_tests_seconds`: the same requests as `AppleSampleTests`, each checked for its outcome (a run that
/// went wrong is no measurement), without the test framework around them.
struct SampleWorkout {
    let folder: String

    /// Runs the eight scenarios, each in a cloud of its own.
    func runAll() async throws {
        for count in [1, 10, 444] { try await syncContacts(count) }
        try await rename()
        try await removedOnTheSide(zone: true)
        try await removedOnTheSide(zone: false)
        for winnerFirst in [true, false] { try await conflict(winnerSavesFirst: winnerFirst) }
    }

    private func devices(_ count: Int) throws -> (SyncEngineTestCloud, [SyncedDatabase]) {
        let cloud = try SyncEngineTestCloud()
        let databases = try (0..<count).map { index in
            let name = "\(UUID().uuidString)-\(index)"
            return SyncedDatabase(
                database: try cloud.device(name, signedInTo: "alice").database,
                dataURL: URL(filePath: folder + "/\(name).json"), automaticallySync: false)
        }
        return (cloud, databases)
    }

    private func check(_ condition: Bool, _ what: String) throws {
        if !condition { throw BenchError("the sample workout: \(what)") }
    }

    private func syncContacts(_ count: Int) async throws {
        let (cloud, pair) = try devices(2)
        let contacts = (0..<count).map { Contact(name: "\($0)", userModificationDate: cloud.clock.now()) }
        await pair[0].saveContacts(contacts)
        try await pair[0].syncEngine.sendChanges()
        try await pair[1].syncEngine.fetchChanges()
        try check(await pair[1].appData.contacts.count == count, "\(count) contacts did not arrive")
        withExtendedLifetime(pair) {}
    }

    private func rename() async throws {
        let (cloud, pair) = try devices(2)
        var contact = Contact(name: "Name 1", userModificationDate: cloud.clock.now())
        for (step, name) in ["Name 2", "Name 3"].enumerated() {
            let (writer, reader) = step == 0 ? (pair[0], pair[1]) : (pair[1], pair[0])
            await writer.saveContacts([contact])
            try await writer.syncEngine.sendChanges()
            try await reader.syncEngine.fetchChanges()
            cloud.clock.advance(by: 60)
            contact.name = name
            contact.userModificationDate = cloud.clock.now()
        }
        try check(await pair[0].appData.contacts[contact.id]?.name == "Name 2", "the rename did not arrive")
        withExtendedLifetime(pair) {}
    }

    private func removedOnTheSide(zone: Bool) async throws {
        let (cloud, single) = try devices(1)
        var contact = Contact(name: "I am a contact!", userModificationDate: cloud.clock.now())
        await single[0].saveContacts([contact])
        try await single[0].syncEngine.sendChanges()
        if zone {
            try await single[0].syncEngine.database.deleteRecordZone(withID: contact.zoneID)
        } else {
            try await single[0].syncEngine.database.deleteRecord(withID: contact.recordID)
        }
        contact.name = "I am a renamed contact!"
        await single[0].saveContacts([contact])
        let failed = (try? await single[0].syncEngine.sendChanges()) == nil
        try await single[0].syncEngine.sendChanges()
        try check(failed, "the save into what was removed did not fail")
        try check(try cloud.records(of: "alice").count == 1, "the record did not go up again")
        // The engine holds its delegate weakly, as CloudKit's does: the app (here, this scenario) keeps it.
        withExtendedLifetime(single) {}
    }

    private func conflict(winnerSavesFirst: Bool) async throws {
        let (cloud, pair) = try devices(2)
        var winner = Contact(name: "A1", userModificationDate: cloud.clock.now())
        await pair[0].saveContacts([winner])
        try await pair[0].syncEngine.sendChanges()
        try await pair[1].syncEngine.fetchChanges()
        var loser = winner
        loser.name = "B1"
        loser.userModificationDate = cloud.clock.now().addingTimeInterval(10)
        winner.name = "A2"
        winner.userModificationDate = cloud.clock.now().addingTimeInterval(11)
        await pair[0].saveContacts([winner])
        await pair[1].saveContacts([loser])
        let (first, second) = winnerSavesFirst ? (pair[0], pair[1]) : (pair[1], pair[0])
        try await first.syncEngine.sendChanges()
        try check((try? await second.syncEngine.sendChanges()) == nil, "the conflicting save did not fail")
        try await second.syncEngine.sendChanges()
        try await first.syncEngine.fetchChanges()
        try await second.syncEngine.fetchChanges()
        for database in pair {
            try check(await database.appData.contacts[winner.id] == winner, "the later edit did not win")
        }
    }
}
