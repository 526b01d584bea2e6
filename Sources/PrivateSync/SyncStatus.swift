#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What the sync switch honestly says: off, on (and how), or paused and why.
///
/// A status is never stored: ``SyncStatus/derive(from:)`` computes it from facts (the preference, the store's
/// configuration at the last launch, the account, the engine's last outcome), so it cannot drift from them.
public struct SyncStatus: Sendable, Hashable, CustomStringConvertible {
    /// The three states a user sees.
    public enum State: Sendable, Hashable {
        /// The user has not asked for sync.
        case off
        /// The user asked, the user-created store is cloud-configured, and sync can run.
        case on(Detail)
        /// The user asked, but sync cannot run.
        case paused(PauseReason)

        /// `off`, `on` or `paused`.
        public var name: String {
            switch self {
            case .off: "off"
            case .on: "on"
            case .paused: "paused"
            }
        }
    }

    /// How sync is doing while on.
    public enum Detail: Sendable, Hashable {
        /// Nothing waits to go up, and the first download has finished.
        case upToDate
        /// Changes wait to go up (or the first download has not finished), and nothing has failed.
        case syncing
        /// The last attempt failed with a transient error; the engine tries again at `nextAttempt`.
        case waiting(reason: WaitReason, nextAttempt: Date?)
        /// No sync has run on this store yet: no cycle has bound it to an account since it was created, reset or
        /// started afresh, so nothing was downloaded and nothing uploaded. A launch ends here; the first cycle
        /// leaves it (or one that fails first says waiting or paused, with its cause).
        case notYetSynced

        /// `upToDate`, `syncing`, `waiting` or `notYetSynced`.
        public var name: String {
            switch self {
            case .upToDate: "upToDate"
            case .syncing: "syncing"
            case .waiting: "waiting"
            case .notYetSynced: "notYetSynced"
            }
        }
    }

    /// Why sync is waiting.
    public enum WaitReason: String, Sendable, Hashable, CaseIterable {
        /// The network is unavailable or failed.
        case offline
        /// CloudKit asked the device to slow down, or is unavailable, or the zone is busy.
        case serverBusy
        /// A response was lost; the request will be repeated.
        case responseLost
        /// Some other error that is worth retrying.
        case retrying
        /// This device's disk is full: nothing could be written (its store, or here the container's file); it passes
        /// once space is freed.
        case diskFull
        /// Another process (a command, an app) held one of the files locked for longer than the wait: nothing is
        /// wrong with the file; it passes when the other finishes.
        case fileBusy

        /// The wait reason of a transient CloudKit code.
        public init(code: CloudError.Code) {
            switch code {
            case .networkUnavailable, .networkFailure: self = .offline
            case .serviceUnavailable, .requestRateLimited, .zoneBusy: self = .serverBusy
            case .serverResponseLost: self = .responseLost
            default: self = .retrying
            }
        }

        var phrase: String {
            switch self {
            case .offline: "offline"
            case .serverBusy: "iCloud is busy"
            case .responseLost: "a reply from iCloud was lost"
            case .retrying: "the last attempt failed"
            case .diskFull: "the disk is full (free some space)"
            case .fileBusy: "another process held the files locked"
            }
        }
    }

    /// The state.
    public let state: State
    /// Set whenever the user asked for sync and it cannot run: true exactly when the state is paused.
    public let fallbackOccurred: Bool
    /// Changes written on this device and not yet accepted by iCloud.
    public let pendingChanges: Int
    /// The one sentence the settings screen shows (and a second when records from iCloud had values this device
    /// could not take).
    public let copy: String
    /// Records in the account's container with a value this device could not take, by name: what was wrong and
    /// what was done. Sync goes on for everything else, so the state does not change for them; the copy names them.
    public let fetchedRecordProblems: [String: String]
    /// Records written on this device whose save iCloud refused for good, kept here only until the server speaks of
    /// them again or they are written again (`EngineState.savesRefused`; CKSyncEngine's delegate alone keeps
    /// them). Everything else syncs, so the state does not change for them; the copy names them.
    public let savesRefused: Set<String>

    /// Creates a status. Statuses come from ``derive(from:)``; this exists for tests that need a fake one.
    public init(
        state: State, fallbackOccurred: Bool, pendingChanges: Int, copy: String,
        fetchedRecordProblems: [String: String] = [:], savesRefused: Set<String> = []
    ) {
        self.state = state
        self.fallbackOccurred = fallbackOccurred
        self.pendingChanges = pendingChanges
        self.copy = copy
        self.fetchedRecordProblems = fetchedRecordProblems
        self.savesRefused = savesRefused
    }

