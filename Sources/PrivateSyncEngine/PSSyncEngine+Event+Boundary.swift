extension PSSyncEngine.Event {
    /// The payload of the events that open and close a fetch or a send: its context, as
    /// `CKSyncEngine.Event.WillFetchChanges`, `DidFetchChanges`, `WillSendChanges` and `DidSendChanges` carry it.
    public struct Boundary<Context: Sendable & CustomStringConvertible>: Sendable, CustomStringConvertible {
        /// Why and how the operation runs.
        public let context: Context

        /// Creates the payload.
        ///
        /// - Parameter context: Why and how the operation runs.
        public init(context: Context) {
            self.context = context
        }

        /// The context.
        public var description: String { "\(context)" }
    }

    /// A fetch begins, as `CKSyncEngine.Event.WillFetchChanges`.
    public typealias WillFetchChanges = Boundary<PSSyncEngine.FetchChangesContext>
    /// A fetch ended, as `CKSyncEngine.Event.DidFetchChanges`.
    public typealias DidFetchChanges = Boundary<PSSyncEngine.FetchChangesContext>
    /// A send begins, as `CKSyncEngine.Event.WillSendChanges`.
    public typealias WillSendChanges = Boundary<PSSyncEngine.SendChangesContext>
    /// A send ended, as `CKSyncEngine.Event.DidSendChanges`.
    public typealias DidSendChanges = Boundary<PSSyncEngine.SendChangesContext>
}
