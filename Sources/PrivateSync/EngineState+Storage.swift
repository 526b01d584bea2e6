import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension EngineState {
    /// The key of each field in the user-created store's `sync_state` table: the store's one list of them, with the
    /// names store files hold and the shape it checks each value against.
    typealias Key = SyncStateKey

    /// How a read meets a pause reason or an outcome the engine never writes (a hand edit, a damaged file).
    package enum UnknownText: Sendable {
        /// Refused, naming the store: what the status and the host read, which must never show a made-up state.
        case refused
        /// Read as unset, as the engine has always read it: its next write of the state replaces the row.
        case readAsUnset
    }

    /// Reads the state from the store's values (``SyncTransaction/syncStateValues()``): an unset key is its field's
    /// default.
    ///
    /// - Parameters:
    ///   - values: The values, by key; keys this build does not know are not read.
    ///   - path: The store file, for messages.
    ///   - unknownText: How to read a pause reason or an outcome the engine never writes.
    /// - Throws: `StoreError` `damagedFile`, naming the store, for a value of another type than its field's, or
    ///   for a pause reason or an outcome the engine never writes when `unknownText` is `refused`.
    init(values: [String: SyncStateValue], store path: String, unknownText: UnknownText) throws(StoreError) {
        let stored = StoredValues(values: values, path: path)
        self.init()
        boundUser = try stored.text(.boundUser).map(UserRecordID.init(recordName:))
        zoneReady = try stored.flag(.zoneReady)
        zoneChangeToken = try stored.bytes(.zoneToken).map(ChangeToken.init(bytes:))
        databaseChangeToken = try stored.bytes(.databaseToken).map(ChangeToken.init(bytes:))
        reconcileOnFullFetch = try stored.flag(.reconcileOnFullFetch)
        requeueOnFullFetch = try stored.flag(.requeueOnFullFetch)
        initialFetchDone = try stored.flag(.initialFetchDone)
        if let text = try stored.text(.pauseReason) {
            pause = PauseReason(rawValue: text)
            if pause == nil && unknownText == .refused { throw stored.damaged(.pauseReason, "no pause reason") }
        }
        reuploadConsentCovers = try stored.count(.reuploadConsent)
        deletionsLearned = try stored.count(.deletionsLearned)
        if let text = try stored.text(.lastOutcome) {
            lastOutcome = EngineOutcome(encoded: text)
            if lastOutcome == nil && unknownText == .refused { throw stored.damaged(.lastOutcome, "no outcome") }
        }
        lastError = try stored.text(.lastError)
        lastAttempt = try stored.date(.lastAttemptAt)
        nextAttempt = try stored.date(.nextAttemptAt)
        retryAttempt = try stored.count(.retryAttempt)
        totals.sentSaves = try stored.count(.sentSaves)
        totals.sentDeletes = try stored.count(.sentDeletes)
        totals.fetchedModifications = try stored.count(.fetchedModifications)
        totals.fetchedDeletions = try stored.count(.fetchedDeletions)
        totals.conflictsResolved = try stored.count(.conflictsResolved)
        epoch = try stored.integer(.epoch) ?? 0
        reducedBatchSize = try stored.integer(.batchSize).map { Int($0) }
        batchStreak = try stored.count(.batchStreak)
        if let text = try stored.text(.creationsInFlight) { creationsInFlight = SyncStateValue.names(inList: text) }
        if let text = try stored.text(.deletionsUnrecorded) {
            deletionsUnrecorded = SyncStateValue.names(inList: text)
        }
        if let text = try stored.text(.creationsNotLanded) { creationsNotLanded = SyncStateValue.names(inList: text) }
        if let text = try stored.text(.namesDeletedHere) { namesDeletedHere = SyncStateValue.names(inList: text) }
        if let text = try stored.text(.savesRefused) { savesRefused = SyncStateValue.names(inList: text) }
        if let text = try stored.text(.fetchedRecordProblems) {
            guard let refused = Self.fetchedRecordProblems(decoding: text) else {
                if unknownText == .refused {
                    throw stored.damaged(.fetchedRecordProblems, "no list of refused records")
                }
                return
            }
            fetchedRecordProblems = refused
        }
    }

    /// The stored form of ``fetchedRecordProblems``: a line `name<TAB>reason` per record, sorted by name (a CloudKit record
    /// name holds no tab or newline, and a reason is the engine's own sentence, kept to one line).
    package static func encoded(fetchedRecordProblems: [String: String]) -> String {
        var text = ""
        for name in fetchedRecordProblems.keys.sorted() {
            text +=
                name + "\t" + fetchedRecordProblems[name]!.replacing("\n", with: " ").replacing("\t", with: " ") + "\n"
        }
        return text
    }

    /// Reads the stored form of ``fetchedRecordProblems``; `nil` when it is not one.
    package static func fetchedRecordProblems(decoding text: String) -> [String: String]? {
        var refused: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { return nil }
            refused[String(parts[0])] = String(parts[1])
        }
        return refused
    }

    /// The value the store keeps for `key`, or `nil` when the field is at its default (and the key has no row):
    /// the forms earlier builds wrote, flags as 1, dates as seconds since 2001, outcomes as `EngineOutcome.encoded`.
    ///
    /// - Parameter key: The field's key.
    /// - Returns: The value to store, or `nil` to remove the key.
    func value(for key: Key) -> SyncStateValue? {
        func flag(_ set: Bool) -> SyncStateValue? { set ? .integer(1) : nil }
        func count(_ count: Int) -> SyncStateValue? { count == 0 ? nil : .integer(Int64(count)) }
        func date(_ date: Date?) -> SyncStateValue? { date.map { .real($0.timeIntervalSinceReferenceDate) } }
        return switch key {
        case .boundUser: boundUser.map { .text($0.recordName) }
        case .zoneReady: flag(zoneReady)
        case .zoneToken: zoneChangeToken.map { .bytes($0.bytes) }
        case .databaseToken: databaseChangeToken.map { .bytes($0.bytes) }
        case .reconcileOnFullFetch: flag(reconcileOnFullFetch)
        case .requeueOnFullFetch: flag(requeueOnFullFetch)
        case .initialFetchDone: flag(initialFetchDone)
        case .pauseReason: pause.map { .text($0.rawValue) }
        case .reuploadConsent: count(reuploadConsentCovers)
        case .deletionsLearned: count(deletionsLearned)
        case .lastOutcome: lastOutcome.map { .text($0.encoded) }
        case .lastError: lastError.map { .text($0) }
        case .lastAttemptAt: date(lastAttempt)
        case .nextAttemptAt: date(nextAttempt)
        case .retryAttempt: count(retryAttempt)
        case .sentSaves: count(totals.sentSaves)
        case .sentDeletes: count(totals.sentDeletes)
        case .fetchedModifications: count(totals.fetchedModifications)
        case .fetchedDeletions: count(totals.fetchedDeletions)
        case .conflictsResolved: count(totals.conflictsResolved)
        case .epoch: epoch == 0 ? nil : .integer(epoch)
        case .batchSize: reducedBatchSize.map { .integer(Int64($0)) }
        case .batchStreak: count(batchStreak)
        case .fetchedRecordProblems:
            fetchedRecordProblems.isEmpty ? nil : .text(Self.encoded(fetchedRecordProblems: fetchedRecordProblems))
        case .creationsInFlight: SyncStateValue.nameList(creationsInFlight)
        case .deletionsUnrecorded: SyncStateValue.nameList(deletionsUnrecorded)
        case .creationsNotLanded: SyncStateValue.nameList(creationsNotLanded)
        case .namesDeletedHere: SyncStateValue.nameList(namesDeletedHere)
        case .savesRefused: SyncStateValue.nameList(savesRefused)
        }
    }

    /// The rows that hold this state: a value for every field away from its default.
    var storedValues: [String: SyncStateValue] {
        var values: [String: SyncStateValue] = [:]
        for key in Key.allCases { values[key.rawValue] = value(for: key) }
        return values
    }

    /// The writes that turn the rows read in this transaction into this state's: only the keys whose value
    /// changed. A row the read could not take (an outcome the engine never writes, read as unset) differs from
    /// whatever the state holds now, so it is replaced; a row that already holds this state's value is not written.
    ///
    /// - Parameter stored: The values the state was read from, in the same transaction.
    /// - Returns: Each changed key with its new value (`nil` removes it).
    func changes(from stored: [String: SyncStateValue]) -> [(key: String, value: SyncStateValue?)] {
        var changes: [(key: String, value: SyncStateValue?)] = []
        for key in Key.allCases {
            let value = value(for: key)
            if value != stored[key.rawValue] { changes.append((key.rawValue, value)) }
        }
        return changes
    }

    /// Reads the engine's state from a store on one snapshot, with the number of changes waiting for the bound
    /// account: what every status reads, so it is read again only once something was committed.
    ///
    /// - Parameter store: The user-created store.
    /// - Returns: The state, and the changes that may go to the bound account (every change, with none bound).
    /// - Throws: `StoreError`: `damagedFile`, naming the store, for a value the engine never writes.
    static func readWithPendingCount(
        from store: RecordStore<UserCreated>
    ) throws(StoreError) -> (state: EngineState, pendingChanges: Int) {
        try store.syncSnapshot(memoizedAs: "EngineState") { transaction in
            let state = try transaction.engineState(unknownText: .refused)
            return (state, try transaction.sendablePendingCount(for: state.boundUser))
        }
    }

    /// Reads the engine's state from a store on one snapshot (see ``readWithPendingCount(from:)``).
    ///
    /// - Parameter store: The user-created store.
    /// - Returns: The state.
    /// - Throws: `StoreError`: `damagedFile`, naming the store, for a value the engine never writes.
    static func read(from store: RecordStore<UserCreated>) throws(StoreError) -> EngineState {
        try readWithPendingCount(from: store).state
    }
}

