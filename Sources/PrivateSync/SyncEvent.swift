#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What the engine did, as it happened: typed values a host observes (a log, a UI, the simulator's checks).
///
/// Each event is named for where it fires, not for what one hopes it measures: `sentSaves` counts records the
/// container accepted, not records the engine tried to send.
public enum SyncEvent: Sendable, Hashable {
    /// The engine bound this store to the signed-in account (its first sync).
    case boundToAccount(UserRecordID)
    /// The engine created its zone.
    case zoneCreated(ZoneID)
    /// A page of zone changes was applied.
    case fetched(modifications: Int, deletions: Int)
    /// A zone change token expired; the engine fetches from the start.
    case changeTokenExpired
    /// A full fetch removed records the server no longer has.
    case reconciled(removed: Int)
    /// The account's encrypted data was reset (its keys are new, the zone was purged): every record of this device is
    /// queued to be uploaded again into the zone created anew, without asking, since the user deleted nothing.
    case encryptedDataReset(ZoneID)
    /// The first full fetch after a reset of the bookkeeping queued the records the server did not return.
    case requeuedAfterReset(records: Int)
    /// A modify request was accepted: this many saves and deletes.
    case sent(saves: Int, deletes: Int)
    /// A record changed on both sides was merged.
    case conflictResolved(recordName: String)
    /// A local edit lost to a delete from another device.
    case deleteWon(recordName: String)
    /// The container refused a batch as too large; the engine splits it.
    case batchSplit(from: Int, to: Int)
    /// A record of a type that may not sync was found on the send path and dropped from it.
    case refusedToSend(recordName: String, recordType: String)
    /// A fetched record of a type this app does not sync was ignored.
    case ignoredFetchedRecord(recordName: String, recordType: String)
    /// A fetched record holds a value this device cannot take (written by another client: a time out of every
    /// range, a field version stamped 1e300): the record was stored without it (read as a record of another client
    /// is, at the server's times), or, when that cannot be, left in the container as it is; `problem` says which.
    /// Everything else was applied.
    case fetchedRecordProblem(recordName: String, problem: String)
    /// The engine will try again at this time after a transient failure.
    case retryScheduled(code: CloudError.Code, at: Date)
    /// Sync stopped for this reason.
    case paused(PauseReason)
    /// Sync runs again after a pause.
    case resumed
    /// A merge of this device's edit with the server's version would exceed CloudKit's record size limit: the
    /// server's version (which fits) was kept and this device's conflicting edit was dropped.
    case mergeTooLarge(recordName: String)
    /// The cycle stopped early, without a failure, because the user or another process changed what it may do.
    case stopped(CycleStopReason)
}

/// What one call of the engine did.
public struct SyncReport: Sendable, Hashable {
    /// Whether the engine ran at all (it does not when paused or not yet due).
    public var ran = false
    /// Why it did not run, when it did not.
    public var skippedBecause: CycleSkipReason?
    /// Records the container accepted.
    public var sentSaves = 0
    /// Deletions the container accepted.
    public var sentDeletes = 0
    /// Records fetched and applied.
    public var fetchedModifications = 0
    /// Deletions fetched and applied.
    public var fetchedDeletions = 0
    /// Conflicts met: every time this device's pending change met a server version it had not seen, whatever the
    /// merge kept.
    public var conflictsResolved = 0
    /// Modify requests the container refused as too large (`limitExceeded`).
    public var refusedRequests = 0
    /// Why the cycle stopped early without failing, if it did.
    public var stoppedBecause: CycleStopReason?
    /// Every container call the cycle made, in order, with its outcome.
    public var requests: [ContainerRequest] = []
    /// How the attempt ended.
    public var outcome: EngineOutcome?
    /// Why the cycle stopped without recording an outcome, when the device's own store failed (a lock held too
    /// long, an I/O error): nothing could be recorded, but the caller still learns why.
    public var storeFailure: String?
    /// When the engine wants to run next.
    public var nextRun: Date?
    /// Every event, in order.
    public var events: [SyncEvent] = []

    /// An empty report, which a cycle fills in as it runs.
    public init() {}
}
