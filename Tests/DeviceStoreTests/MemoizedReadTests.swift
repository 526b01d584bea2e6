import PrivateCloud
import PrivateSyncSQLite
import Synchronization
import Testing

@testable import DeviceStore

/// A memoized read runs again once anything is committed to the store: by the store itself, by another store open
/// on the same file, or by another connection (a hand edit); and only then.
@Suite("Record store: memoized reads")
struct MemoizedReadTests {
    /// How often a memoized read really ran.
    final class Runs: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// The number of pending changes, counting how often it was really read.
    static func pendingCount(_ store: RecordStore<UserCreated>, runs: Runs) throws -> Int {
        try store.syncSnapshot(memoizedAs: "test") { state in
            runs.add()
            return try state.pendingCount()
        }
    }

    @Test("an unchanged store answers from the memo; a commit by the store itself is read again")
    func ownCommitIsReadAgain() throws {
        try withUserStore { store, _ in
            let runs = Runs()
            #expect(try Self.pendingCount(store, runs: runs) == 0)
            #expect(try Self.pendingCount(store, runs: runs) == 0)
            #expect(runs.value == 1)
            try store.insertCheckIn(mood: 3)
            #expect(try Self.pendingCount(store, runs: runs) == 1)
            #expect(runs.value == 2)
            // A write that fails and rolls back commits nothing, but is read again all the same (never less often).
            #expect(throws: StoreError.self) {
                try store.syncTransaction { state in
                    try state.queue(.save, name: "rolled-back", type: "CheckIn")
                    throw StoreError(.storage, "abandoned")
                }
            }
            #expect(try Self.pendingCount(store, runs: runs) == 1)
            #expect(runs.value == 3)
        }
    }

    @Test("a commit through another connection, a second store on the file or a hand edit, is read again")
    func otherConnectionsCommitIsReadAgain() throws {
        try withUserStore { store, folder in
            let runs = Runs()
            #expect(try Self.pendingCount(store, runs: runs) == 0)
            let other = try userStore(in: folder)
            try other.insertCheckIn(mood: 3)
            #expect(try Self.pendingCount(store, runs: runs) == 1)
            let hand = try Connection(path: store.path, mode: .readWrite)
            try hand.execute("DELETE FROM pending_changes")
            #expect(try Self.pendingCount(store, runs: runs) == 0)
            #expect(try Self.pendingCount(store, runs: runs) == 0)
            #expect(runs.value == 3)
        }
    }

    @Test("memos under different names are kept apart")
    func namesAreKeptApart() throws {
        try withUserStore { store, _ throws in
            #expect(try store.syncSnapshot(memoizedAs: "one") { _ in 1 } == 1)
            #expect(try store.syncSnapshot(memoizedAs: "two") { _ in 2 } == 2)
            #expect(try store.syncSnapshot(memoizedAs: "one") { _ in 3 } == 1)
        }
    }

    @Test("origins and record names agree with the records, in their order, before and after a write")
    func originsAgreeWithRecords() throws {
        try withUserStore { store, _ in
            for mood in 0..<3 {
                _ = try store.insert(
                    checkIn, fields: ["mood": .int64(Int64(mood)), "date": someDate],
                    writtenUnder: mood == 1 ? nil : try AccountID("alice"))
            }
            for _ in 0..<2 {
                let records = try store.records()
                #expect(try store.origins() == records.map { RecordOrigin(name: $0.name, origin: $0.origin) })
                #expect(try store.recordNames() == Set(records.map(\.name)))
                try store.insertCheckIn(mood: 9)
            }
        }
    }
}
