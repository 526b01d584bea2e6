import PrivateSyncSQLite
import PrivateSyncTesting
import Testing

@testable import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The engine's typed state, as the user-created store keeps it: every field survives a write and a read, in the
/// forms earlier builds wrote (so their store files read as they are), and the engine's operations on it (a reset of
/// the bookkeeping, a fresh start) keep what they promise to keep.
@Suite("Engine state: typed, kept in the store's sync_state table")
struct EngineStateStoreTests {
    /// A state with every field away from its default.
    static var everyFieldSet: EngineState {
        var state = EngineState()
        state.boundUser = UserRecordID(recordName: "_alice")
        state.zoneReady = true
        state.zoneChangeToken = ChangeToken(bytes: [1, 2, 3])
        state.databaseChangeToken = ChangeToken(bytes: [4, 5])
        state.reconcileOnFullFetch = true
        state.requeueOnFullFetch = true
        state.initialFetchDone = true
        state.pause = .userDeletedZone
        state.reuploadConsentCovers = 2
        state.deletionsLearned = 3
        state.lastOutcome = .retrying(.serviceUnavailable)
        state.lastError = "the server is busy"
        state.lastAttempt = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        state.nextAttempt = Date(timeIntervalSinceReferenceDate: 800_000_060.5)
        state.retryAttempt = 4
        state.totals.sentSaves = 10
        state.totals.sentDeletes = 11
        state.totals.fetchedModifications = 12
        state.totals.fetchedDeletions = 13
        state.totals.conflictsResolved = 14
        state.epoch = 5
        state.reducedBatchSize = 50
        state.batchStreak = 6
        state.fetchedRecordProblems = ["far": "its syncCreatedAt is out of range", "near": "a; b"]
        state.creationsInFlight = ["new-2", "new-1"]
        state.deletionsUnrecorded = ["gone"]
        state.creationsNotLanded = ["again"]
        state.namesDeletedHere = ["was"]
        state.savesRefused = ["refused"]
        return state
    }

    /// The rows an earlier build wrote for ``everyFieldSet``: the on-disk format, which must never change.
    static let everyFieldRows: [String: SQLiteValue] = [
        "bound_user": .text("_alice"), "zone_ready": .integer(1), "zone_token": .blob([1, 2, 3]),
        "database_token": .blob([4, 5]), "reconcile_on_full_fetch": .integer(1), "requeue_on_full_fetch": .integer(1),
        "initial_fetch_done": .integer(1), "pause_reason": .text("userDeletedZone"), "reupload_consent": .integer(2),
        "deletions_learned": .integer(3), "last_outcome": .text("retry:serviceUnavailable"),
        "last_error": .text("the server is busy"), "last_attempt_at": .real(800_000_000.25),
        "next_attempt_at": .real(800_000_060.5), "retry_attempt": .integer(4), "sent_saves": .integer(10),
        "sent_deletes": .integer(11), "fetched_modifications": .integer(12), "fetched_deletions": .integer(13),
        "conflicts_resolved": .integer(14), "epoch": .integer(5), "batch_size": .integer(50),
        "batch_streak": .integer(6),
        "fetched_record_problems": .text("far\tits syncCreatedAt is out of range\nnear\ta; b\n"),
        "creations_in_flight": .text("new-1\nnew-2\n"), "deletions_unrecorded": .text("gone\n"),
        "creations_not_landed": .text("again\n"), "names_deleted_here": .text("was\n"),
        "saves_refused": .text("refused\n"),
    ]

    static func openStore(in world: TestWorld) throws -> RecordStore<UserCreated> {
        try RecordStore<UserCreated>.open(
            StoreConfiguration(
                name: StoreConfiguration.userCreatedName, directory: world.directory + "/state", cloudKitDatabase: .none
            ),
            partition: .demoHealth, deviceID: "phone")
    }

    static func read(_ store: RecordStore<UserCreated>) throws -> EngineState {
        try store.syncSnapshot { try $0.engineState() }
    }

    /// The engine's rows of the store, as SQLite holds them (the store's own revision counter left out).
    static func rows(_ store: RecordStore<UserCreated>) throws -> [String: SQLiteValue] {
        let connection = try Connection(path: store.path, mode: .readOnly)
        var rows: [String: SQLiteValue] = [:]
        for (key, value) in try connection.query(
            "SELECT key, value FROM sync_state WHERE key <> 'pending_revision'", row: { ($0.text(0), $0.value(1)) })
        {
            rows[key] = value
        }
        return rows
    }

