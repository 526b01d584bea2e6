import PrivateCloud
import PrivateSyncFileSystem
import PrivateSyncSQLite
import Synchronization
import Testing

@testable import DeviceStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Record store")
struct RecordStoreTests {
    @Test("each partition lands in its own owner-only file, named <configuration>.store")
    func eachPartitionHasItsOwnFile() throws {
        let stores = try StorePair()
        let (folder, user, local) = (stores.folder, stores.user, stores.local)
        let note = try user.insertCheckIn(mood: 3)
        let measured = try local.insert(
            baseline,
            fields: ["metric": .string("hrv"), "value": .double(42), "computedAt": someDate, "windowDays": .int64(7)],
            writtenUnder: nil)
        #expect(user.path == folder.path + "/UserCreated.store")
        #expect(local.path == folder.path + "/LocalOnly.store")
        #expect(try FileSystem.permissions(of: user.path) == 0o600)
        #expect(try FileSystem.permissions(of: local.path) == 0o600)
        #expect(try user.record(named: measured.name) == nil)
        #expect(try local.record(named: note.name) == nil)
        #expect(try user.countsByType() == ["CheckIn": 1])
        #expect(try local.countsByType() == ["Baseline": 1])
    }

    @Test("containsRecord finds a record by name in its own store only, without reading its fields")
    func containsFindsARecordInItsOwnStore() throws {
        let stores = try StorePair()
        let (user, local) = (stores.user, stores.local)
        let note = try user.insertCheckIn(mood: 3)
        #expect(try user.containsRecord(named: note.name))
        #expect(try !local.containsRecord(named: note.name))
        #expect(try !user.containsRecord(named: "no-such-record"))
        _ = try user.delete(note.name)
        #expect(try !user.containsRecord(named: note.name))
    }

