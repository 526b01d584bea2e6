import Synchronization

extension PSSyncEngine {
    /// What the engine keeps between launches, as `CKSyncEngine.State`: the changes waiting to be sent, the zones
    /// with changes waiting to be fetched, the change tokens, and the signed-in user it last saw.
    ///
    /// The pending lists follow Apple's documented rules: one change per record (or zone), so adding a change that
    /// is there already keeps it where it is (save A, save B, save A gives [save A, save B]), and a change of the
    /// other kind replaces it (save A then delete A gives [delete A]). A change leaves the list when the server
    /// accepted it, or failed it with an error no retry can cure; a retryable failure keeps it. A change added
    /// again while it is being sent stays in the list when the send succeeds, so an edit made mid-send is sent too.
    ///
    /// Every change of the state is reported in a ``PSSyncEngine/Event/stateUpdate(_:)`` event: at the end of the
    /// engine's current fetch or send, after every fetched page, or, for a change made while the engine is idle,
    /// when its ``PSSyncEngine/scheduler`` next runs (or its next fetch or send begins), as CloudKit posts one
    /// shortly after. A state not persisted when the app dies loses what changed since the last update.
    public final class State: Sendable, CustomStringConvertible {
        let contents: Mutex<StateContents>
        /// The engine told of every change, with whether it added work to send; set once by the engine.
        ///
        /// A reference, not a closure: a closure kept in a `Mutex` and read with `withLock { $0 }` comes back
        /// wrapped in one more reabstraction thunk at every read (the inout write-back stores the wrapped one), so
        /// that each change cost a call per change before it and, some ten thousand changes on, overflowed the
        /// stack (`PendingChangeTests.manyChanges`; reproduced with the toolchain's `Mutex` alone).
        let owner = Mutex(Owner())
        /// A weak reference to the engine, for ``owner``.
        struct Owner {
            weak var engine: PSSyncEngine?
        }
        /// The real CKSyncEngine's state, which every member forwards to when this one fronts it (the bridge's).
        let forwarded: (any ForwardedState)?

        init(_ contents: StateContents) {
            self.contents = Mutex(contents)
            self.forwarded = nil
        }

        /// A state that fronts the real CKSyncEngine's.
        init(forwardingTo state: any ForwardedState) {
            self.contents = Mutex(StateContents())
            self.forwarded = state
        }

        /// The record changes waiting to be sent, in the order they were first added.
        public var pendingRecordZoneChanges: [PendingRecordZoneChange] {
            if let forwarded { return forwarded.pendingRecordZoneChanges }
            return contents.withLock { contents in
                contents.pendingRecordZoneChanges.prepareListing()
                return contents.pendingRecordZoneChanges.changes
            }
        }

        /// The zone changes waiting to be sent, in the order they were first added.
        public var pendingDatabaseChanges: [PendingDatabaseChange] {
            if let forwarded { return forwarded.pendingDatabaseChanges }
            return contents.withLock { contents in
                contents.pendingDatabaseChanges.prepareListing()
                return contents.pendingDatabaseChanges.changes
            }
        }

        /// Whether the app has changes to send that it tracks itself: setting it schedules a send, which asks the
        /// delegate for batches though the pending lists are empty. A send that ends with nothing left to send and
        /// nothing failed clears it.
        public var hasPendingUntrackedChanges: Bool {
            get { forwarded?.hasPendingUntrackedChanges ?? contents.withLock { $0.hasPendingUntrackedChanges } }
            set {
                if let forwarded {
                    forwarded.hasPendingUntrackedChanges = newValue
                    return
                }
                let changed = contents.withLock { contents in
                    defer { contents.hasPendingUntrackedChanges = newValue }
                    return contents.hasPendingUntrackedChanges != newValue
                }
                if changed { notify(addedWork: newValue) }
            }
        }

        /// The zones the server reported changes in that the engine has not fetched yet, in the order reported.
        public var zoneIDsWithUnfetchedServerChanges: [PSRecordZone.ID] {
            forwarded?.zoneIDsWithUnfetchedServerChanges ?? contents.withLock { $0.unfetchedZones }
        }