    /// The pause reason, if paused.

    public var pauseReason: PauseReason? {
        if case .paused(let reason) = state { return reason }
        return nil
    }

    /// Whether the state is on.
    public var isOn: Bool {
        if case .on = state { return true }
        return false
    }

    public var description: String {
        switch state {
        case .off: "off"
        case .on(let detail): "on (\(detail.name), \(pendingChanges) pending)"
        case .paused(let reason): "paused (\(reason), \(pendingChanges) pending)"
        }
    }
}

/// The facts a status is derived from.
public struct SyncFacts: Sendable, Hashable {
    /// Whether the user asked for sync.
    public var syncWanted: Bool
    /// Whether the user-created store is cloud-configured (as the last launch or reconfiguration opened it).
    public var userCreatedStoreIsCloud: Bool
    /// Why the last launch (or reconfiguration) fell back to a local store, if it did.
    public var launchFallback: PauseReason?
    /// The account status the device reports now.
    public var accountStatus: AccountStatus
    /// The user record of the account signed in now.
    public var currentUser: UserRecordID?
    /// The user record of the account the store mirrors, once bound; `nil` until a cycle binds it (the status then
    /// says the first sync has not run).
    public var boundUser: UserRecordID?
    /// A pause the engine recorded that lasts until the user acts.
    public var enginePause: PauseReason?
    /// How the engine's last attempt ended, if it made one.
    public var lastOutcome: EngineOutcome?
    /// When the engine will try again.
    public var nextAttempt: Date?
    /// Whether a complete download has finished since the store was bound.
    public var initialFetchDone: Bool
    /// Changes not yet accepted by iCloud.
    public var pendingChanges: Int
    /// The time the facts were read, so that a retry on another day shows its date.
    public var now: Date?
    /// Records in the account's container with a value this device could not take, by name: what was wrong and
    /// what was done (``EngineState/fetchedRecordProblems``).
    public var fetchedRecordProblems: [String: String] = [:]
    /// Records written here whose save iCloud refused for good, still held as refused (`EngineState.savesRefused`).
    public var savesRefused: Set<String> = []

    /// Creates facts.
    public init(
        syncWanted: Bool, userCreatedStoreIsCloud: Bool, launchFallback: PauseReason?, accountStatus: AccountStatus,
        currentUser: UserRecordID?, boundUser: UserRecordID?, enginePause: PauseReason?, lastOutcome: EngineOutcome?,
        nextAttempt: Date?, initialFetchDone: Bool, pendingChanges: Int, now: Date? = nil
    ) {
        self.now = now
        self.syncWanted = syncWanted
        self.userCreatedStoreIsCloud = userCreatedStoreIsCloud
        self.launchFallback = launchFallback
        self.accountStatus = accountStatus
        self.currentUser = currentUser
        self.boundUser = boundUser
        self.enginePause = enginePause
        self.lastOutcome = lastOutcome
        self.nextAttempt = nextAttempt
        self.initialFetchDone = initialFetchDone
        self.pendingChanges = pendingChanges
    }
}

extension SyncStatus {
    /// Derives the status from facts.
    ///
    /// The order of the checks is the contract: a reason that stops sync always wins over one that only slows it,
    /// and `on` is reached only when the user asked, the store is cloud-configured, no fallback happened, the
    /// account is usable and the same one the data belongs to, and the last attempt did not fail for good. Once
    /// on: a failure worth retrying says waiting; a store no cycle has bound yet says the first sync has not run
    /// (``Detail/notYetSynced``); then syncing while changes wait or the first download is unfinished; else up to
    /// date.
    ///
    /// - Parameter facts: The facts.
    /// - Returns: The status.
    public static func derive(from facts: SyncFacts) -> SyncStatus {
        let status = deriveState(from: facts)
        guard !facts.fetchedRecordProblems.isEmpty || !facts.savesRefused.isEmpty else { return status }
        /// "1 record" or "N records", and the first three names (each with what `detail` says of it).
        func listed(_ names: [String], _ detail: (String) -> String) -> (count: String, shown: String) {
            let count = names.count == 1 ? "1 record" : "\(names.count) records"
            let more = names.count > 3 ? ", and \(names.count - 3) more" : ""
            return (count, names.prefix(3).map(detail).joined(separator: ", ") + more)
        }
        var copy = status.copy
        if !facts.fetchedRecordProblems.isEmpty {
            let (count, shown) = listed(facts.fetchedRecordProblems.keys.sorted()) {
                "\($0) (\(facts.fetchedRecordProblems[$0]!))"
            }
            copy += " \(count) in your iCloud, written by another app or device, had values this device could not "
            copy += "take: \(shown)."
        }
        if !facts.savesRefused.isEmpty {
            let (count, shown) = listed(facts.savesRefused.sorted()) { $0 }
            copy += " \(count) written on this device iCloud refused to save, kept on this device only until "
            copy += "written again or changed in iCloud: \(shown)."
        }
        return SyncStatus(
            state: status.state, fallbackOccurred: status.fallbackOccurred, pendingChanges: status.pendingChanges,
            copy: copy, fetchedRecordProblems: facts.fetchedRecordProblems, savesRefused: facts.savesRefused)
    }