/// The store's values of the engine's state, read by key and type, for ``EngineState/init(values:store:)``.
private struct StoredValues {
    let values: [String: SyncStateValue]
    let path: String

    func damaged(_ key: EngineState.Key, _ what: String) -> StoreError {
        var shown = "a value of another type"
        if case .text(let text)? = values[key.rawValue] { shown = "\"\(text.prefix(40))\"" }
        return StoreError(
            .damagedFile,
            "\(path) is damaged: sync_state \(key.rawValue) is \(shown), which is \(what); it was left unchanged")
    }

    func integer(_ key: EngineState.Key) throws(StoreError) -> Int64? {
        switch values[key.rawValue] {
        case nil: return nil
        case .integer(let value)?: return value
        default: throw damaged(key, "no integer")
        }
    }

    /// A counter, 0 when unset (the store's range check keeps it from 0 to 2^53).
    func count(_ key: EngineState.Key) throws(StoreError) -> Int { Int(try integer(key) ?? 0) }

    /// A flag: set only as 1.
    func flag(_ key: EngineState.Key) throws(StoreError) -> Bool { try integer(key) == 1 }

    func text(_ key: EngineState.Key) throws(StoreError) -> String? {
        switch values[key.rawValue] {
        case nil: return nil
        case .text(let value)?: return value
        default: throw damaged(key, "no text")
        }
    }

    func bytes(_ key: EngineState.Key) throws(StoreError) -> [UInt8]? {
        switch values[key.rawValue] {
        case nil: return nil
        case .bytes(let value)?: return value
        default: throw damaged(key, "no bytes")
        }
    }

    /// A date, stored as seconds since 2001 (a real; an integer from a hand edit reads the same).
    func date(_ key: EngineState.Key) throws(StoreError) -> Date? {
        switch values[key.rawValue] {
        case nil: return nil
        case .real(let seconds)?: return Date(timeIntervalSinceReferenceDate: seconds)
        case .integer(let seconds)?: return Date(timeIntervalSinceReferenceDate: Double(seconds))
        default: throw damaged(key, "no date")
        }
    }
}
