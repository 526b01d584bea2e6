/// The records one step of a cycle (a fetched page applied, a send's results applied) settled against the server's
/// version.
///
/// A fetch and a send meet the same three outcomes, and a user must learn of each the same way whichever step met
/// it, so both collect them here and report them through one ``SyncEngine/absorb(_:_:)``.
struct ResolvedRecords: Sendable {
    /// A pending change met an unseen server version (a conflict, whichever side the merge kept).
    var conflicts: [String] = []
    /// The merge of the two versions would exceed CloudKit's record size: the server's was kept.
    var tooLarge: [String] = []
    /// A local save lost to the server's deletion of the record.
    var deleteWins: [String] = []
}
