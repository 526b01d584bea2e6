public import ContactsSample
public import PrivateSyncEngineTesting

/// A delegate that fronts the sample's: it gets the engine's events and passes them on, changed or not (a test's
/// flawed delegate, a logging layer).
public protocol SweptContactsFront: PSSyncEngineDelegate {
    /// Gives it the sample it fronts, once the sample exists.
    ///
    /// - Parameter contacts: The sample.
    func attach(_ contacts: SyncedDatabase)
}
