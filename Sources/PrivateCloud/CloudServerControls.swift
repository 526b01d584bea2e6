/// What CloudKit's servers do on their own, which an app meets only in what its fetches return.
///
/// A fault-injecting wrapper drives these where a fault stands for the server's own behaviour: a change that a
/// fetch did not show yet (eventual consistency) becomes visible later, and the database's list of changed zones
/// then names its zone for every token taken before, as the server's list does.
public protocol CloudServerControls: Sendable {
    /// Names a zone in the database's changes again without changing a record, as the server does when a change of
    /// the zone that a fetch did not show becomes visible: a database change fetch from any token taken before this
    /// call reports the zone as changed, and one from a token taken after does not.
    ///
    /// The zone and its database are those of `token`, the change token of the page that did not show the change:
    /// when the account signed in now has another database (it switched since), or the zone is gone or was created
    /// again since (the change went with it), nothing happens.
    ///
    /// - Parameter token: The change token of the zone's page that did not show the change.
    /// - Throws: ``CloudError``: `invalidArguments` for a token that is not a zone's change token of this container,
    ///   `notAuthenticated` with no account signed in, or the storage's failure (the database could not be written).
    func announceChangesBecameVisible(after token: ChangeToken) async throws(CloudError)
}
