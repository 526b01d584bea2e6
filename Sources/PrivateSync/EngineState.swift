public import PrivateCloud

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The sync engine's state: the account the store mirrors, where its fetches ended, the retry schedule, a pause, the
/// user's consent, the totals.
///
/// The engine owns it and is the only one to change it; the user-created store keeps it (one row per field that is
/// not at its default, in the store's `sync_state` table) and writes it in the same transaction as the records it
/// describes, so a crash at any point loses nothing and duplicates nothing. Hosts read it with
/// ``SyncEngine/state()`` or ``LaunchedApp/engineState()``.
public struct EngineState: Sendable, Hashable {
    // MARK: The account and the zone

    /// The account the store mirrors; `nil` until the first sync binds it.
    public package(set) var boundUser: UserRecordID?
    /// Whether the store knows its zone exists in the bound account's database.
    public package(set) var zoneReady = false
    /// Where the last zone fetch ended; `nil` before the first page (or after the token expired or was reset).
    public package(set) var zoneChangeToken: ChangeToken?
    /// Where the last read of database changes ended; `nil` before the first read.
    public package(set) var databaseChangeToken: ChangeToken?
    /// Whether the fetch from no token under way must end by deleting the synced records the server no longer has.
    package var reconcileOnFullFetch = false
    /// Whether the next full fetch must end by queuing the records the server did not return (set by a reset of
    /// the bookkeeping, after which nothing is known to be synced).
    package var requeueOnFullFetch = false
    /// Whether a complete fetch has finished since the store was bound.
    public package(set) var initialFetchDone = false

    // MARK: Pause and consent

    /// A pause that lasts until the user acts (`userDeletedZone`, `quotaExceeded`, `containerUnusable`).
    public package(set) var pause: PauseReason?
    /// How many deletions of the zone the user's consent to upload again covers: those this device knew of when the
    /// user turned sync on. 0 when no consent waits to be used.
    package var reuploadConsentCovers = 0
    /// How many deletions of the zone, counted from the kept database token, this device has learned of: what a
    /// consent given now covers.
    package var deletionsLearned = 0

    // MARK: The last attempt and the retry schedule

    /// How the last attempt ended.
    public package(set) var lastOutcome: EngineOutcome?
    /// The last failure, in words.
    public package(set) var lastError: String?
    /// When the last attempt ended.
    public package(set) var lastAttempt: Date?
    /// The earliest time the engine tries again after a failure.
    public package(set) var nextAttempt: Date?
    /// Consecutive failures worth retrying, for the backoff.
    package var retryAttempt = 0

    // MARK: Totals, epoch, batch size

    /// What the engine moved since the store was created.
    public package(set) var totals = EngineTotals()
    /// Advanced each time the store starts afresh or its bookkeeping is reset: a cycle that began in an earlier
    /// epoch applies nothing more.
    package var epoch: Int64 = 0
    /// The records per modify request after the server refused a larger request (`limitExceeded`); `nil` for
    /// CloudKit's limit.
    package var reducedBatchSize: Int?
    /// Modify requests accepted in a row at the reduced batch size; after enough of them the size grows back.
    package var batchStreak = 0

    // MARK: A request whose answer is not recorded

    /// The records the modify request in flight creates (its saves with no change tag: records new to the server,
    /// or sent again after a deletion of the app's data), committed before the request goes and cleared when its
    /// answer is applied or it is refused whole. After a crash or a lost answer such a record may be on the server
    /// though the store holds no change tag for it; a deletion of one that the next fetch (from the token held when
    /// the request went) brings is then a deletion of this device's own save, made on another device since, and wins
    /// like any other. Without it the deletion was read as one of an earlier record under the name, which a record
    /// created anew survives, and the save went up again (seed 2938 of the sweep at a08b537). A fetch from no token
    /// clears it: it returns the deletions of the zone's whole history, which say nothing of the request.
    package var creationsInFlight: Set<String> = []

    /// Records deleted here that a CKSyncEngine delegate keeping its bookkeeping in a file of its own (the partition
    /// mirror) may still count among the first saves that may have landed, marked in the delete's own transaction and
    /// cleared once that file no longer does: a process killed between the delete and the file's write left the name
    /// there, and a record made later under it was taken for the old one, which a fetched deletion of the old one
    /// then deleted. The app's own engine neither reads nor writes it (its creations in flight live in this store).
    package var deletionsUnrecorded: Set<String> = []

    /// Records made here anew under the name of an older record, until their save lands: made under the name of one
    /// deleted here (marked in the insert's transaction, ``namesDeletedHere``), or made here and never gone up when
    /// a save or a fetch meets another's record under the name (marked in the merge's transaction, while the merge
    /// keeps their fields; they then carry that record's change tag, to write over it). A deletion fetched meanwhile
    /// is of the older record, which they survive. Written by a CKSyncEngine delegate (the partition mirror); the
    /// app's own engine neither reads nor writes it.
    package var creationsNotLanded: Set<String> = []

    /// Names of records deleted here (by a CKSyncEngine delegate, the partition mirror) that no fetch has brought
    /// back since, as a deletion or a record: a record made later under one of them is made anew
    /// (``creationsNotLanded``), and the deletion a fetch brings is of the older one, even once a save of the new
    /// one has left without an answer. The app's own engine neither reads nor writes it (its cycle fetches before it
    /// sends, so the deletion comes back before a record made again under the name leaves).
    package var namesDeletedHere: Set<String> = []

