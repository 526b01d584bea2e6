/// A delegate that fronts an app's own: the engine's events and calls reach it first, and it passes them on, changed
/// or not (a planted flaw, a logging layer). A sweep makes one at each launch of a device and attaches the app's
/// delegate to it once the app exists; the app's engine is configured with the front as its delegate.
public protocol DelegateFront: PSSyncEngineDelegate {
    /// Gives the front the delegate it fronts, once the launch made it.
    ///
    /// - Parameter delegate: The app's delegate.
    func attach(_ delegate: any PSSyncEngineDelegate)
}
