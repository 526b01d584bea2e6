import PrivateSyncEngineTesting
import Synchronization

/// A container that fails chosen calls with a chosen error, then passes them on: a test double for error codes no
/// fault of the cloud produces (notAuthenticated as a request error, permissionFailure …).
final class FailingContainer: ForwardingContainer {
    let base: any PrivateContainer
    private let plan = Mutex<[CloudError]>([])

    init(base: any PrivateContainer) {
        self.base = base
    }

    /// Fails the next modify requests, one error each.
    func failNextModify(with errors: [CloudError]) {
        plan.withLock { $0 += errors }
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        if let error = plan.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw error }
        return try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
    }
}
