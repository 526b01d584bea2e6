/// A record fetched with a value this device could not take: its name, what was wrong and what was done, and
/// whether it was stored (its reserved values set aside) or left on the server.
struct FetchedRecordProblem: Sendable {
    /// The record's name.
    let name: String
    /// What was wrong, and what was done, as the status names it.
    let problem: String
    /// Whether the record was stored (read as another client's, its reserved values set aside).
    let stored: Bool
}
