/// Another client's handle on an account's database: after each write (saves, deletes, zones) it schedules a fetch on
/// every automatically syncing engine, as the server's push does.
struct PushingContainer: InterceptingContainer {
    let base: any PrivateContainer
    let scheduler: PSSyncScheduler

    var identifier: ContainerIdentifier { base.identifier }

    func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        switch call {
        case .modifyRecords, .saveZones, .deleteZones:
            defer { scheduler.schedulePushFetches() }
            return try await base.perform(call)
        default:
            return try await base.perform(call)
        }
    }
}
