public import PrivateSyncEngine

/// Everything the sample app keeps: its contacts and the engine's last state, saved as one JSON file.
public struct AppData: Codable, Sendable {
    /// The contacts, by identifier.
    public var contacts: [Contact.ID: Contact] = [:]
    /// The state of the last `stateUpdate` event.
    public var stateSerialization: PSSyncEngine.State.Serialization?

    /// No contacts and no state.
    public init() {}
}