    /// The state and its copy, by the contract of ``derive(from:)``.
    private static func deriveState(from facts: SyncFacts) -> SyncStatus {
        func paused(_ reason: PauseReason) -> SyncStatus {
            SyncStatus(
                state: .paused(reason), fallbackOccurred: true, pendingChanges: facts.pendingChanges, copy: reason.copy)
        }
        guard facts.syncWanted else {
            return SyncStatus(
                state: .off, fallbackOccurred: false, pendingChanges: facts.pendingChanges,
                copy: "Sync is off. Everything you write stays on this device.")
        }
        if let reason = facts.launchFallback {
            // A launch that fell back for the account names the account as it is now, never a stale state. (Once
            // the account is usable the app reconfigures: `LaunchedApp.reactToAccountChange()`.)
            if reason.isAccountReason, let live = PauseReason(accountStatus: facts.accountStatus) {
                return paused(live)
            }
            return paused(reason)
        }
        if let reason = PauseReason(accountStatus: facts.accountStatus) { return paused(reason) }
        guard facts.currentUser != nil else { return paused(.noAccount) }
        // A store that is not cloud-configured while sync is wanted can only come from a launch that fell back;
        // without a recorded reason it still must not read on.
        guard facts.userCreatedStoreIsCloud else { return paused(.storeCreationFailed) }
        if let bound = facts.boundUser, bound != facts.currentUser { return paused(.accountChanged) }
        if let reason = facts.enginePause { return paused(reason) }
        if case .paused(let reason)? = facts.lastOutcome { return paused(reason) }
        let pending = facts.pendingChanges
        let changes = pending == 1 ? "1 change" : "\(pending) changes"
        let retryReason: WaitReason? =
            switch facts.lastOutcome {
            case .retrying(let code)?: WaitReason(code: code)
            case .diskFull?: .diskFull
            case .fileBusy?: .fileBusy
            default: nil
            }
        if let reason = retryReason {
            var copy = "Sync is on but waiting: \(reason.phrase)"
            if let next = facts.nextAttempt { copy += "; it will try again \(Self.retryTime(next, now: facts.now))" }
            copy += ". \(changes) not yet uploaded."
            return SyncStatus(
                state: .on(.waiting(reason: reason, nextAttempt: facts.nextAttempt)), fallbackOccurred: false,
                pendingChanges: pending, copy: copy)
        }
        if facts.boundUser == nil {
            // No cycle has bound the store to an account (a cycle binds before it downloads or sends anything), so
            // nothing is downloading or uploading: saying so would be the lie in the other direction. A cycle that
            // ended before binding (the account unusable then) synced nothing either. The engine keeps no record
            // of a cycle in flight, so the copy says only what the store shows.
            let copy =
                pending > 0
                ? "Sync is on: the first sync has not run yet; until it does, nothing is downloaded and \(changes) "
                    + (pending == 1 ? "waits" : "wait") + " to upload."
                : "Sync is on: the first sync has not run yet; nothing is downloaded until it does."
            return SyncStatus(state: .on(.notYetSynced), fallbackOccurred: false, pendingChanges: pending, copy: copy)
        }
        if pending > 0 || !facts.initialFetchDone {
            // Bound, but the first download has not finished: a cycle may be fetching now, or one stopped partway
            // (a crash, the switch, a send-only cycle). Only "has not finished" is true in every one of those.
            let copy =
                pending > 0
                ? "Sync is on: \(changes) uploading to your iCloud."
                : "Sync is on: the first download from your iCloud has not finished."
            return SyncStatus(state: .on(.syncing), fallbackOccurred: false, pendingChanges: pending, copy: copy)
        }
        return SyncStatus(
            state: .on(.upToDate), fallbackOccurred: false, pendingChanges: 0,
            copy: "Sync is on. Everything you wrote is in your iCloud.")
    }

