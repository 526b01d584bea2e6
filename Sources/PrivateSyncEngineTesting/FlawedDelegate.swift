import Synchronization

/// An app's delegate with one flaw a team could write, planted in front of it: it passes the engine's events and
/// calls on, but gets one kind wrong. What a test fronts its delegate with to prove that its ``DelegateSweep`` can
/// fail, and names the invariant the flaw breaks.
///
/// ```swift
/// let sweep = DelegateSweep(makeApp: { device in
///     let front = FlawedDelegate(.forgetsStateUpdates)
///     let app = try await MyApp(device, engineDelegate: front)
///     front.attach(app.delegate)
///     return app
/// }, actions: actions, serverSnapshot: snapshot)
/// let failure = await sweep.firstFailure(seeds: 0..<300)
/// #expect(failure?.invariant == .stateRestored)
/// ```
public final class FlawedDelegate: DelegateFront {
    /// The flaws.
    public enum Flaw: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Never hands `stateUpdate` on: the state a relaunch starts from is always the first.
        case forgetsStateUpdates
        /// Hands on a `serverRecordChanged` failure as a save that went through: the conflict is never merged, and
        /// the edit never goes up.
        case dropsServerRecordChanged
        /// Reads a zone `purged` by the user as an encrypted-data reset: it uploads what the user deleted.
        case takesPurgeForReset
        /// Ignores `switchAccounts`: the previous account's data stays, and goes up to the new one.
        case ignoresAccountSwitches
        /// Adds a save the server refused (`serverRejectedRequest`) again, every time.
        case readdsRefusedSavesForever
        /// Awaits `sendChanges()` from inside `handleEvent`, after each fetch.
        case sendsInsideHandleEvent
        /// Sends again, after each fetch, every record the server just told it about: the values never change, but
        /// the writes never stop.
        case resendsWhatItFetched
        /// Drops the deletions of a fetch: a record deleted on another device stays here.
        case ignoresFetchedDeletions

        public var description: String { rawValue }

        /// The invariants a sweep may name for it: the one its flaw breaks first, and those it breaks on the way.
        public var brokenInvariants: Set<DelegateSweepFailure.Invariant> {
            switch self {
            case .forgetsStateUpdates: [.stateRestored]
            case .dropsServerRecordChanged: [.convergence, .noLostWrites]
            case .takesPurgeForReset: [.purgedStaysDeleted]
            // An app that reports a status, unaware of the switch, reads its own state against the other account's
            // zone (the demo app's mirror takes that zone, missing, for one deleted, and pauses).
            case .ignoresAccountSwitches: [.privacy, .convergence, .honestStatus]
            case .readdsRefusedSavesForever, .resendsWhatItFetched: [.quiescence]
            case .sendsInsideHandleEvent: [.noMisuse]
            case .ignoresFetchedDeletions: [.convergence]
            }
        }
    }

    /// The delegate fronted, held weakly: the app holds it, and it may hold this front (as its engine's delegate),
    /// so a strong reference back would keep both, and the app's open files, alive for ever.
    private struct Fronted {
        weak var delegate: (any PSSyncEngineDelegate)?
    }

    /// The flaw.
    public let flaw: Flaw
    private let fronted = Mutex(Fronted())

    /// Creates a front with one flaw; ``attach(_:)`` gives it the delegate it fronts.
    ///
    /// - Parameter flaw: The flaw.
    public init(_ flaw: Flaw) {
        self.flaw = flaw
    }

    /// Gives the front the delegate it fronts.
    ///
    /// - Parameter delegate: The app's delegate.
    public func attach(_ delegate: any PSSyncEngineDelegate) {
        fronted.withLock { $0.delegate = delegate }
    }

    /// Hands the event on, as the flaw has it, and then does what the flaw adds; before ``attach(_:)``, or once the
    /// fronted delegate is gone, drops it.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - syncEngine: The engine.
    public func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async {
        guard let delegate = fronted.withLock({ $0.delegate }) else { return }
        guard let passed = flawed(event) else { return }
        await delegate.handleEvent(passed, syncEngine: syncEngine)
        switch (flaw, event) {
        case (.readdsRefusedSavesForever, .sentRecordZoneChanges(let sent)):
            let refused = sent.failedRecordSaves.filter { $0.error.code == .serverRejectedRequest }
            syncEngine.state.add(pendingRecordZoneChanges: refused.map { .saveRecord($0.record.recordID) })
        case (.sendsInsideHandleEvent, .didFetchChanges):
            try? await syncEngine.sendChanges()
        case (.resendsWhatItFetched, .fetchedRecordZoneChanges(let fetched)):
            syncEngine.state.add(
                pendingRecordZoneChanges: fetched.modifications.map { .saveRecord($0.record.recordID) })
        default:
            break
        }
    }

    /// Hands the call on; before ``attach(_:)``, or once the fronted delegate is gone, sends nothing.
    ///
    /// - Parameters:
    ///   - context: Why and how the send runs.
    ///   - syncEngine: The engine.
    /// - Returns: The fronted delegate's batch.
    public func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async -> PSSyncEngine.RecordZoneChangeBatch? {
        guard let delegate = fronted.withLock({ $0.delegate }) else { return nil }
        return await delegate.nextRecordZoneChangeBatch(context, syncEngine: syncEngine)
    }

    /// The event as the flawed delegate takes it, or `nil` when it drops it.
    private func flawed(_ event: PSSyncEngine.Event) -> PSSyncEngine.Event? {
        switch (flaw, event) {
        case (.forgetsStateUpdates, .stateUpdate):
            return nil
        case (.dropsServerRecordChanged, .sentRecordZoneChanges(let sent)):
            let conflicts = sent.failedRecordSaves.filter { $0.error.code == .serverRecordChanged }
            return .sentRecordZoneChanges(
                .init(
                    savedRecords: sent.savedRecords + conflicts.map(\.record),
                    failedRecordSaves: sent.failedRecordSaves.filter { $0.error.code != .serverRecordChanged },
                    deletedRecordIDs: sent.deletedRecordIDs, failedRecordDeletes: sent.failedRecordDeletes))
        case (.takesPurgeForReset, .fetchedDatabaseChanges(let changes)):
            return .fetchedDatabaseChanges(
                .init(
                    modifications: changes.modifications,
                    deletions: changes.deletions.map {
                        .init(zoneID: $0.zoneID, reason: $0.reason == .purged ? .encryptedDataReset : $0.reason)
                    }))
        case (.ignoresAccountSwitches, .accountChange(let change)):
            if case .switchAccounts = change.changeType { return nil }
            return event
        case (.ignoresFetchedDeletions, .fetchedRecordZoneChanges(let fetched)):
            return .fetchedRecordZoneChanges(.init(modifications: fetched.modifications, deletions: []))
        default:
            return event
        }
    }
}
