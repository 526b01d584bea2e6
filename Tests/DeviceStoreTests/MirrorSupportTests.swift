import PrivateCloud
import PrivateSyncFileSystem
import Testing

@testable import DeviceStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the partition mirror asks of the user-created store beyond what the app's engine does: a copy made by
/// SQLite, whole-store deletions and queues, and a full fetch's reconciliation across every account.
@Suite("The store's operations for the partition mirror")
struct MirrorSupportTests {
    /// What a server's answer leaves on a record it confirmed.
    static let confirmed = SystemFields(
        changeTag: "t1", creationDate: Date(timeIntervalSinceReferenceDate: 0),
        modificationDate: Date(timeIntervalSinceReferenceDate: 0), creatorUserRecordID: UserRecordID(recordName: "_u"),
        lastModifiedUserRecordID: UserRecordID(recordName: "_u"))

    /// Runs `body` on a store holding CheckIn `a`, unsent, and the unsent delete of CheckIn `b`.
    func withOneKeptOneDeleted(_ body: (RecordStore<UserCreated>) throws -> Void) throws {
        try withUserStore { store, _ in
            try store.insertCheckIn(mood: 3, name: "a")
            try store.insertCheckIn(mood: 4, name: "b")
            try store.delete("b")
            try body(store)
        }
    }

    @Test("a copy holds what was committed, opens as a store, and never overwrites a file")
    func copyHoldsWhatWasCommitted() throws {
        try withUserStore { store, folder in
            try store.insertCheckIn(mood: 3, name: "a")
            try store.insertCheckIn(mood: 4, name: "b")
            let copyFolder = folder + "/next"
            try FileSystem.createDirectory(copyFolder, permissions: 0o700)
            try store.copy(to: copyFolder + "/UserCreated.store")
            let copy = try userStore(in: copyFolder)
            #expect(try copy.recordNames() == ["a", "b"])
            #expect(try copy.pendingChanges().map(\.recordName) == ["a", "b"])
            let error = #expect(throws: StoreError.self) { try store.copy(to: copyFolder + "/UserCreated.store") }
            #expect(error?.code == .storage)
            #expect(try copy.recordNames() == ["a", "b"])
        }
    }

    @Test("removing every record removes their changes and the unsent deletes too")
    func removeAllRecords() throws {
        try withOneKeptOneDeleted { store in
            try store.syncTransaction { try $0.removeAllRecords() }
            #expect(try store.recordNames().isEmpty)
            #expect(try store.pendingChangeCount() == 0)
        }
    }

    @Test("a sign-in queues the records no server confirmed, of the account or of none, and no other account's")
    func queueUnconfirmedRecords() throws {
        try withUserStore { store, _ in
            let alice = UserRecordID(recordName: "_alice")
            try store.insert(checkIn, fields: ["mood": .int64(1), "date": someDate], origin: nil, name: "unowned")
            try store.insert(checkIn, fields: ["mood": .int64(2), "date": someDate], origin: alice, name: "hers")
            try store.insert(
                checkIn, fields: ["mood": .int64(3), "date": someDate], origin: UserRecordID(recordName: "_bob"),
                name: "his")
            try store.insert(checkIn, fields: ["mood": .int64(4), "date": someDate], origin: alice, name: "confirmed")
            let queued = try store.syncTransaction { transaction -> [String] in
                for name in ["unowned", "hers", "his", "confirmed"] {
                    try transaction.removePendingChange(named: name, ifRevision: nil)
                }
                try transaction.setServerFields(Self.confirmed, of: "confirmed")
                return try transaction.queueUnconfirmedRecords(of: alice)
            }
            // In creation order; made at one instant, by name.
            #expect(queued == ["hers", "unowned"])
            #expect(try store.pendingChanges().map(\.recordName) == ["hers", "unowned"])
            #expect(try store.record(named: "hers")?.origin == alice)
        }
    }

    @Test("a purge's bookkeeping: every record's name, and the unsent deletes dropped")
    func namesAndPendingDeletes() throws {
        try withOneKeptOneDeleted { store in
            #expect(try store.syncSnapshot { try $0.recordNames() } == ["a"])
            try store.syncTransaction { try $0.removePendingDeletes() }
            #expect(try store.pendingChanges().map(\.recordName) == ["a"])
        }
    }

    @Test("a full fetch's reconciliation without an account deletes every confirmed record it did not see")
    func reconcileWithoutAccount() throws {
        try withUserStore { store, _ in
            try store.insertCheckIn(mood: 3, name: "seen")
            try store.insertCheckIn(mood: 4, name: "gone")
            try store.insertCheckIn(mood: 5, name: "unsent")
            let removed = try store.syncTransaction { transaction -> [String] in
                for name in ["seen", "gone"] {
                    try transaction.setServerFields(Self.confirmed, of: name)
                    try transaction.removePendingChange(named: name, ifRevision: nil)
                }
                try transaction.clearSeenRecords()
                try transaction.markSeen("seen")
                return try transaction.deleteSyncedRecordsNotSeen(of: nil)
            }
            #expect(removed == ["gone"])
            #expect(try store.recordNames() == ["seen", "unsent"])
        }
    }
}
