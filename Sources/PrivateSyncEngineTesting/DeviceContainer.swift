import Synchronization

/// The container handle a test device's engine talks to: the device's faults, then the account's database. It can
/// force every modify request to be atomic, as custom zones are observed to behave (sqlite-data issue 315).
final class DeviceContainer: ForwardingContainer {
    let base: any PrivateContainer
    private let forcesAtomicity = Mutex(false)

    init(base: any PrivateContainer) {
        self.base = base
    }

    var forcesAtomicByZone: Bool {
        get { forcesAtomicity.withLock { $0 } }
        set { forcesAtomicity.withLock { $0 = newValue } }
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy,
            atomically: atomically || forcesAtomicByZone)
    }
}
