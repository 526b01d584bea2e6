import PrivateCloud
import PrivateCloudFaults

/// A memory container whose server cannot write the announce of a change that became visible (its database file
/// full or locked, say): every other call goes through.
final class UnannouncingContainer: ForwardingContainer, ICloudSettingsControls, CloudServerControls {
    let memory: MemoryContainer
    var base: any PrivateContainer { memory }

    init(_ memory: MemoryContainer) {
        self.memory = memory
    }

    func deleteZoneFromICloudSettings(_ zoneID: ZoneID) async throws(CloudError) {
        try await memory.deleteZoneFromICloudSettings(zoneID)
    }

    func purgeZoneForEncryptedDataReset(_ zoneID: ZoneID) async throws(CloudError) {
        try await memory.purgeZoneForEncryptedDataReset(zoneID)
    }

    func announceChangesBecameVisible(after token: ChangeToken) async throws(CloudError) {
        throw CloudError(.internalError, "the database could not be written (a test's server)")
    }
}
