public import PrivateCloud
import Synchronization

/// A container that counts what passes through it: calls by kind, and the saves and deletes the container
/// accepted. What a test (or the simulator) checks an engine's own counters against.
public final class ObservedContainer: PrivateContainer {
    /// What has passed through so far.
    public struct Tally: Sendable, Hashable {
        /// Calls made, by name (`modifyRecords`, `recordZoneChanges`, …).
        public var calls: [String: Int] = [:]
        /// Saves the container accepted.
        public var acceptedSaves = 0
        /// Deletes the container accepted.
        public var acceptedDeletes = 0
        /// Records the container returned from change fetches.
        public var fetchedModifications = 0
        /// Deletions the container returned from change fetches.
        public var fetchedDeletions = 0
        /// Items in each modify request, in order.
        public var requestSizes: [Int] = []
        /// Errors the container threw, by code.
        public var errors: [CloudError.Code: Int] = [:]

        /// Every call, of any kind.
        public var totalCalls: Int { calls.values.reduce(0, +) }

        /// Nothing yet.
        public init() {}

    }

    /// The container observed.
    public let base: any PrivateContainer
    private let tallyState = Mutex(Tally())

    /// Wraps a container.
    public init(base: any PrivateContainer) {
        self.base = base
    }

    /// What has passed through so far.
    public var tally: Tally { tallyState.withLock { $0 } }

    private func count(_ call: String) {
        tallyState.withLock { $0.calls[call, default: 0] += 1 }
    }

    /// Runs a call, counting the error it throws, if any.
    private func counting<T>(_ body: () async throws(CloudError) -> T) async throws(CloudError) -> T {
        do {
            return try await body()
        } catch {
            tallyState.withLock { $0.errors[error.code, default: 0] += 1 }
            throw error
        }
    }

    public var identifier: ContainerIdentifier { base.identifier }

    public func accountStatus() async -> AccountStatus {
        count("accountStatus")
        return await base.accountStatus()
    }

    public func userRecordID() async throws(CloudError) -> UserRecordID {
        count("userRecordID")
        return try await counting { () async throws(CloudError) in try await base.userRecordID() }
    }

    public func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        count("saveZones")
        return try await counting { () async throws(CloudError) in try await base.saveZones(zones) }
    }

    public func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) {
        count("deleteZones")
        try await counting { () async throws(CloudError) in try await base.deleteZones(zoneIDs) }
    }

    public func allZones() async throws(CloudError) -> [RecordZone] {
        count("allZones")
        return try await counting { () async throws(CloudError) in try await base.allZones() }
    }

    public func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        count("records")
        return try await counting { () async throws(CloudError) in try await base.records(for: recordIDs) }
    }

    public func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        tallyState.withLock {
            $0.calls["modifyRecords", default: 0] += 1
            $0.requestSizes.append(saving.count + deleting.count)
        }
        let result = try await counting { () async throws(CloudError) in
            try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        }
        tallyState.withLock {
            $0.acceptedSaves += result.saveResults.values.filter(\.isSuccess).count
            $0.acceptedDeletes += result.deleteResults.values.filter(\.isSuccess).count
            for case .failure(let error) in result.saveResults.values { $0.errors[error.code, default: 0] += 1 }
            for case .failure(let error) in result.deleteResults.values { $0.errors[error.code, default: 0] += 1 }
        }
        return result
    }

    public func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    )
        async throws(CloudError) -> RecordZoneChanges
    {
        count("recordZoneChanges")
        let page = try await counting { () async throws(CloudError) in
            try await base.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
        }
        tallyState.withLock {
            $0.fetchedModifications += page.modifications.count
            $0.fetchedDeletions += page.deletions.count
        }
        return page
    }

    public func databaseChanges(
        since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError)
        -> DatabaseChanges
    {
        count("databaseChanges")
        return try await counting { () async throws(CloudError) in
            try await base.databaseChanges(since: token, resultsLimit: resultsLimit)
        }

    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
