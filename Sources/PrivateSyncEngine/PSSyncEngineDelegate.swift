/// What an app gives the engine, as `CKSyncEngineDelegate`: it handles the engine's events and provides the records
/// to send.
///
/// The same three requirements as Apple's protocol, with the same labels: a delegate moves over by changing its
/// conformance line (`CKSyncEngineDelegate` to `PSSyncEngineDelegate`) and the engine type in its signatures
/// (`CKSyncEngine` to ``PSSyncEngine``). On Apple platforms, `CloudKitSyncEngineBridge` drives the same delegate
/// from the real `CKSyncEngine`.
///
/// Events arrive one at a time: the next waits until ``handleEvent(_:syncEngine:)`` returns. Do not await the
/// engine's ``PSSyncEngine/fetchChanges(_:)`` or ``PSSyncEngine/sendChanges(_:)`` inside it: they return only once
/// every event they post was handled, so on a device that waits for ever. This engine refuses such a call with
/// ``PSSyncEngineMisuse/Code/reentrantCall`` instead, and says so on standard error. Start such work in a task of its
/// own (`Task.detached`, as Apple advises).
public protocol PSSyncEngineDelegate: AnyObject, Sendable {
    /// Handles one event, as `CKSyncEngineDelegate.handleEvent(_:syncEngine:)`.
    ///
    /// Persist ``PSSyncEngine/Event/StateUpdate/stateSerialization`` on `.stateUpdate`, with the data fetched
    /// before it: a state saved ahead of its data loses that data at the next launch.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - syncEngine: The engine that posts it.
    func handleEvent(_ event: PSSyncEngine.Event, syncEngine: PSSyncEngine) async

    /// The next batch of record changes to send, as `CKSyncEngineDelegate.nextRecordZoneChangeBatch(_:syncEngine:)`;
    /// the engine asks until it gets `nil`.
    ///
    /// Keep to the context's scope, usually by filtering `syncEngine.state.pendingRecordZoneChanges` with
    /// `context.options.scope.contains(_:)` and building the batch with
    /// ``PSSyncEngine/RecordZoneChangeBatch/init(pendingChanges:recordProvider:)``.
    ///
    /// - Parameters:
    ///   - context: Why and how the send runs.
    ///   - syncEngine: The engine asking.
    /// - Returns: The batch, or `nil` when there is nothing more to send.
    func nextRecordZoneChangeBatch(
        _ context: PSSyncEngine.SendChangesContext, syncEngine: PSSyncEngine
    ) async
        -> PSSyncEngine.RecordZoneChangeBatch?

    /// The options for the rest of a fetch, as `CKSyncEngineDelegate.nextFetchChangesOptions(_:syncEngine:)`: asked
    /// before each zone is fetched, so a delegate can change the scope or the priorities mid-fetch.
    ///
    /// - Parameters:
    ///   - context: Why the fetch runs, and its options so far.
    ///   - syncEngine: The engine asking.
    /// - Returns: The options; the default returns `context.options`.
    func nextFetchChangesOptions(
        _ context: PSSyncEngine.FetchChangesContext, syncEngine: PSSyncEngine
    ) async
        -> PSSyncEngine.FetchChangesOptions
}

extension PSSyncEngineDelegate {
    /// Keeps the fetch's options as they are, as CloudKit's default does.
    ///
    /// - Parameters:
    ///   - context: Why the fetch runs, and its options so far.
    ///   - syncEngine: The engine asking.
    /// - Returns: `context.options`.
    public func nextFetchChangesOptions(
        _ context: PSSyncEngine.FetchChangesContext, syncEngine: PSSyncEngine
    ) async
        -> PSSyncEngine.FetchChangesOptions
    {
        context.options
    }
}
