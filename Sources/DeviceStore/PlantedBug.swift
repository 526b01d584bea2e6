/// A bug put back on purpose, so that the simulator can prove its checks would catch it.
///
/// Each case re-creates, behind a switch, a wrong behaviour that was once real (or that a review found nothing
/// would catch). Nothing outside the simulator's proofs sets them: the seam is `package`, so an app cannot.
package enum PlantedBug: String, Sendable, Hashable, CaseIterable {
    /// A cycle already running keeps uploading after the user turned sync off (issue 10, behaviour 1).
    case uploadsAfterSyncOff = "uploads-after-sync-off"
    /// A cycle running across "start afresh" writes the previous account's records into the store (behaviour 2).
    case cycleSurvivesStartFresh = "cycle-survives-start-fresh"
    /// A conflict inside an atomic batch leaves the cycle's outcome a retry, although nothing is left (behaviour 3).
    case batchConflictFailsCycle = "batch-conflict-fails-cycle"
    /// The app does not react to the account becoming usable until a relaunch (behaviour 4).
    case ignoresAccountChange = "ignores-account-change"
    /// Any earlier "sync on" counts as consent to re-upload after a later deletion of the app's data (behaviour 5).
    case earlyToggleConsents = "early-toggle-consents"
    /// A fetched record takes the server's dates instead of the record's own (behaviour 6).
    case serverTimesOnFetch = "server-times-on-fetch"
    /// The batch size reduced after `limitExceeded` is forgotten at the next round (behaviour 7).
    case forgetsBatchSize = "forgets-batch-size"
    /// A merge over the record size limit is kept and retried for ever (behaviour 8).
    case keepsOversizedMerge = "keeps-oversized-merge"
    /// A device's own save, fetched back while an edit is pending, goes to the resolver (behaviour 12).
    case resolvesOwnEcho = "resolves-own-echo"
    /// A record and its pending change are committed in two transactions.
    case pendingChangeInSecondTransaction = "pending-change-in-second-transaction"
    /// An expired zone change token is kept and retried for ever.
    case keepsExpiredZoneToken = "keeps-expired-zone-token"
    /// A successful save clears the pending change whatever its revision (an edit made during the send is lost).
    case saveClearsAnyRevision = "save-clears-any-revision"
    /// The consent to re-upload is never spent, so a second deletion is refilled silently.
    case consentNeverSpent = "consent-never-spent"
    /// A pause is reported with the wrong reason (quota exceeded for a deleted zone).
    case wrongPauseReason = "wrong-pause-reason"
    /// The cycle that creates the zone uploads into it without reading database changes again, so a deletion of
    /// the app's data made between its first read and the zone's creation is undone (the sweep's seed 787).
    case zoneSavedUnread = "zone-saved-unread"
    /// A fetched deletion removes a record created anew under the deleted record's name (found by the scenario
    /// tests of issue 12; the simulator never reused a name).
    case deleteEchoRemovesNewRecord = "delete-echo-removes-new-record"
    /// A store that started afresh is bound to the account signed in without bringing back that account's archive
    /// first, so edits parked in it stay there for good (the sweep's seeds 1899 and 4060 at b9b7b91; issue 28).
    case archiveLeftAtBinding = "archive-left-at-binding"
}
