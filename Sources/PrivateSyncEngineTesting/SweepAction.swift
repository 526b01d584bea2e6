/// Something a user does in a team's app, for a ``DelegateSweep`` to do at random: add a contact, rename one,
/// delete one.
public struct SweepAction<App: SweptApp>: Sendable {
    /// The action's name, in the sweep's timeline.
    public let name: String
    /// How often it is drawn, against the other actions' weights.
    public let weight: Int
    /// Does it on one device's app, with the sweep's random numbers (for names and contents: never the system's),
    /// and says what the user wrote: the app acknowledged those writes once this returns.
    public let perform: @Sendable (App, inout SweepRandom) async throws -> [SweepWrite]

    /// Creates an action.
    ///
    /// - Parameters:
    ///   - name: Its name, in the timeline.
    ///   - weight: How often it is drawn; 1 by default.
    ///   - perform: Does it, and returns what it wrote (nothing, when it found nothing to do).
    public init(
        _ name: String, weight: Int = 1,
        perform: @escaping @Sendable (App, inout SweepRandom) async throws -> [SweepWrite]
    ) {
        self.name = name
        self.weight = max(1, weight)
        self.perform = perform
    }
}

/// What a user's action wrote: an item's new content, or its deletion.
public struct SweepWrite: Sendable, Hashable, CustomStringConvertible {
    /// The item, as the app's snapshot names it.
    public let key: String
    /// Its new content, or `nil` for a deletion.
    public let value: String?

    /// Creates a write.
    ///
    /// - Parameters:
    ///   - key: The item.
    ///   - value: Its new content, or `nil` for a deletion.
    public init(key: String, value: String?) {
        self.key = key
        self.value = value
    }

    /// `key = value`, or `key deleted`.
    public var description: String { value.map { "\(key) = \($0)" } ?? "\(key) deleted" }
}