    static func edit(_ store: RecordStore<UserCreated>, _ sql: String) throws {
        try Connection(path: store.path, mode: .readWrite).execute(sql)
    }

    /// Runs `body` on a new store whose engine state is ``everyFieldSet``, with that state.
    static func withEveryFieldSet(_ body: (RecordStore<UserCreated>, EngineState) throws -> Void) throws {
        let world = try TestWorld()
        let store = try openStore(in: world)
        let state = everyFieldSet
        try store.syncTransaction { try $0.updateEngineState { $0 = state } }
        try withExtendedLifetime(world) { try body(store, state) }
    }

    @Test("every field survives a write and a read, in the rows earlier builds wrote, also in a store opened anew")
    func everyFieldRoundTrips() throws {
        let world = try TestWorld()
        let store = try Self.openStore(in: world)
        let state = Self.everyFieldSet
        for key in EngineState.Key.allCases {
            #expect(state.value(for: key) != nil, "the test leaves \(key.rawValue) at its default")
        }
        try store.syncTransaction { try $0.updateEngineState { $0 = state } }
        #expect(try Self.read(store) == state)
        #expect(try EngineState.read(from: store) == state)
        #expect(try Self.rows(store) == Self.everyFieldRows)
        // Opening checks every value's range: all of them pass, and read the same.
        #expect(try Self.read(try Self.openStore(in: world)) == state)
        // A field back at its default has no row, as earlier builds removed it.
        try store.syncTransaction { try $0.updateEngineState { $0 = EngineState() } }
        #expect(try Self.read(store) == EngineState())
        #expect(try Self.rows(store).isEmpty)
    }

    @Test("deleting a record forgets it among the creations in flight, in the delete's transaction; the others stay")
    func deleteForgetsItsCreationInFlight() throws {
        let world = try TestWorld()
        let store = try Self.openStore(in: world)
        let journal = try SyncPartition.demoHealth.userCreatedType("Journal")
        for name in ["a", "b"] {
            try store.insert(
                journal, fields: ["date": .date(Date(timeIntervalSince1970: 0)), "body": .string(name)], origin: nil,
                name: name)
        }
        try store.syncTransaction { try $0.updateEngineState { $0.creationsInFlight = ["a", "b"] } }
        try store.delete("a")
        #expect(try Self.read(store).creationsInFlight == ["b"])
        try store.delete("b")
        #expect(try Self.rows(store)["creations_in_flight"] == nil)
    }

