import ContactsSample
import Foundation
import PrivateSyncEngineTesting
import Testing

/// The test list of Apple's CKSyncEngine sample (its `Tests/SyncTests.swift`), ported: devices are engines over one
/// fake private database, instead of two engines over a real iCloud account whose zone `setUp` deletes. Each test
/// makes its own cloud, so none depends on another, and every date comes from the cloud's clock.
@Suite("Apple's CKSyncEngine sample, its tests on the fake container")
final class AppleSampleTests {
    let cloud: SyncEngineTestCloud
    let folder: ScratchFolder

    init() throws {
        cloud = try SyncEngineTestCloud()
        folder = try ScratchFolder()
    }

    /// A device of its own with its own data file, signed into alice, syncing only when told to.
    func newTestDatabase(_ name: String = UUID().uuidString) throws -> SyncedDatabase {
        let device = try cloud.device(name, signedInTo: "alice")
        return SyncedDatabase(
            database: device.database, dataURL: folder.file("\(name).json"), automaticallySync: false,
            scheduler: cloud.scheduler)
    }

    var now: Date { cloud.clock.now() }

    @Test("contacts saved on one device arrive on another", arguments: [1, 10, 444])
    func syncContacts(count: Int) async throws {
        let databaseA = try newTestDatabase()
        let databaseB = try newTestDatabase()
        let contacts = (0..<count).map { Contact(name: "\($0)", userModificationDate: now) }
        await databaseA.saveContacts(contacts)
        try await databaseA.syncEngine.sendChanges()

        #expect(await databaseB.appData.contacts.isEmpty)
        try await databaseB.syncEngine.fetchChanges()
        #expect(Set(await databaseB.appData.contacts.values) == Set(contacts))
        try await databaseA.syncEngine.expectNothingPending()
        #expect(await databaseA.persistenceErrors.isEmpty)
    }

    @Test("a rename goes from A to B, and another from B to A")
    func renameRoundTrips() async throws {
        let databaseA = try newTestDatabase()
        let databaseB = try newTestDatabase()
        let contact = Contact(name: "Name 1", userModificationDate: now)
        await databaseA.saveContacts([contact])
        try await databaseA.syncEngine.sendChanges()
        try await databaseB.syncEngine.fetchChanges()
        #expect(await databaseB.appData.contacts[contact.id]?.name == "Name 1")

        for (writer, reader, name) in [(databaseB, databaseA, "Name 2"), (databaseA, databaseB, "Name 3")] {
            var renamed = try #require(await writer.appData.contacts[contact.id])
            cloud.clock.advance(by: 60)
            renamed.name = name
            renamed.userModificationDate = now
            await writer.saveContacts([renamed])
            try await writer.syncEngine.sendChanges()
            try await reader.syncEngine.fetchChanges()
            #expect(await reader.appData.contacts[contact.id]?.name == name)
            #expect(await reader.appData.contacts.count == 1)
        }
    }

    /// What another device deletes on the side, in the sample's two tests of a save that fails once.
    enum SideDeletion: String, CaseIterable, CustomTestStringConvertible {
        /// The contacts' zone: the save fails with `zoneNotFound`, and the zone and the record go up again.
        case zone
        /// The contact's record: the save fails with `unknownItem`, and the record goes up as a new one.
        case record

        var testDescription: String { self == .zone ? "zoneNotFound" : "unknownItem" }
    }

