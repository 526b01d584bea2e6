import PrivateSyncEngineTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A container that kills its process with SIGKILL right after the server applied a modify request, before its
/// answer reaches the engine: the crash a device meets when the app dies with a send in flight.
final class KillingContainer: ForwardingContainer {
    let base: any PrivateContainer

    init(base: any PrivateContainer) {
        self.base = base
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        _ = try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        kill(getpid(), SIGKILL)
        preconditionFailure("SIGKILL did not end the process")
    }
}
