public import PrivateSyncEngine

/// What the partition mirror keeps beside the store, in one JSON file written atomically: the engine's state and
/// what the mirror knows of the account and the zone. The records and their unsent changes live in the store.
///
/// Every field but ``stateSerialization`` is a lesson of the delegate sweep of Apple's sample (docs/cksyncengine.md),
/// kept with the same meaning.
public struct MirrorBookkeeping: Codable, Sendable, Equatable {
    /// The engine's last state, from its last `stateUpdate`.
    public var stateSerialization: PSSyncEngine.State.Serialization?
    /// The engine's last state while it worked for the account the data belongs to: when that account signs in
    /// again after a sign-out or another account, the engine is made again from it and resumes where it stood (the
    /// engine forgets its state at every change of account).
    public var dataAccountState: PSSyncEngine.State.Serialization?
    /// The bookkeeping of each account whose data this device put into an archive
    /// (``PartitionMirror/startFreshForSignedInAccount()``), by user record name, as it stood then: when that
    /// account's archive comes back, so does what the mirror knew of it (a pause for the user's deletion of the
    /// zone, the first saves unanswered), and the engine resumes from the state it left, hearing what happened on
    /// the server since rather than fetching the zone whole as if nothing had.
    public var archivedAccounts: [String: MirrorBookkeeping] = [:]
    /// The user record name of the account the store's records belong to, once the engine reported one.
    public var accountRecordName: String?
    /// The user record name of the account the engine last reported signed in; `nil` once it reported a sign-out
    /// (or before it reported any). When it is another than ``accountRecordName``, sync is paused
    /// (`accountChanged`): the data stays this device's, and nothing goes up or comes down, until the user chooses
    /// (``PartitionMirror/startFreshForSignedInAccount()``) or the account comes back. Read from a file of an
    /// earlier version, it is ``accountRecordName``.
    public var engineAccount: String?
    /// Records whose change tag this device cleared while they may be on the server (an encrypted-data reset, which
    /// other devices answer by uploading their copies again; a zone found missing; a record found deleted that an
    /// edit here sends again). With the change tags and ``firstSendUnanswered``, what tells a record that may be on
    /// the server from one that never left the device: a record with no tag in neither set never went up. Nothing
    /// is written here when a record is made, so a crash after the record's commit loses nothing of this.
    public var untaggedMayBeOnServer: Set<String> = []
    /// Records whose first save left (written down before the request does) without an answer yet: they may be on
    /// the server although they carry no change tag.
    public var firstSendUnanswered: Set<String> = []
    /// Among ``firstSendUnanswered``, the records a save of which ended without telling whether it landed (a lost
    /// answer, an internal error, or the process gone while it was in flight): a later refusal of another save of
    /// them proves nothing of that one.
    public var firstSendMayHaveLanded: Set<String> = []
    /// The zone was deleted (by the user in Settings, `purged`, or by an app, `deleted`, or gone for a reason the
    /// list could not tell), this device learned of it, and sync waits for the user:
    /// nothing is sent and nothing held here is deleted, until the user turns sync on again
    /// (``PartitionMirror/userTurnedSyncOn()``), which uploads everything again. The status says paused, the app's
    /// data deleted from iCloud. (The app's own engine does the same: a deletion the user made is never undone
    /// without the user's word.)
    public var pausedForUserDeletion = false
    /// The user turned sync on again after deleting the zone in Settings, and the mirror has not seen the zone
    /// created again: a save refused with `userDeletedZone` until then is of that deletion, and creates the zone.
    public var zonePurgedByUser = false
    /// How many deletions of the zone by an app this device heard of from refused saves (`zoneNotFound`) and
    /// created the zone again after, that the database's list has not reported yet: a `deleted` it reports while
    /// this is above zero may be one of them (old news) or a new one.
    public var deletedReportsHeard = 0
    /// The same for the user's deletions (`purged`), heard of from saves refused with `userDeletedZone`, that the
    /// user turned sync on again after.
    public var purgedReportsHeard = 0
    /// A save was refused with `zoneNotFound` and the zone's creation is queued: once it is created, a deletion
    /// the database's list reports may be the one this refusal told of (``deletedReportsHeard``).
    public var zoneNotFoundHeard = false
    /// The purge was first heard of from a refused save (`userDeletedZone`), not from the database's list.
    public var purgeHeardFromRefusal = false
    /// The zone was there since this device last learned of its deletion (or ever): a save landed in it, this
    /// device created it, or the database's list listed it. A save refused with `zoneNotFound` then
    /// means someone deleted it, as the app's own engine reads it (`EngineState.zoneReady`); without it, the zone
    /// was never created, and the refusal creates it. Read from a file of an earlier version, it is `false`.
    public var zoneKnown = false
    /// A save was refused with `zoneNotFound` although the zone was known (``zoneKnown``): someone deleted it, and
    /// only the database's list says who (an app or the user, which pause sync until the user's word, or an
    /// encrypted-data reset, which uploads everything again). Until the list says it, nothing is sent and nothing
    /// held here changes; the status says syncing. A fetch that began after the refusal and reads the list to its
    /// end without a deletion of the zone cannot say it: sync pauses then, for the user's word.
    public var zoneMissingHeard = false

    /// For an account in ``archivedAccounts``: a reconciling was pending when its data went into the archive (a whole
    /// fetch whose end was to delete what the server no longer holds). It is dropped when the account comes back:
    /// which records the server returned since it began is not kept with the archive, and without it the reconciling
    /// would delete what the server still holds; what it would have deleted stays on the device (a rare order,
    /// left). For the data's own account it is kept in the store instead, beside the records it deletes
    /// (`EngineState.reconcileOnFullFetch`), so that the deletion and its end are one transaction; read from a
    /// file of an earlier version, it moves there at the next launch.
    public var reconcileOnFullFetch = false

