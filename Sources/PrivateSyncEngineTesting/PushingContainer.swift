/// Another client's handle on an account's database: after each write it schedules a fetch on every automatically
/// syncing engine, as the server's push does.
final class PushingContainer: ForwardingContainer {
    let base: any PrivateContainer
    private let scheduler: PSSyncScheduler

    init(base: any PrivateContainer, scheduler: PSSyncScheduler) {
        self.base = base
        self.scheduler = scheduler
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        defer { scheduler.schedulePushFetches() }
        return try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
    }

    func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        defer { scheduler.schedulePushFetches() }
        return try await base.saveZones(zones)
    }

    func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) {
        defer { scheduler.schedulePushFetches() }
        try await base.deleteZones(zoneIDs)
    }
}