    @Test("a store file refuses to open as the other partition's store, and is left unchanged")
    func storeFileKeepsItsPartition() throws {
        let folder = TemporaryDirectory()
        _ = try localStore(in: folder.path)
        let before = try FileSystem.read(folder.path + "/LocalOnly.store")
        let error = #expect(throws: StoreError.self) {
            try RecordStore<UserCreated>.open(
                StoreConfiguration(name: "LocalOnly", directory: folder.path, cloudKitDatabase: .none), partition: demo,
                deviceID: "phone")
        }
        #expect(error?.code == .damagedFile)
        #expect(try FileSystem.read(folder.path + "/LocalOnly.store") == before)
    }

    @Test("a user-created write queues its pending change in the same transaction; a local-only write queues none")
    func writesQueuePendingChanges() throws {
        let folder = TemporaryDirectory()
        let user = try userStore(in: folder.path)
        let record = try user.insertCheckIn(mood: 3)
        #expect(try user.pendingChanges().map(\.recordName) == [record.name])
        let local = try localStore(in: folder.path)
        _ = try local.insert(
            baseline,
            fields: ["metric": .string("hrv"), "value": .double(42), "computedAt": someDate, "windowDays": .int64(7)],
            writtenUnder: nil)
        let connection = try Connection(path: local.path, mode: .readOnly)
        #expect(try connection.scalarInt("SELECT count(*) FROM pending_changes") == 0)
    }

    @Test("pending changes collapse as CKSyncEngine's: one per record, in first-queued order, latest kind")
    func pendingChangesCollapse() throws {
        try withUserStore { store, _ in
            let a = try store.insertCheckIn(mood: 1)
            let b = try store.insertCheckIn(mood: 2)
            try store.update(a.name, setting: ["mood": .int64(5)])
            #expect(try store.pendingChanges().map(\.recordName) == [a.name, b.name])
            #expect(try store.pendingChanges().map(\.kind) == [.save, .save])
            let revisionBefore = try #require(try store.pendingChanges().first?.revision)
            try store.delete(a.name)
            #expect(try store.pendingChanges().map(\.kind) == [.delete, .save])
            #expect(
                try #require(try store.pendingChanges().first?.revision) > revisionBefore,
                "every queueing gets a new revision")
        }
    }

    @Test(
        "bad writes are refused with a precise error and store nothing",
        arguments: [
            (["mood": FieldValue.int64(3)], StoreError.Code.missingField),
            (["mood": .string("three"), "date": someDate], .wrongFieldType),
            (["mood": .int64(3), "date": someDate, "colour": .string("red")], .unknownField),
            (
                ["mood": .int64(3), "date": someDate, "note": .string(String(repeating: "x", count: 1_048_576))],
                .recordTooLarge
            ),
            (["mood": .int64(3), "date": .date(Date(timeIntervalSinceReferenceDate: .nan))], .invalidValue),
        ])
    func badWritesAreRefused(fields: [String: FieldValue], code: StoreError.Code) throws {
        try withUserStore { store, _ throws in
            let error = #expect(throws: StoreError.self) {
                try store.insert(checkIn, fields: fields, writtenUnder: nil)
            }
            #expect(error?.code == code)
            #expect(try store.count() == 0)
            #expect(try store.pendingChangeCount() == 0)
        }
    }

    @Test("edits and deletes need the record to be in this store")
    func editAndDeleteFindTheRecord() throws {
        try withUserStore { store, _ in
            let record = try store.insertCheckIn(mood: 3)
            let edited = try store.update(record.name, setting: ["mood": .int64(4), "note": .string("better")])
            #expect(edited.fields["mood"] == .int64(4))
            #expect(throws: StoreError.self) { try store.update(record.name, setting: ["mood": nil]) }
            let missing = #expect(throws: StoreError.self) {
                try store.update("no-such-record", setting: ["mood": .int64(1)])
            }
            #expect(missing?.code == .recordNotFound)
            try store.delete(record.name)
            #expect(try store.record(named: record.name) == nil)
        }
    }

    @Test("an acknowledged write survives closing and reopening the store")
    func writesAreDurable() throws {
        let folder = TemporaryDirectory()
        let name: String
        do {
            let store = try userStore(in: folder.path)
            name = try store.insert(
                checkIn, fields: ["mood": .int64(3), "date": someDate], writtenUnder: try AccountID("alice")
            ).name
        }
        let reopened = try userStore(in: folder.path)
        let record = try #require(try reopened.record(named: name))
        #expect(record.fields["mood"] == .int64(3))
        #expect(record.origin == (try AccountID("alice")).userRecordID)
        #expect(try reopened.pendingChanges().map(\.recordName) == [name])
    }

    @Test("after a crash nothing more is committed, and what was committed stays")
    func crashStopsCommits() throws {
        let folder = TemporaryDirectory()
        let crash = CrashSwitch()
        let store = try userStore(in: folder.path, crashSwitch: crash)
        let kept = try store.insertCheckIn(mood: 1)
        crash.crash()
        let error = #expect(throws: StoreError.self) {
            try store.insertCheckIn(mood: 2)
        }
        #expect(error?.code == .processCrashed)
        let reopened = try userStore(in: folder.path)
        #expect(try reopened.records().map(\.name) == [kept.name])
        #expect(try reopened.pendingChangeCount() == 1)
    }

    @Test(
        "a switch that asks before each commit kills the process at the commit it says: that one and every later lost")
    func switchTripsWhereItIsTold() throws {
        let folder = TemporaryDirectory()
        let asked = Mutex(0)
        // The third commit dies.
        let crash = CrashSwitch(trippingWhen: {
            asked.withLock { count in
                count += 1
                return count == 3
            }
        })
        let store = try userStore(in: folder.path, crashSwitch: crash)
        let kept = try [store.insertCheckIn(mood: 1), store.insertCheckIn(mood: 2)].map(\.name)
        #expect(throws: StoreError.self) { try store.insertCheckIn(mood: 3) }
        #expect(crash.isDown && crash.diedAtCommit)
        let error = #expect(throws: StoreError.self) { try store.insertCheckIn(mood: 4) }
        #expect(error?.code == .processCrashed)
        let reopened = try userStore(in: folder.path)
        #expect(Set(try reopened.records().map(\.name)) == Set(kept))
    }

    @Test("a local-only configuration that mirrors to CloudKit is refused as invalid, and nothing is created")
    func cloudLocalOnlyConfigurationIsRefused() throws {
        let folder = TemporaryDirectory()
        let cloud = StoreConfiguration(
            name: StoreConfiguration.localOnlyName, directory: folder.path,
            cloudKitDatabase: .private(try ContainerIdentifier("iCloud.com.example.me")))
        let local = StoreConfiguration(
            name: StoreConfiguration.userCreatedName, directory: folder.path, cloudKitDatabase: .none)
        let error = #expect(throws: StoreError.self) {
            try DeviceStores.open(
                localOnly: cloud, userCreated: local, partition: demo, deviceID: "phone", clock: ManualClock(),
                names: SeededRecordNames(seed: 1), durability: .survivesProcessCrash, crashSwitch: nil)
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(try FileSystem.contents(ofDirectory: folder.path).isEmpty)
    }

    @Test("a cloud store without its folder fails with Cocoa error 512 and creates nothing; a local store creates it")
    func missingFolder() throws {
        let folder = TemporaryDirectory()
        let missing = folder.path + "/Library/Application Support"
        let error = #expect(throws: StoreError.self) { try userStore(in: missing, cloud: true) }
        let cocoa = error?.underlying as? CocoaStyleError
        #expect(error?.code == .cannotCreateStore)
        #expect(cocoa?.domain == "NSCocoaErrorDomain" && cocoa?.code == 512)
        #expect(cocoa?.localizedDescription == "The file couldn't be saved.")
        #expect(cocoa?.failureReason == "Failed to create file")
        #expect(!FileSystem.exists(missing))
        _ = try userStore(in: missing, cloud: false)
        #expect(FileSystem.isDirectory(missing))
    }

    @Test("field versions record who wrote each field and when, and round-trip through their text")
    func fieldVersions() throws {
        try withUserStore { store, _ in
            let record = try store.insertCheckIn(mood: 3)
            #expect(record.fieldVersions["mood"]?.device == "phone")
            #expect(FieldVersions(encoded: record.fieldVersions.encoded) == record.fieldVersions)
            #expect(FieldVersions(encoded: "mood=oops@x") == nil)
        }
    }
}
