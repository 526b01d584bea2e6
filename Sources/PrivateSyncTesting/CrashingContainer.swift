public import DeviceStore
public import PrivateCloud
import Synchronization

/// A container that crashes the device's process at a chosen call, after the server acted on it: the moment a
/// killed app loses the response to a request that was applied.
///
/// From the crash on, the device's stores commit nothing (see `CrashSwitch`) and every call fails; relaunch the
/// app with a fresh switch to carry on, as after a real crash.
public final class CrashingContainer: PrivateContainer {
    /// Where to crash.
    public enum Moment: String, Sendable, Hashable, CaseIterable {
        /// After the server applied a modify request, before the app hears back.
        case afterModify
        /// After a change fetch returned, before the app applies the page.
        case afterFetch
        /// Before the first call of a cycle.
        case beforeAnyCall
    }

    /// The container wrapped.
    public let base: any PrivateContainer
    private let crashSwitch: CrashSwitch
    private let moment: Moment
    private let remaining: Mutex<Int>

    /// Wraps a container.
    ///
    /// - Parameters:
    ///   - base: The container.
    ///   - crashSwitch: The device's crash switch, flipped at the crash.
    ///   - moment: Where to crash.
    ///   - after: How many matching calls to let through first.
    public init(base: any PrivateContainer, crashSwitch: CrashSwitch, at moment: Moment, after: Int = 0) {
        self.base = base
        self.crashSwitch = crashSwitch
        self.moment = moment
        self.remaining = Mutex(after)
    }

    public var identifier: ContainerIdentifier { base.identifier }

    private var dead: CloudError {
        CloudError(.networkFailure, "the process crashed (simulated)")
    }

    /// Whether this matching call is the one to crash at.
    private func isTheCrash(_ moment: Moment) -> Bool {
        guard moment == self.moment else { return false }
        return remaining.withLock { count in
            if count == 0 { return true }
            count -= 1
            return false
        }
    }

    private func guardAlive() throws(CloudError) {
        if crashSwitch.isDown { throw dead }
        if isTheCrash(.beforeAnyCall) {
            crashSwitch.crash()
            throw dead
        }
    }

    public func accountStatus() async -> AccountStatus {
        await base.accountStatus()
    }

    public func userRecordID() async throws(CloudError) -> UserRecordID {
        try guardAlive()
        return try await base.userRecordID()
    }

    public func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        try guardAlive()
        return try await base.saveZones(zones)
    }

    public func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) {
        try guardAlive()
        try await base.deleteZones(zoneIDs)
    }

    public func allZones() async throws(CloudError) -> [RecordZone] {
        try guardAlive()
        return try await base.allZones()
    }

    public func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        try guardAlive()
        return try await base.records(for: recordIDs)
    }

    public func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        try guardAlive()
        let result = try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        if isTheCrash(.afterModify) {
            crashSwitch.crash()
            throw dead
        }
        return result
    }

    public func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    )
        async throws(CloudError) -> RecordZoneChanges
    {
        try guardAlive()
        let page = try await base.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
        if isTheCrash(.afterFetch) {
            crashSwitch.crash()
            throw dead
        }
        return page
    }

    public func databaseChanges(
        since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError)
        -> DatabaseChanges
    {
        try guardAlive()
        return try await base.databaseChanges(since: token, resultsLimit: resultsLimit)
    }
}