    @Test(
        "a save of what was deleted on the side fails once (zoneNotFound, unknownItem), then goes up anew",
        arguments: SideDeletion.allCases)
    func saveFailure(deleted: SideDeletion) async throws {
        let database = try newTestDatabase()
        var contact = Contact(name: "I am a contact!", userModificationDate: now)
        await database.saveContacts([contact])
        try await database.syncEngine.sendChanges()
        let originalCreation = try #require(await database.appData.contacts[contact.id]?.lastKnownRecord?.creationDate)

        switch deleted {
        case .zone: try await database.syncEngine.database.deleteRecordZone(withID: contact.zoneID)
        case .record: try await database.syncEngine.database.deleteRecord(withID: contact.recordID)
        }
        contact.name = "I am a renamed contact!"
        contact.userModificationDate = now
        await database.saveContacts([contact])

        let error = await #expect(throws: PSError.self) { try await database.syncEngine.sendChanges() }
        let itemError = error?.partialErrorsByItemID?[AnyHashable(contact.recordID)] as? PSError
        #expect(itemError?.code == (deleted == .zone ? .zoneNotFound : .unknownItem))
        #expect(await database.appData.contacts[contact.id]?.lastKnownRecord == nil)
        try await database.syncEngine.sendChanges()

        let databaseB = try newTestDatabase()
        try await databaseB.syncEngine.fetchChanges()
        let contactB = try #require(await databaseB.appData.contacts[contact.id])
        let creationAfter = try #require(contactB.lastKnownRecord?.creationDate)
        #expect(creationAfter != originalCreation)
        #expect(contactB == contact)
    }

    @Test("a conflict is won by the later edit, whichever device saves first", arguments: [true, false])
    func conflict(winnerSavesFirst: Bool) async throws {
        let databaseA = try newTestDatabase()
        let databaseB = try newTestDatabase()
        var contactA = Contact(name: "A1", userModificationDate: now)
        let id = contactA.id
        await databaseA.saveContacts([contactA])
        try await databaseA.syncEngine.sendChanges()
        try await databaseB.syncEngine.fetchChanges()
        var contactB = try #require(await databaseB.appData.contacts[id])
        #expect(contactB.name == "A1")

        let losingDate = now.addingTimeInterval(10)
        let winningDate = losingDate.addingTimeInterval(1)
        contactA.name = "A2"
        contactA.userModificationDate = winningDate
        await databaseA.saveContacts([contactA])
        contactB.name = "B1"
        contactB.userModificationDate = losingDate
        await databaseB.saveContacts([contactB])

        let (first, second) = winnerSavesFirst ? (databaseA, databaseB) : (databaseB, databaseA)
        try await first.syncEngine.sendChanges()
        await #expect(throws: PSError.self) { try await second.syncEngine.sendChanges() }
        #expect(await first.syncEngine.state.pendingRecordZoneChanges.count == 0)
        // The loser of the conflict sends its edit again only if it is still the later one; Apple's sends it again
        // whatever it is, and so overwrites the server's newer edit with the same value, a write for nothing.
        #expect(await second.syncEngine.state.pendingRecordZoneChanges.count == (winnerSavesFirst ? 0 : 1))
        #expect(await databaseA.appData.contacts[id] == contactA)
        #expect(await databaseB.appData.contacts[id] == (winnerSavesFirst ? contactA : contactB))

        try await second.syncEngine.sendChanges()
        try await first.syncEngine.fetchChanges()
        #expect(await databaseA.appData.contacts[id] == contactA)
        #expect(await databaseB.appData.contacts[id] == contactA)
    }
}

extension AppleSampleTests {
    @Test("a switch of account deletes the local contacts and leaves both accounts' data where it was")
    func accountSwitch() async throws {
        let device = try cloud.device("phone", signedInTo: "alice")
        let database = SyncedDatabase(
            database: device.database, dataURL: folder.file("phone.json"), automaticallySync: false)
        await database.saveContacts([Contact(name: "Alice's", userModificationDate: now)])
        try await database.syncEngine.sendChanges()
        try device.signIn("bob")
        try await database.syncEngine.fetchChanges()
        #expect(await database.appData.contacts.isEmpty)
        await database.saveContacts([Contact(name: "Bob's", userModificationDate: now)])
        try await database.syncEngine.sendChanges()
        #expect(try cloud.records(of: "alice").map { $0.encryptedValues["name"] as? String } == ["Alice's"])
        #expect(try cloud.records(of: "bob").map { $0.encryptedValues["name"] as? String } == ["Bob's"])
    }

