public import PrivateSyncEngine

/// What the sample keeps on disk: the contacts, the changes the server has not confirmed yet, and the engine's last
/// state, in one JSON file written atomically.
public struct AppData: Codable, Sendable {
    /// The contacts, by identifier.
    public var contacts: [Contact.ID: Contact] = [:]
    /// The changes the server has not confirmed, by contact: what Apple's sample keeps only in the engine's state,
    /// which a crash before the next `stateUpdate` loses (the delegate sweep found it: docs/cksyncengine.md).
    public var unsentChanges: [Contact.ID: UnsentChange] = [:]
    /// The engine's state from its last `stateUpdate`.
    public var stateSerialization: PSSyncEngine.State.Serialization?
    /// The user record name of the account the contacts belong to, from the last account change; `nil` for none
    /// yet (contacts made signed out go to the account signed into next).
    public var accountRecordName: String?
    /// Whether the last news of the contacts' zone was that the user deleted it from iCloud settings (`purged`):
    /// only then may a save refused with `userDeletedZone` create the zone again. A device that has not heard of
    /// the purge yet must not: what it still holds unsent predates the purge (the delegate sweep found it).
    public var zonePurgedByUser = false
    /// The contacts made here whose save never reached the server: never handed to the engine, or every save of
    /// theirs refused. Only these are known not to be on the server; any other may be there (fetched, saved, or
    /// sent with its answer lost to a crash), whatever its system fields say (a reset clears them while other
    /// devices put the contact back). When the user deletes the zone in Settings, these stay and the others go.
    public var neverSent: Set<Contact.ID> = []
    /// The contacts of ``neverSent`` whose first save went to the engine and has had no answer yet.
    public var firstSendUnanswered: Set<Contact.ID> = []
    /// Whether this device created the zone again after it heard of the user's deletion (from a refused save):
    /// the database's list then reports that deletion, and the creation after it, later; that report is old news.
    public var zoneCreatedSinceHeard = false
    /// Whether the last deletion by the user this device heard of came from a refused save (not yet from the
    /// database's list, which will report it).
    public var purgeHeardFromRefusal = false

    /// Creates empty data.
    public init() {}

    /// Reads data written by this version or by the one before it (which had no ``unsentChanges``,
    /// ``accountRecordName``, ``zonePurgedByUser``, ``neverSent``, ``firstSendUnanswered``,
    /// ``zoneCreatedSinceHeard`` nor ``purgeHeardFromRefusal``).
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for data of another shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        contacts = try container.decode([Contact.ID: Contact].self, forKey: .contacts)
        unsentChanges = try container.decodeIfPresent([Contact.ID: UnsentChange].self, forKey: .unsentChanges) ?? [:]
        stateSerialization = try container.decodeIfPresent(
            PSSyncEngine.State.Serialization.self, forKey: .stateSerialization)
        accountRecordName = try container.decodeIfPresent(String.self, forKey: .accountRecordName)
        zonePurgedByUser = try container.decodeIfPresent(Bool.self, forKey: .zonePurgedByUser) ?? false
        neverSent = try container.decodeIfPresent(Set<Contact.ID>.self, forKey: .neverSent) ?? []
        firstSendUnanswered =
            try container.decodeIfPresent(Set<Contact.ID>.self, forKey: .firstSendUnanswered) ?? []
        zoneCreatedSinceHeard = try container.decodeIfPresent(Bool.self, forKey: .zoneCreatedSinceHeard) ?? false
        purgeHeardFromRefusal = try container.decodeIfPresent(Bool.self, forKey: .purgeHeardFromRefusal) ?? false
    }
}