    @Test("a delete whose work alongside throws changes nothing: the record stays, with no deletion queued")
    func deleteAlongsideRollsBackWhole() throws {
        let world = try TestWorld()
        let store = try Self.openStore(in: world)
        let journal = try SyncPartition.demoHealth.userCreatedType("Journal")
        try store.insert(
            journal, fields: ["date": .date(Date(timeIntervalSince1970: 0)), "body": .string("a")], origin: nil,
            name: "a")
        let queued = try store.pendingChanges()
        #expect(throws: StoreError.self) {
            try store.delete("a") { transaction in
                try transaction.updateEngineState { $0.deletionsUnrecorded.insert("a") }
                throw StoreError(.invalidValue, "refused")
            }
        }
        #expect(try store.containsRecord(named: "a") && store.pendingChanges() == queued)
        #expect(try Self.read(store).deletionsUnrecorded.isEmpty)
        try store.delete("a") { try $0.updateEngineState { _ = $0.deletionsUnrecorded.insert("a") } }
        #expect(try !store.containsRecord(named: "a") && Self.read(store).deletionsUnrecorded == ["a"])
    }

    @Test("only the fields that changed are written")
    func onlyChangedFieldsAreWritten() throws {
        let stored = Self.everyFieldSet.storedValues
        var state = Self.everyFieldSet
        #expect(state.changes(from: stored).isEmpty)
        state.retryAttempt += 1
        state.pause = nil
        #expect(state.changes(from: stored).map(\.key).sorted() == ["pause_reason", "retry_attempt"])
        #expect(state.changes(from: stored).first { $0.key == "pause_reason" }?.value == nil)
    }

    @Test("a reset of the bookkeeping keeps the totals, the pause and the consent, and advances the epoch")
    func resetKeepsTotalsAndAdvancesEpoch() throws {
        try Self.withEveryFieldSet { store, before in
            try SyncEngine.resetBookkeeping(of: store)
            var expected = EngineState()
            expected.totals = before.totals
            expected.epoch = before.epoch + 1
            expected.pause = before.pause
            expected.reuploadConsentCovers = before.reuploadConsentCovers
            expected.deletionsLearned = before.deletionsLearned
            expected.requeueOnFullFetch = true
            #expect(try Self.read(store) == expected)
            #expect(before.afterReset() == expected)
        }
    }

    @Test("starting afresh clears everything but the totals, and advances the epoch")
    func startFreshClearsAllButTotals() throws {
        try Self.withEveryFieldSet { store, before in
            try store.syncTransaction { try $0.updateEngineState { $0 = $0.afterStartFresh() } }
            var expected = EngineState()
            expected.totals = before.totals
            expected.epoch = before.epoch + 1
            #expect(try Self.read(store) == expected)
            let totals = [
                "sent_saves", "sent_deletes", "fetched_modifications", "fetched_deletions", "conflicts_resolved",
                "epoch",
            ]
            #expect(try Self.rows(store).keys.sorted() == totals.sorted())
        }
    }

    @Test(
        "an earlier build's rows read as the typed state",
        arguments: [
            ("ok", EngineOutcome.succeeded), ("retry:networkFailure", .retrying(.networkFailure)),
            ("pause:quotaExceeded", .paused(.quotaExceeded)),
            ("account:accountChanged", .accountUnusable(.accountChanged)),
        ])
    func earlierRowsRead(outcome: String, expected: EngineOutcome) throws {
        let world = try TestWorld()
        let store = try Self.openStore(in: world)
        // As an earlier build left them (a date as an integer, as a hand edit would, reads the same).
        try Self.edit(
            store,
            """
            INSERT INTO sync_state (key, value) VALUES ('bound_user', '_bob'), ('zone_ready', 1),
                ('zone_token', X'0A0B'), ('pause_reason', 'quotaExceeded'), ('reupload_consent', 1),
                ('last_outcome', '\(outcome)'), ('next_attempt_at', 800000000), ('last_attempt_at', 799999999.5),
                ('retry_attempt', 2), ('sent_saves', 7), ('epoch', 3), ('batch_size', 100)
            """)
        let reopened = try Self.openStore(in: world)
        var state = EngineState()
        state.boundUser = UserRecordID(recordName: "_bob")
        state.zoneReady = true
        state.zoneChangeToken = ChangeToken(bytes: [10, 11])
        state.pause = .quotaExceeded
        state.reuploadConsentCovers = 1
        state.lastOutcome = expected
        state.nextAttempt = Date(timeIntervalSinceReferenceDate: 800_000_000)
        state.lastAttempt = Date(timeIntervalSinceReferenceDate: 799_999_999.5)
        state.retryAttempt = 2
        state.totals.sentSaves = 7
        state.epoch = 3
        state.reducedBatchSize = 100
        #expect(try Self.read(reopened) == state)
        #expect(try Self.read(store) == state)
        #expect(state.reuploadConsent && state.batchSize == 100)
    }

    @Test(
        "a pause or an outcome the engine never writes: the status refuses it, naming the store; the engine reads it as unset and its next write replaces it",
        arguments: [("pause_reason", "napping"), ("last_outcome", "retry:noSuchCode")])
    func unknownTextIsRefusedByTheStatus(key: String, text: String) throws {
        let world = try TestWorld()
        let store = try Self.openStore(in: world)
        try Self.edit(store, "INSERT INTO sync_state (key, value) VALUES ('\(key)', '\(text)')")
        let error = try #require(throws: StoreError.self) { try EngineState.read(from: store) }
        #expect(error.code == .damagedFile)
        #expect(error.message.contains(store.path) && error.message.contains(key))
        #expect(try Self.read(store) == EngineState())
        try store.syncTransaction { try $0.updateEngineState { $0.retryAttempt = 1 } }
        #expect(try EngineState.read(from: store).retryAttempt == 1)
        #expect(try Self.rows(store) == ["retry_attempt": .integer(1)])
    }
}
