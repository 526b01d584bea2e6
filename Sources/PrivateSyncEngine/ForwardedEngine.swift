/// Where an engine's operations go when it fronts the real CKSyncEngine (the bridge's): the engine's public methods
/// forward here instead of running over a fake container.
protocol ForwardedEngine: Sendable {
    func fetchChanges(_ options: PSSyncEngine.FetchChangesOptions) async throws
    func sendChanges(_ options: PSSyncEngine.SendChangesOptions) async throws
    func cancelOperations() async
}
