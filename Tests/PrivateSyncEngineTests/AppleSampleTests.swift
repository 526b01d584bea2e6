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
        var contactA = Contact(name: "Name 1", userModificationDate: now)
        await databaseA.saveContacts([contactA])
        try await databaseA.syncEngine.sendChanges()

        try await databaseB.syncEngine.fetchChanges()
        var contactB = try #require(await databaseB.appData.contacts[contactA.id])
        #expect(contactB.name == "Name 1")
        cloud.clock.advance(by: 60)
        contactB.name = "Name 2"
        contactB.userModificationDate = now
        await databaseB.saveContacts([contactB])
        try await databaseB.syncEngine.sendChanges()

        try await databaseA.syncEngine.fetchChanges()
        contactA = try #require(await databaseA.appData.contacts[contactA.id])
        #expect(contactA.name == "Name 2")
        #expect(await databaseA.appData.contacts.count == 1)

        cloud.clock.advance(by: 60)
        contactA.name = "Name 3"
        contactA.userModificationDate = now
        await databaseA.saveContacts([contactA])
        try await databaseA.syncEngine.sendChanges()
        try await databaseB.syncEngine.fetchChanges()
        #expect(await databaseB.appData.contacts[contactA.id]?.name == "Name 3")
        #expect(await databaseB.appData.contacts.count == 1)
    }

    @Test("a save into a zone deleted on the side fails once with zoneNotFound, then the zone and the record go up")
    func zoneNotFound() async throws {
        let database = try newTestDatabase()
        var contact = Contact(name: "I am a contact!", userModificationDate: now)
        await database.saveContacts([contact])
        try await database.syncEngine.sendChanges()
        let originalCreation = try #require(await database.appData.contacts[contact.id]?.lastKnownRecord?.creationDate)

        try await database.syncEngine.database.deleteRecordZone(withID: PSRecordZone.ID(zoneName: Contact.zoneName))
        contact.name = "I am a renamed contact!"
        contact.userModificationDate = now
        await database.saveContacts([contact])

        await #expect(throws: PSError.self) { try await database.syncEngine.sendChanges() }
        #expect(await database.appData.contacts[contact.id]?.lastKnownRecord == nil)
        try await database.syncEngine.sendChanges()

        let databaseB = try newTestDatabase()
        try await databaseB.syncEngine.fetchChanges()
        let contactB = try #require(await databaseB.appData.contacts[contact.id])
        let creationAfter = try #require(contactB.lastKnownRecord?.creationDate)
        #expect(creationAfter != originalCreation)
        #expect(contactB == contact)
    }

    @Test("a save of a record deleted on the side fails once with unknownItem, then goes up as a new record")
    func unknownItem() async throws {
        let database = try newTestDatabase()
        var contact = Contact(name: "I am a contact!", userModificationDate: now)
        await database.saveContacts([contact])
        try await database.syncEngine.sendChanges()
        let originalCreation = try #require(await database.appData.contacts[contact.id]?.lastKnownRecord?.creationDate)

        try await database.syncEngine.database.deleteRecord(withID: contact.recordID)
        contact.name = "I am a renamed contact!"
        contact.userModificationDate = now
        await database.saveContacts([contact])

        await #expect(throws: PSError.self) { try await database.syncEngine.sendChanges() }
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
        #expect(await second.syncEngine.state.pendingRecordZoneChanges.count == 1)
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
}