    /// `HH:MM:SS` UTC, without Foundation's formatters (which would pull in locale data).
    public static func clockTime(_ date: Date) -> String {
        let seconds = secondsSince1970(date)
        let day = ((seconds % 86_400) + 86_400) % 86_400
        return "\(two(day / 3600)):\(two(day / 60 % 60)):\(two(day % 60)) UTC"
    }

    /// When a retry is due, as the settings copy says it: `at HH:MM:SS UTC` on the same UTC day as `now`, else
    /// `on YYYY-MM-DD at HH:MM:SS UTC`, so that a retry a day away never reads as a time today.
    ///
    /// - Parameters:
    ///   - date: When the retry is due.
    ///   - now: The time the status is read; without it the date is always shown.
    /// - Returns: The phrase.
    static func retryTime(_ date: Date, now: Date?) -> String {
        if let now, dayNumber(date) == dayNumber(now) { return "at \(clockTime(date))" }
        return "on \(calendarDate(date)) at \(clockTime(date))"
    }

    /// `YYYY-MM-DD` (UTC, proleptic Gregorian), from the day number (``CivilCalendar``).
    static func calendarDate(_ date: Date) -> String {
        let (year, month, day) = CivilCalendar.date(fromDays: Int64(dayNumber(date)))
        return "\(year)-\(two(Int(month)))-\(two(Int(day)))"
    }

    private static func secondsSince1970(_ date: Date) -> Int {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        // A date read from a damaged store must not trap the status: clamp to what an Int holds.
        guard seconds.isFinite else { return 0 }
        return Int(max(-1e15, min(1e15, seconds)))
    }

    private static func dayNumber(_ date: Date) -> Int {
        let seconds = secondsSince1970(date)
        return seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// How the sync engine's last attempt ended.
///
/// The engine sorts every failure into one of two kinds: worth retrying (the status says on, waiting, and when it
/// will try again), or a reason to pause (the status says paused, and why). Nothing is swallowed.
public enum EngineOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Everything due was fetched and sent.
    case succeeded
    /// The attempt failed with this code and will be retried.
    case retrying(CloudError.Code)
    /// The attempt found that sync cannot run.
    case paused(PauseReason)
    /// The attempt failed because this device's disk is full (its store, or the container's file, could not be
    /// written); it is retried on the same schedule as ``retrying(_:)``. Never a pause: nothing is wrong but space.
    case diskFull
    /// The attempt failed because another process held a file (the store, or the container's file) locked for
    /// longer than the wait; retried on the same schedule as ``retrying(_:)``. Never a pause: the file is healthy.
    case fileBusy
    /// The attempt found the device's account unusable (signed out, restricted, unavailable, another account).
    /// The status does not read this: it reads the account live, so the pause ends when the account comes back.
    case accountUnusable(PauseReason)

    /// The stored form: `ok`, `retry:<code name>`, `retry:diskFull`, `retry:fileBusy` or `pause:<reason>`.
    public var encoded: String {
        switch self {
        case .succeeded: "ok"
        case .retrying(let code): "retry:\(code.name)"
        case .diskFull: "retry:diskFull"
        case .fileBusy: "retry:fileBusy"
        case .paused(let reason): "pause:\(reason.rawValue)"
        case .accountUnusable(let reason): "account:\(reason.rawValue)"
        }
    }

    /// Reads the stored form.
    public init?(encoded: String) {
        if encoded == "ok" {
            self = .succeeded
        } else if encoded == "retry:diskFull" {
            self = .diskFull
        } else if encoded == "retry:fileBusy" {
            self = .fileBusy
        } else if encoded.hasPrefix("retry:"),
            let code = CloudError.Code.allCases.first(where: { $0.name == encoded.dropFirst(6) })
        {
            self = .retrying(code)
        } else if encoded.hasPrefix("pause:"), let reason = PauseReason(rawValue: String(encoded.dropFirst(6))) {
            self = .paused(reason)
        } else if encoded.hasPrefix("account:"), let reason = PauseReason(rawValue: String(encoded.dropFirst(8))) {
            self = .accountUnusable(reason)

        } else {
            return nil
        }
    }

    public var description: String { encoded }
}
