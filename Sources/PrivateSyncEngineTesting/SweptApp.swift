/// A team's app on one device of a ``DelegateSweep``: its sync delegate, its data, and the engine it made.
///
/// The sweep builds one from a ``SweepDevice`` at every launch (the first, and after each crash): the app reads what
/// it persisted in the device's folder, makes its `PSSyncEngine` from the state serialization it kept, over the
/// device's database and scheduler, and goes on. The sweep drives the engine it hands back, and reads what the user
/// would see.
public protocol SweptApp: AnyObject, Sendable {
    /// The engine the app syncs with. The app may make a new one (Apple's sample does after a sign-out); the sweep
    /// reads this each time it syncs.
    var syncEngine: PSSyncEngine { get async }

    /// What the user sees on this device: an entry per item (its record name, say) and its content as text.
    ///
    /// - Returns: The items; the sweep compares them with ``DelegateSweep``'s server snapshot of the account.
    func snapshot() async -> [String: String]
}
