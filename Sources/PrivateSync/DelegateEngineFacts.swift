public import DeviceSimulation
public import DeviceStore

/// Where the engine's part of a status's facts comes from on a build whose store CKSyncEngine syncs
/// (`AppSyncEngine.cksyncengine`): the app's own engine keeps its facts in the store (``EngineState``), a delegate
/// of CKSyncEngine keeps its own beside it. The launch's part (the switch, the fallback, the account's status) is the
/// launch sequence's either way: both engines run behind the same launch.
public protocol DelegateEngineFacts: Sendable {
    /// Puts the delegate's facts into `facts`: the account it last heard of and the one the data belongs to, a pause
    /// of its own, its last attempt's outcome, whether the first download is done, and the changes waiting.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - store: Its user-created store.
    ///   - facts: The facts the launch gives, the engine's part to be replaced.
    /// - Throws: `StoreError` when the store or the delegate's own files cannot be read.
    func readEngineFacts(
        of device: SimulatedDevice, store: RecordStore<UserCreated>, into facts: inout SyncFacts
    ) throws(StoreError)
}
