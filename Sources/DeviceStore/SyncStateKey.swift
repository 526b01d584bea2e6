/// The key of each field of the sync engine's state in the user-created store's `sync_state` table: the one list of
/// them, with the names store files hold and the shape of each value.
///
/// The engine (PrivateSync's `EngineState`) owns what the keys mean; the store owns their names and shapes, because
/// it checks every file it opens, and an archive's sync position, before anything reads it. The names never change:
/// stores written by every earlier build are read as they are, with no migration, and no other key can be written.
package enum SyncStateKey: String, CaseIterable, Sendable {
    case boundUser = "bound_user"
    case zoneReady = "zone_ready"
    case zoneToken = "zone_token"
    case databaseToken = "database_token"
    case reconcileOnFullFetch = "reconcile_on_full_fetch"
    case requeueOnFullFetch = "requeue_on_full_fetch"
    case initialFetchDone = "initial_fetch_done"
    case pauseReason = "pause_reason"
    case reuploadConsent = "reupload_consent"
    case deletionsLearned = "deletions_learned"
    case lastOutcome = "last_outcome"
    case lastError = "last_error"
    case lastAttemptAt = "last_attempt_at"
    case nextAttemptAt = "next_attempt_at"
    case retryAttempt = "retry_attempt"
    case sentSaves = "sent_saves"
    case sentDeletes = "sent_deletes"
    case fetchedModifications = "fetched_modifications"
    case fetchedDeletions = "fetched_deletions"
    case conflictsResolved = "conflicts_resolved"
    case epoch = "epoch"
    case batchSize = "batch_size"
    case batchStreak = "batch_streak"
    case fetchedRecordProblems = "fetched_record_problems"
    case creationsInFlight = "creations_in_flight"
    case deletionsUnrecorded = "deletions_unrecorded"
    case creationsNotLanded = "creations_not_landed"
    case namesDeletedHere = "names_deleted_here"
    case savesRefused = "saves_refused"

    /// What a value under this key must hold.
    var shape: StoreStateCheck.Shape {
        switch self {
        case .boundUser, .pauseReason, .lastOutcome, .lastError, .fetchedRecordProblems, .creationsInFlight,
            .deletionsUnrecorded, .creationsNotLanded, .namesDeletedHere, .savesRefused:
            .text
        case .zoneReady, .reconcileOnFullFetch, .requeueOnFullFetch, .initialFetchDone: .flag
        case .zoneToken, .databaseToken: .bytes
        case .lastAttemptAt, .nextAttemptAt: .date
        case .retryAttempt: .retryAttempt
        case .batchSize: .batchSize
        case .reuploadConsent, .deletionsLearned, .sentSaves, .sentDeletes, .fetchedModifications, .fetchedDeletions,
            .conflictsResolved, .epoch, .batchStreak:
            .counter
        }
    }
}
