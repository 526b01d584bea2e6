import PrivateSyncTesting
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Known bugs, planted through test doubles, that the simulator must catch.
enum PlantedBugs {
    /// A container that drops one save in fifty while reporting success.
    final class DroppingContainer: ForwardingContainer {
        /// Counts saves over every container of a run, so that relaunches do not reset the count.
        final class Counter: Sendable {
            let saves = Mutex(0)
        }

        let base: any PrivateContainer
        private let counter: Counter

        init(base: any PrivateContainer, counter: Counter) {
            self.base = base
            self.counter = counter
        }

        func modifyRecords(
            saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
        )
            async throws(CloudError) -> ModifyResult
        {
            var kept: [Record] = []
            var dropped: [Record] = []
            for record in saving {
                let count = counter.saves.withLock { count in
                    count += 1
                    return count
                }
                if count % 50 == 0 { dropped.append(record) } else { kept.append(record) }
            }
            var result = try await base.modifyRecords(
                saving: kept, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
            // Stamped with the signed-in user, as the server would stamp a real save: the loss is what this double
            // plants, not a request that reached another account (invariant 14's, which a made-up user trips).
            let user = dropped.isEmpty ? nil : try await base.userRecordID()
            for record in dropped {
                // Report success, with made-up system fields, for a save that never happened.
                let fake = SystemFields(
                    changeTag: "lost", creationDate: Date(timeIntervalSinceReferenceDate: 0),
                    modificationDate: Date(timeIntervalSinceReferenceDate: 0),
                    creatorUserRecordID: user!, lastModifiedUserRecordID: user!)
                result.saveResults[record.recordID] = .success(
                    Record(recordType: record.recordType, recordID: record.recordID, systemFields: fake))
            }
            return result
        }
    }

    /// A network layer that caches who is signed in: `userRecordID()` keeps answering the first user it heard of,
    /// through sign-outs and switches, so the engine believes the account it is bound to is still there.
    final class StaleUserContainer: ForwardingContainer {
        let base: any PrivateContainer
        private let cached = Mutex<UserRecordID?>(nil)

        init(base: any PrivateContainer) {
            self.base = base
        }

        func userRecordID() async throws(CloudError) -> UserRecordID {
            if let user = cached.withLock({ $0 }) { return user }
            let user = try await base.userRecordID()
            cached.withLock { $0 = user }
            return user
        }
    }

    /// A send path that lets one local-only record through: the first request that saves anything carries an
    /// extra Baseline.
    final class LeakingContainer: ForwardingContainer {
        let base: any PrivateContainer
        private let leaked = Mutex(false)

        init(base: any PrivateContainer) {
            self.base = base
        }

        func modifyRecords(
            saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
        )
            async throws(CloudError) -> ModifyResult
        {
            var saving = saving
            if let first = saving.first,
                leaked.withLock({ done in
                    done
                        ? false
                        : {
                            done = true; return true
                        }()
                })
            {
                var leak = Record(
                    recordType: "Baseline",
                    recordID: RecordID(
                        uncheckedName: "LEAKED-\(first.recordID.recordName)", zoneID: first.recordID.zoneID),
                    systemFields: nil)
                leak["value"] = .double(58)
                saving.append(leak)
            }
            var result = try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
            result.saveResults = result.saveResults.filter { !$0.key.recordName.hasPrefix("LEAKED-") }
            return result
        }
    }

    /// A status source that always says on.
    @Sendable static func alwaysOn(_ app: LaunchedApp) throws -> SyncStatus {
        SyncStatus(state: .on(.upToDate), fallbackOccurred: false, pendingChanges: 0, copy: "Sync is on.")
    }

    /// A store that forgets its pending changes when the process crashes.
    @Sendable static func forgetPendingChanges(_ app: LaunchedApp) {
        _ = try? app.stores.userCreated.syncTransaction { state in
            for change in try state.pendingChanges(limit: Int.max) {
                try state.removePendingChange(named: change.recordName, ifRevision: nil)
            }
        }
    }
}
