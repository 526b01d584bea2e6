/// What CloudKit's servers do on their own, which an app meets only in what its fetches return.
///
/// A fault-injecting wrapper drives these where a fault stands for the server's own behaviour: a change that a
/// fetch did not show yet (eventual consistency) becomes visible later, and the database's list of changed zones
/// then names its zone for every token taken before, as the server's list does.
public protocol CloudServerControls: Sendable {
    /// Names a zone in the database's changes again without changing a record: a database change fetch from any
    /// token taken before this call reports the zone as changed, and one from a token taken after does not.
    ///
    /// It acts on the signed-in account whatever its status, as the server acts on the database that holds the
    /// change.
    ///
    /// - Parameter zoneID: A custom zone.
    /// - Throws: ``CloudError``: `zoneNotFound` (or `userDeletedZone`) when the zone is gone, which takes its
    ///   changes along; `invalidArguments` for the default zone, which has no change history;
    ///   `notAuthenticated` with no account signed in.
    func announceChangesBecameVisible(in zoneID: ZoneID) async throws(CloudError)
}
