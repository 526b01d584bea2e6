extension PSSyncEngine {
    /// Changes the engine still holds, as a test's teardown asserts there are none.
    public struct LeftoverChanges: Error, Sendable, CustomStringConvertible {
        /// The record changes still pending.
        public let pendingRecordZoneChanges: [PendingRecordZoneChange]
        /// The zone changes still pending.
        public let pendingDatabaseChanges: [PendingDatabaseChange]
        /// Whether the app still says it has changes of its own to send.
        public let hasPendingUntrackedChanges: Bool
        /// The zones with server changes not fetched yet.
        public let zoneIDsWithUnfetchedServerChanges: [PSRecordZone.ID]

        /// What is left, listed.
        public var description: String {
            var parts: [String] = []
            if !pendingRecordZoneChanges.isEmpty {
                parts.append(
                    "pending record changes: \(pendingRecordZoneChanges.map(\.description).joined(separator: ", "))")
            }
            if !pendingDatabaseChanges.isEmpty {
                parts.append(
                    "pending zone changes: \(pendingDatabaseChanges.map(\.description).joined(separator: ", "))")
            }
            if hasPendingUntrackedChanges { parts.append("untracked changes still pending") }
            if !zoneIDsWithUnfetchedServerChanges.isEmpty {
                parts.append(
                    "zones not fetched: \(zoneIDsWithUnfetchedServerChanges.map(\.zoneName).joined(separator: ", "))")
            }
            return "the sync engine has work left: " + parts.joined(separator: "; ")
        }
    }

    /// Checks that nothing is left to send or to fetch, as sqlite-data's tests assert at teardown.
    ///
    /// - Parameter includingUnfetchedZones: Whether zones with unfetched server changes count too; `true` by
    ///   default.
    /// - Throws: ``LeftoverChanges`` listing what is left.
    public func expectNothingPending(includingUnfetchedZones: Bool = true) throws(LeftoverChanges) {
        let leftover = LeftoverChanges(
            pendingRecordZoneChanges: state.pendingRecordZoneChanges,
            pendingDatabaseChanges: state.pendingDatabaseChanges,
            hasPendingUntrackedChanges: state.hasPendingUntrackedChanges,
            zoneIDsWithUnfetchedServerChanges: includingUnfetchedZones ? state.zoneIDsWithUnfetchedServerChanges : [])
        if !leftover.pendingRecordZoneChanges.isEmpty || !leftover.pendingDatabaseChanges.isEmpty
            || leftover.hasPendingUntrackedChanges || !leftover.zoneIDsWithUnfetchedServerChanges.isEmpty
        {
            throw leftover
        }
    }
}
