extension PSSyncEngine {
    /// What the engine tells its delegate, one at a time, as `CKSyncEngine.Event`: the same twelve cases, each with
    /// a payload of the same name and the same properties as Apple's, so that a delegate's `switch` and what it reads
    /// off each payload move over unchanged.
    ///
    /// Unlike Apple's, every payload has a public initializer, so a test can build any event and hand it to a
    /// delegate directly. Apple may add cases: keep an `@unknown default` in a `switch` over events (the compiler
    /// accepts one here too).
    public enum Event: Sendable, CustomStringConvertible {
        /// The engine's state changed: persist ``StateUpdate/stateSerialization`` with the data fetched before it.
        case stateUpdate(StateUpdate)
        /// The user signed in, signed out or switched accounts; the engine has already forgotten its pending changes
        /// and tokens.
        case accountChange(AccountChange)
        /// Zones created, changed or deleted on the server.
        case fetchedDatabaseChanges(FetchedDatabaseChanges)
        /// Records changed or deleted in a zone on the server.
        case fetchedRecordZoneChanges(FetchedRecordZoneChanges)
        /// The outcome of sending pending zone changes.
        case sentDatabaseChanges(SentDatabaseChanges)
        /// The outcome of sending a batch of record changes.
        case sentRecordZoneChanges(SentRecordZoneChanges)
        /// A fetch begins.
        case willFetchChanges(WillFetchChanges)
        /// The fetch of one zone's changes begins.
        case willFetchRecordZoneChanges(WillFetchRecordZoneChanges)
        /// The fetch of one zone's changes ended, with its error if it failed.
        case didFetchRecordZoneChanges(DidFetchRecordZoneChanges)
        /// A fetch ended.
        case didFetchChanges(DidFetchChanges)
        /// A send begins.
        case willSendChanges(WillSendChanges)
        /// A send ended.
        case didSendChanges(DidSendChanges)

        /// The case's name and its payload's summary.
        public var description: String {
            switch self {
            case .stateUpdate(let payload): "stateUpdate(\(payload))"
            case .accountChange(let payload): "accountChange(\(payload))"
            case .fetchedDatabaseChanges(let payload): "fetchedDatabaseChanges(\(payload))"
            case .fetchedRecordZoneChanges(let payload): "fetchedRecordZoneChanges(\(payload))"
            case .sentDatabaseChanges(let payload): "sentDatabaseChanges(\(payload))"
            case .sentRecordZoneChanges(let payload): "sentRecordZoneChanges(\(payload))"
            case .willFetchChanges(let payload): "willFetchChanges(\(payload))"
            case .willFetchRecordZoneChanges(let payload): "willFetchRecordZoneChanges(\(payload))"
            case .didFetchRecordZoneChanges(let payload): "didFetchRecordZoneChanges(\(payload))"
            case .didFetchChanges(let payload): "didFetchChanges(\(payload))"
            case .willSendChanges(let payload): "willSendChanges(\(payload))"
            case .didSendChanges(let payload): "didSendChanges(\(payload))"
            }
        }
    }
}