    /// A start afresh bound the data to the account signed in, and has not yet moved the records of this account (the
    /// data's before it) into their archive: killed in between, or stopped by a store that could not be written, the
    /// next engine made, or the next call, finishes it (``PartitionMirror/startFreshForSignedInAccount()``). Until then
    /// those records stay in the store, never shown and never sent. Read from a file of an earlier version, none.
    public var archivePendingFor: String?
    /// For ``archivePendingFor``: whether the records' move also sets the reconciling of the engine's first whole
    /// fetch (an engine resumed from no state), if the engine has kept no state since.
    public var archivePendingReconciles = false
    /// For ``archivePendingFor``: the store's last revision of a pending change when the data was bound to the
    /// account signed in. A pending delete written later is that account's, and stays: only the deletes up to it go
    /// into the archive with the records.
    public var archivePendingDeletesThrough: Int64?

    /// A save was refused because the user's iCloud storage is full (`quotaExceeded`), and none has landed since:
    /// while changes wait, the status says paused, storage full.
    public var quotaExceededHeard = false
    /// The code (CloudKit's number) of the transient failure a send last met (offline, busy, rate-limited), when no
    /// save or delete has gone through since: while changes wait, the status says waiting, and why. The engine
    /// retries by itself.
    public var sendWaitingCode: Int?
    /// The engine's download caught up once since the store was bound to its account: it held a database change
    /// token and no change of the zone left to fetch at the end of a fetch. Until then the status says syncing.
    public var initialFetchDone = false
    /// The data was bound to the account signed in by a start afresh that had no archive of it to resume from, and
    /// no engine has reported that account since: no cycle has run for it, and until one does the status says the
    /// first sync has not run (as the app's engine says of a store started afresh), not that anything is moving.
    public var startedAfreshUnsynced = false

    /// Nothing known: a first launch.
    public init() {}

    /// Reads a file written by this version, or by an earlier one that lacked some of the keys (each missing key
    /// reads as nothing known).
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a value of the wrong shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        stateSerialization = try container.decodeIfPresent(
            PSSyncEngine.State.Serialization.self, forKey: .stateSerialization)
        dataAccountState = try container.decodeIfPresent(
            PSSyncEngine.State.Serialization.self, forKey: .dataAccountState)
        archivedAccounts =
            try container.decodeIfPresent([String: MirrorBookkeeping].self, forKey: .archivedAccounts) ?? [:]
        accountRecordName = try container.decodeIfPresent(String.self, forKey: .accountRecordName)
        // Written by this version, a sign-out leaves no key but the state the data's account left; a file of an
        // earlier version has neither, and its engine last reported the data's account.
        engineAccount =
            container.contains(.engineAccount) || container.contains(.dataAccountState)
            ? try container.decodeIfPresent(String.self, forKey: .engineAccount) : accountRecordName
        untaggedMayBeOnServer =
            try container.decodeIfPresent(Set<String>.self, forKey: .untaggedMayBeOnServer) ?? []
        firstSendUnanswered = try container.decodeIfPresent(Set<String>.self, forKey: .firstSendUnanswered) ?? []
        firstSendMayHaveLanded =
            try container.decodeIfPresent(Set<String>.self, forKey: .firstSendMayHaveLanded) ?? []
        pausedForUserDeletion =
            try container.decodeIfPresent(Bool.self, forKey: .pausedForUserDeletion) ?? false
        zonePurgedByUser = try container.decodeIfPresent(Bool.self, forKey: .zonePurgedByUser) ?? false
        deletedReportsHeard = try container.decodeIfPresent(Int.self, forKey: .deletedReportsHeard) ?? 0
        purgedReportsHeard = try container.decodeIfPresent(Int.self, forKey: .purgedReportsHeard) ?? 0
        purgeHeardFromRefusal = try container.decodeIfPresent(Bool.self, forKey: .purgeHeardFromRefusal) ?? false
        zoneNotFoundHeard = try container.decodeIfPresent(Bool.self, forKey: .zoneNotFoundHeard) ?? false
        // An earlier version did not keep it: its store may never have had a zone (bound, and empty), and a refusal
        // that waited for the list's word would then pause a first sync for a deletion no one made. Read as unknown,
        // the first refusal creates the zone, as that version did; from then on it is kept.
        zoneKnown = try container.decodeIfPresent(Bool.self, forKey: .zoneKnown) ?? false
        zoneMissingHeard = try container.decodeIfPresent(Bool.self, forKey: .zoneMissingHeard) ?? false
        reconcileOnFullFetch = try container.decodeIfPresent(Bool.self, forKey: .reconcileOnFullFetch) ?? false
        archivePendingFor = try container.decodeIfPresent(String.self, forKey: .archivePendingFor)
        archivePendingReconciles =
            try container.decodeIfPresent(Bool.self, forKey: .archivePendingReconciles) ?? false
        archivePendingDeletesThrough = try container.decodeIfPresent(Int64.self, forKey: .archivePendingDeletesThrough)
        quotaExceededHeard = try container.decodeIfPresent(Bool.self, forKey: .quotaExceededHeard) ?? false
        initialFetchDone = try container.decodeIfPresent(Bool.self, forKey: .initialFetchDone) ?? false
        sendWaitingCode = try container.decodeIfPresent(Int.self, forKey: .sendWaitingCode)
        startedAfreshUnsynced = try container.decodeIfPresent(Bool.self, forKey: .startedAfreshUnsynced) ?? false
    }

}
