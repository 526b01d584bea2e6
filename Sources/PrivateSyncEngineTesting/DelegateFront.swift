/// A delegate that fronts an app's own: the engine's events and calls reach it first, and it passes them on, changed
/// or not (a planted flaw, a logging layer). A sweep's `makeApp` makes one at each launch of a device, builds the app
/// with the front as its engine's delegate, and attaches the app's delegate to it. A front holds the delegate it
/// fronts weakly: the app holds both.
public protocol DelegateFront: PSSyncEngineDelegate {
    /// Gives the front the delegate it fronts, once the launch made it.
    ///
    /// - Parameter delegate: The app's delegate.
    func attach(_ delegate: any PSSyncEngineDelegate)
}
