import DeviceStore
import PrivateCloud

/// The outermost container of every app instance in a run: before each call, and after the server answered a
/// fetch or a modify request (before the app applies the answer), it lets the ``Scheduler`` run whatever the seed
/// puts there (a user's action on this or another device, another device's cycle), so that actions land
/// while a cycle is between two requests; and a call made after the instance's process crashed fails, as a dead
/// process sends nothing.
final class InterleavingContainer: ForwardingContainer {
    let base: any PrivateContainer
    private let scheduler: Scheduler
    private let device: String
    private let instance: Int
    private let crashSwitch: CrashSwitch

    /// Wraps a container.
    ///
    /// - Parameters:
    ///   - base: The container.
    ///   - scheduler: The run's scheduler.
    ///   - device: The device's name.
    ///   - instance: The app instance's launch number.
    ///   - crashSwitch: The instance's crash switch.
    init(base: any PrivateContainer, scheduler: Scheduler, device: String, instance: Int, crashSwitch: CrashSwitch) {
        self.base = base
        self.scheduler = scheduler
        self.device = device
        self.instance = instance
        self.crashSwitch = crashSwitch
    }

    /// Runs a call, telling the scheduler about an error thrown for the whole call (not an item's error).
    private func forward<T>(_ body: () async throws(CloudError) -> T) async throws(CloudError) -> T {
        do {
            return try await body()
        } catch {
            scheduler.threw(device: device, code: error.code)
            throw error
        }
    }

    /// Lets the scheduler act, then fails if the process died meanwhile.
    private func turn(_ call: String, sending names: [String] = []) async throws(CloudError) {
        await scheduler.beforeCall(device: device, instance: instance, call: call, sending: names)
        if crashSwitch.isDown { throw CloudError(.networkFailure, "the process crashed (simulated)") }
    }

    func accountStatus() async -> AccountStatus {
        await scheduler.beforeCall(device: device, instance: instance, call: "accountStatus")
        return await base.accountStatus()
    }

    func userRecordID() async throws(CloudError) -> UserRecordID {
        try await turn("userRecordID")
        return try await forward { () async throws(CloudError) in try await base.userRecordID() }
    }

    func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        try await turn("saveZones")
        return try await forward { () async throws(CloudError) in try await base.saveZones(zones) }
    }

    func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) {
        try await turn("deleteZones")
        try await forward { () async throws(CloudError) in try await base.deleteZones(zoneIDs) }
    }

    func allZones() async throws(CloudError) -> [RecordZone] {
        try await turn("allZones")
        return try await forward { () async throws(CloudError) in try await base.allZones() }
    }

    func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try await turn("records")
        return try await forward { () async throws(CloudError) in try await base.records(for: recordIDs) }
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        try await turn("modifyRecords", sending: saving.map(\.recordID.recordName))
        let result = try await forward { () async throws(CloudError) in
            try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        }
        let accepted = saving.filter { record in
            if case .success? = result.saveResults[record.recordID] { return true }
            return false
        }
        if !accepted.isEmpty { scheduler.accepted(device: device, saved: accepted) }
        let deleted = deleting.filter { id in
            if case .success? = result.deleteResults[id] { return true }
            return false
        }
        if !deleted.isEmpty { scheduler.deletes(device: device, sent: deleted.map(\.recordName), fetched: []) }
        // A record refused as too large that is over CloudKit's size limit can never be accepted: sending it starts
        // an endless retry (behaviour 8). Measured only on items refused with limitExceeded, which are rare: the
        // fault injector refuses fitting records the same way.
        let oversized = saving.filter { record in
            guard case .failure(let error)? = result.saveResults[record.recordID], error.code == .limitExceeded
            else { return false }
            return record.encodedSize > CloudLimits.cloudKit.maximumRecordBytes
        }
        if !oversized.isEmpty { scheduler.sentOversized(device: device, records: oversized) }
        var own: [(String, String)] = []
        var received: [(String, String)] = []
        var refused: [String] = []
        for (id, outcome) in result.saveResults {
            switch outcome {
            case .success(let record): if let tag = record.recordChangeTag { own.append((id.recordName, tag)) }
            case .failure(let error):
                if let tag = error.serverRecord?.recordChangeTag { received.append((id.recordName, tag)) }
                if error.code == .serverRejectedRequest || error.code == .limitExceeded {
                    refused.append(id.recordName)
                }
            }
        }
        if !refused.isEmpty { scheduler.refused(device: device, names: refused) }
        scheduler.tags(device: device, own: own, received: received)
        // The server has answered; the app has not yet applied the answer.
        await scheduler.beforeCall(
            device: device, instance: instance, call: "modifyRecords response",
            sending: accepted.map(\.recordID.recordName))
        return result
    }

    func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError) -> RecordZoneChanges {
        try await turn("recordZoneChanges")
        let changes = try await forward { () async throws(CloudError) in
            try await base.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
        }
        scheduler.tags(
            device: device, own: [],
            received: changes.modifications.compactMap { record in
                record.recordChangeTag.map { (record.recordID.recordName, $0) }
            })
        if !changes.deletions.isEmpty {
            scheduler.deletes(device: device, sent: [], fetched: changes.deletions.map(\.recordID.recordName))
        }
        scheduler.fetchedPage(device: device, instance: instance)
        if !changes.moreComing { scheduler.fetchedLastPage(device: device, instance: instance) }
        await scheduler.beforeCall(device: device, instance: instance, call: "recordZoneChanges response")
        return changes
    }

    func databaseChanges(since token: ChangeToken?, resultsLimit: Int?) async throws(CloudError) -> DatabaseChanges {
        try await turn("databaseChanges")
        return try await forward { () async throws(CloudError) in
            try await base.databaseChanges(since: token, resultsLimit: resultsLimit)
        }
    }
}
