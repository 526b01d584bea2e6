import PrivateSyncFileSystem
import Testing

@testable import PrivateCloud

/// The container backends every conformance case runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case file
    case memory

    var testDescription: String { rawValue }
}

/// A folder under the system's temporary folder, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init(_ prefix: String = "privatesync-test") {
        path = try! FileSystem.makeTemporaryDirectory(prefix: prefix)
    }

    deinit {
        try? FileSystem.removeItem(path)
    }
}

/// A world of accounts and devices on one backend: each device is its own container handle (its own SQLite
/// connection for the file backend) on its own account session.
final class ContainerHarness: Sendable {
    let backend: Backend
    let directory = TemporaryDirectory()
    let cloud: MemoryCloud
    let clock = ManualClock()
    let identifier = try! ContainerIdentifier("iCloud.com.example.me")
    let limits: CloudLimits

    init(_ backend: Backend, limits: CloudLimits = .cloudKit) {
        self.backend = backend
        self.limits = limits
        self.cloud = MemoryCloud(clock: clock)
    }

    var cloudRoot: String { directory.path + "/cloud" }

    /// A handle on the memory cloud for `session`, with the harness's clock: as a device, or a launch of one, opens it.
    ///
    /// - Parameter session: The session that routes every call.
    /// - Returns: The handle.
    func memoryContainer(session: AccountSession) -> MemoryContainer {
        MemoryContainer(cloud: cloud, identifier: identifier, session: session, clock: clock)
    }

    /// A device signed into `account` (or none), with its own container handle.
    func device(_ account: String?, status: AccountStatus = .available) -> Device {
        let session = AccountSession(account: account.map { try! AccountID($0) }, status: status)
        let container: any PrivateContainer & ICloudSettingsControls =
            switch backend {
            case .file:
                FileContainer(
                    cloudRoot: cloudRoot, identifier: identifier, session: session, clock: clock, limits: limits,
                    durability: .survivesProcessCrash)
            case .memory:
                MemoryContainer(cloud: cloud, identifier: identifier, session: session, clock: clock, limits: limits)
            }
        return Device(container: container, session: session)
    }

    /// The container handles of two devices, signed into `first` and `second` (one account twice for two devices
    /// of one user), each its own handle on its own session.
    func containers(
        _ first: String, _ second: String
    ) -> (any PrivateContainer & ICloudSettingsControls, any PrivateContainer & ICloudSettingsControls) {
        (device(first).container, device(second).container)
    }

    /// The database file of `account`, for the file backend.
    func databasePath(_ account: String) -> String {
        FileContainer.databasePath(cloudRoot: cloudRoot, account: try! AccountID(account), identifier: identifier)
    }
}

extension ContainerHarness {
    /// A harness on `backend` and a container of alice's on it with the sync zone saved: where most conformance cases
    /// start.
    static func withSyncZone(
        _ backend: Backend
    ) async throws -> (ContainerHarness, any PrivateContainer & ICloudSettingsControls) {
        let harness = ContainerHarness(backend)
        let container = harness.device("alice").container
        _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
        return (harness, container)
    }

    /// A container of alice's on `backend` with the sync zone saved, for a case that needs nothing else of its
    /// harness (which is let go at once, as `ContainerHarness(backend).device("alice").container` lets it go).
    static func containerWithSyncZone(_ backend: Backend) async throws -> any PrivateContainer & ICloudSettingsControls
    {
        let container = ContainerHarness(backend).device("alice").container
        _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
        return container
    }
}

struct Device: Sendable {
    let container: any PrivateContainer & ICloudSettingsControls
    let session: AccountSession
}

let syncZone = try! ZoneID("SyncZone")

/// A record of `type` named `name` in `zone`, with `fields`.
func makeRecord(
    _ name: String, type: String = "Note", zone: ZoneID = syncZone, fields: [String: FieldValue] = [:]
) -> Record {
    var record = try! Record(recordType: type, recordID: RecordID(recordName: name, zoneID: zone))
    for (key, value) in fields { record[key] = value }
    return record
}

/// Saves records with the default policy and returns them as saved; fails the test on any per-item error.
@discardableResult
func saveAll(
    _ records: [Record], to container: any PrivateContainer, policy: SavePolicy = .ifServerRecordUnchanged
)
    async throws -> [Record]
{
    let result = try await container.modifyRecords(
        saving: records, deleting: [], savePolicy: policy, atomically: true)
    if let failure = result.partialFailure { throw failure }
    return records.map { try! result.saveResults[$0.recordID]!.get() }
}

/// The code with which `container` refuses a save of `record` alone (`nil` when it saves it).
func saveCode(
    of record: Record, to container: any PrivateContainer, policy: SavePolicy = .ifServerRecordUnchanged,
    atomically: Bool = true
) async throws -> CloudError.Code? {
    let result = try await container.modifyRecords(
        saving: [record], deleting: [], savePolicy: policy, atomically: atomically)
    return result.saveResults[record.recordID]?.cloudCode
}

/// The code with which `container` refuses to list the sync zone's changes from the start (`nil` when it lists them).
func zoneChangesCode(_ container: any PrivateContainer) async -> CloudError.Code? {
    await cloudErrorCode { _ = try await container.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil) }
}

/// The code of the CloudError `body` throws, or `nil` when it throws nothing; any other error fails the test.
func cloudErrorCode(
    _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) async
    -> CloudError.Code?
{
    do {
        try await body()
        return nil
    } catch let error as CloudError {
        return error.code
    } catch {
        Issue.record("expected a CloudError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension Result {
    /// The error's CloudKit code, or `nil` on success.
    var cloudCode: CloudError.Code? {
        if case .failure(let error) = self { return (error as? CloudError)?.code }
        return nil
    }
}