    @Test("the user deleting the app's data in Settings deletes the contacts on every device, and none goes back")
    func purge() async throws {
        let databaseA = try newTestDatabase()
        let databaseB = try newTestDatabase()
        await databaseA.saveContacts((0..<3).map { Contact(name: "\($0)", userModificationDate: now) })
        try await databaseA.syncEngine.sendChanges()
        // Both devices have fetched since: the deletion reaches each in its database changes. (A device that never
        // fetched reads the database from no token, which reports no deletion; it learns when a save meets
        // userDeletedZone.)
        try await databaseA.syncEngine.fetchChanges()
        try await databaseB.syncEngine.fetchChanges()
        #expect(await databaseB.appData.contacts.count == 3)
        try await cloud.deleteZone(PSRecordZone.ID(zoneName: Contact.zoneName), reason: .purged, account: "alice")
        for database in [databaseA, databaseB] {
            try await database.syncEngine.fetchChanges()
            #expect(await database.appData.contacts.isEmpty)
            try? await database.syncEngine.sendChanges()
        }
        #expect(try cloud.records(of: "alice").isEmpty)
    }

    /// Device B, which fetched the contact device A saved: the start of the purge tests below.
    func secondDeviceHoldingAContactFromTheServer() async throws -> SyncedDatabase {
        let databaseA = try newTestDatabase()
        let databaseB = try newTestDatabase()
        await databaseA.saveContacts([Contact(name: "on the server", userModificationDate: now)])
        try await databaseA.syncEngine.sendChanges()
        try await databaseB.syncEngine.fetchChanges()
        return databaseB
    }

    @Test("a device that has not heard of the purge brings back nothing it held; a later contact goes up")
    func purgeMeetsAnUnsentEdit() async throws {
        let databaseB = try await secondDeviceHoldingAContactFromTheServer()
        var renamed = try #require(await databaseB.appData.contacts.values.first)
        renamed.name = "renamed before the purge"
        renamed.userModificationDate = now
        await databaseB.saveContacts([renamed])
        // A fetch with the edit unsent (it finds nothing new), then the user deletes everything in Settings, and B
        // sends before it fetches again.
        try await databaseB.syncEngine.fetchChanges()
        try await cloud.deleteZone(PSRecordZone.ID(zoneName: Contact.zoneName), reason: .purged, account: "alice")
        try? await databaseB.syncEngine.sendChanges()
        try? await databaseB.syncEngine.sendChanges()
        #expect(try cloud.records(of: "alice").isEmpty, "the edit made before the purge must not come back")
        #expect(await databaseB.appData.contacts.isEmpty, "the refused save told B of the purge")
        let later = Contact(name: "after the purge", userModificationDate: now)
        await databaseB.saveContacts([later])
        try? await databaseB.syncEngine.sendChanges()
        try await databaseB.syncEngine.sendChanges()
        #expect(try cloud.records(of: "alice").map(\.recordID.recordName) == [later.id])
        try await databaseB.syncEngine.expectNothingPending()
    }

    @Test("a contact that never reached the server outlives the news of a purge, and goes up into the zone made again")
    func purgeSparesWhatNeverWentUp() async throws {
        let databaseB = try await secondDeviceHoldingAContactFromTheServer()
        try await cloud.deleteZone(PSRecordZone.ID(zoneName: Contact.zoneName), reason: .purged, account: "alice")
        // B hears of the purge from its refused save, not from a fetch: the contact it held from the server goes,
        // the one it made and never sent stays.
        let made = Contact(name: "made here", userModificationDate: now)
        await databaseB.saveContacts([made])
        try? await databaseB.syncEngine.sendChanges()
        try? await databaseB.syncEngine.sendChanges()
        #expect(await databaseB.appData.contacts.keys.sorted() == [made.id])
        #expect(try cloud.records(of: "alice").map(\.recordID.recordName) == [made.id])
        // The fetch that reports the purge later changes nothing.
        try await databaseB.syncEngine.fetchChanges()
        #expect(await databaseB.appData.contacts.keys.sorted() == [made.id])
        try await databaseB.syncEngine.expectNothingPending()
    }
}