        /// Adds record changes to send, collapsing them with those already pending, and schedules a send.
        ///
        /// - Parameter pendingRecordZoneChanges: The changes.
        public func add(pendingRecordZoneChanges: [PendingRecordZoneChange]) {
            if let forwarded { return forwarded.add(pendingRecordZoneChanges: pendingRecordZoneChanges) }
            add(pendingRecordZoneChanges, to: \.pendingRecordZoneChanges)
        }

        /// Removes record changes, as they are (a `saveRecord` does not remove a pending `deleteRecord`).
        ///
        /// - Parameter pendingRecordZoneChanges: The changes.
        public func remove(pendingRecordZoneChanges: [PendingRecordZoneChange]) {
            if let forwarded { return forwarded.remove(pendingRecordZoneChanges: pendingRecordZoneChanges) }
            remove(pendingRecordZoneChanges, from: \.pendingRecordZoneChanges)
        }

        /// Adds zone changes to send, collapsing them with those already pending, and schedules a send.
        ///
        /// - Parameter pendingDatabaseChanges: The changes.
        public func add(pendingDatabaseChanges: [PendingDatabaseChange]) {
            if let forwarded { return forwarded.add(pendingDatabaseChanges: pendingDatabaseChanges) }
            add(pendingDatabaseChanges, to: \.pendingDatabaseChanges)
        }

        /// Removes zone changes, as they are.
        ///
        /// - Parameter pendingDatabaseChanges: The changes.
        public func remove(pendingDatabaseChanges: [PendingDatabaseChange]) {
            if let forwarded { return forwarded.remove(pendingDatabaseChanges: pendingDatabaseChanges) }
            remove(pendingDatabaseChanges, from: \.pendingDatabaseChanges)
        }

        private func add<Change, Key>(
            _ changes: [Change], to list: WritableKeyPath<StateContents, PendingList<Change, Key>>
        ) {
            guard !changes.isEmpty else { return }
            contents.withLock { contents in
                for change in changes { contents[keyPath: list].add(change, revision: contents.takeRevision()) }
            }
            notify(addedWork: true)
        }

        private func remove<Change, Key>(
            _ changes: [Change], from list: WritableKeyPath<StateContents, PendingList<Change, Key>>
        ) {
            guard !changes.isEmpty else { return }
            let removed = contents.withLock { contents in
                // Every change is removed: a `||` that stops at the first one removed would leave the rest.
                var removed = false
                for change in changes where contents[keyPath: list].remove(change) { removed = true }
                return removed
            }
            if removed { notify(addedWork: false) }
        }

        /// The counts of the pending lists and the unfetched zones.
        public var description: String {
            if forwarded != nil {
                return "State(CloudKit, pendingRecordZoneChanges: \(pendingRecordZoneChanges.count), "
                    + "pendingDatabaseChanges: \(pendingDatabaseChanges.count))"
            }
            return contents.withLock {
                "State(pendingRecordZoneChanges: \($0.pendingRecordZoneChanges.count), pendingDatabaseChanges: "
                    + "\($0.pendingDatabaseChanges.count), zoneIDsWithUnfetchedServerChanges: "
                    + "\($0.unfetchedZones.count))"
            }
        }

        /// The state as it stands, for a ``PSSyncEngine/Event/StateUpdate`` event.
        var serialization: Serialization {
            contents.withLock { Serialization(payload: $0.payload) }
        }

        /// Changes the contents and reports the change.
        ///
        /// - Parameter change: The change; returns whether it added work to send.
        func update(_ change: (inout StateContents) -> Bool) {
            let addedWork = contents.withLock { contents in
                contents.isDirty = true
                return change(&contents)
            }
            notify(addedWork: addedWork)
        }

        private func notify(addedWork: Bool) {
            contents.withLock { $0.isDirty = true }
            owner.withLock { $0.engine }?.stateDidChange(addedWork: addedWork)
        }
    }
}
