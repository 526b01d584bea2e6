/// The engine `privatesync simulate` sweeps the demo app through (`--engine`).
enum SimulatedEngine: String, Sendable, Hashable, CaseIterable {
    /// The app's own sync engine, under the simulator (docs/simulator.md): the default.
    case app
    /// The app's user-created store mirrored through the CKSyncEngine-shaped engine (`PartitionMirror`), under the
    /// delegate sweep.
    case cksyncengine
}