    /// Records whose last save the server refused for good (`serverRejectedRequest`, or `limitExceeded` for the
    /// record alone), kept on the device with their change dropped, until the server speaks of them again (a
    /// version or a deletion fetched) or a save of them lands: a version fetched meanwhile is merged with the one
    /// here by the rule, and what of this device's wins is queued again, rather than taken whole over an edit the
    /// server never saw. Written by a CKSyncEngine delegate (the partition mirror); the app's own engine neither
    /// reads nor writes it (it sends such a save again).
    package var savesRefused: Set<String> = []

    // MARK: What the engine could not take

    /// Records fetched from the container with a value this device cannot take (another client wrote them with a
    /// value out of every range the store keeps: a creation time in the year 5000, a field version stamped 1e300),
    /// by name: what was wrong and what was done (stored without that value, or not stored). Everything else
    /// syncs; a later version of the record without the problem, or its deletion, takes it off the list. At most
    /// 50 are named.
    public package(set) var fetchedRecordProblems: [String: String] = [:]
    /// The most records ``fetchedRecordProblems`` names (each at most 255 bytes of name and 300 of problem, so the list
    /// stays well inside the 64 KiB a store's text value may hold).
    package static let fetchedRecordProblemLimit = 50

    /// Names a record fetched with a value this device could not take in a list of them
    /// (``fetchedRecordProblems``'s shape), within its bounds: the problem cut to 300 bytes, and a name not on the
    /// list added only while fewer than ``fetchedRecordProblemLimit`` are (one on it is updated).
    ///
    /// Bounded in bytes, not characters: another client's field key can be one character of 70 KB (a letter and
    /// 35,000 combining accents), and a list over the 64 KiB a store's text may hold failed every page.
    ///
    /// - Parameters:
    ///   - problem: What was wrong, and what was done.
    ///   - name: The record's name.
    ///   - problems: The list.
    /// - Returns: The problem as kept (cut to its bound), for the cycle's report, whether or not the list had room.
    package static func note(_ problem: String, of name: String, in problems: inout [String: String]) -> String {
        let problem = SyncEngine.bounded(problem, bytes: 300)
        if problems[name] != nil || problems.count < fetchedRecordProblemLimit { problems[name] = problem }
        return problem
    }

    /// The state of a store the engine has never run on.
    package init() {}

    /// Whether the user's consent to upload again after a deletion of the app's iCloud data waits to be used.
    public var reuploadConsent: Bool { reuploadConsentCovers > 0 }

    /// The most records a modify request carries now: CloudKit's 400, or less after `limitExceeded`.
    public var batchSize: Int { batchSize(limits: .cloudKit) }

    /// The most records a modify request carries now, within `limits`.
    ///
    /// - Parameter limits: The container's limits.
    /// - Returns: The reduced batch size, or the limit's when none is kept (never more than the limit's).
    package func batchSize(limits: CloudLimits) -> Int {
        reducedBatchSize.map { min($0, limits.maximumItemsPerRequest) } ?? limits.maximumItemsPerRequest
    }

    // MARK: Operations

    /// The state after a reset of the engine's bookkeeping (``SyncEngine/resetBookkeeping(of:signedIn:)``): the account
    /// binding, the tokens, the retry schedule and the batch size go; a pause the user must end, the user's
    /// consent (and the deletions it may cover) and the totals stay. The epoch advances, so a cycle in flight stops,
    /// and the next full fetch queues what the server did not return.
    ///
    /// - Returns: The state to save.
    package func afterReset() -> EngineState {
        var next = EngineState()
        next.pause = pause
        next.reuploadConsentCovers = reuploadConsentCovers
        next.deletionsLearned = deletionsLearned
        next.totals = totals
        next.epoch = epoch + 1
        next.requeueOnFullFetch = true
        return next
    }

    /// The state after the store started afresh for the signed-in account (``LaunchedApp/startFreshForSignedInAccount()``):
    /// everything but the totals goes, and the epoch advances, so a cycle still running for the previous account
    /// applies nothing more.
    ///
    /// - Returns: The state to save.
    package func afterStartFresh() -> EngineState {
        var next = EngineState()
        next.totals = totals
        next.epoch = epoch + 1
        return next
    }

    /// Ends the pause the engine recorded, and the last outcome that reported it: a status read before the next
    /// cycle ends (or after a crash inside it) must not show a pause whose cause the user has ended.
    package mutating func endPersistentPause() {
        if let pause, lastOutcome == .paused(pause) { lastOutcome = nil }
        pause = nil
    }

    /// Whether the last attempt was stopped by the account: found unusable before the cycle, or paused for a reason
    /// the server gave about the account (not authenticated, restricted, temporarily unavailable). Such an outcome
    /// says nothing once the account changed, or the user turned sync on; the status must not show it then (issue
    /// 24: "paused: sign in" on a device just signed in).
    package var stoppedByAccount: Bool {
        switch lastOutcome {
        case .accountUnusable?: true
        case .paused(let reason)?: [.noAccount, .accountRestricted, .accountTemporarilyUnavailable].contains(reason)
        default: false
        }
    }

    /// Forgets an attempt the account stopped, with its retry time: the next run is due by the usual rule. A retry
    /// time left behind kept the cycle from running while the engine said it was due (seed 198 of 300: skipped, not
    /// due, for ever).
    package mutating func forgetAccountStop() {
        guard stoppedByAccount else { return }
        lastOutcome = nil
        nextAttempt = nil
    }
}
