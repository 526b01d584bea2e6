extension SyncStateValue {
    /// A set of record names as the store keeps it under a key of the text shape (`creations_in_flight`,
    /// `deletions_unrecorded`): each name followed by a newline, sorted, so that one set always reads as one text (a
    /// CloudKit record name holds no newline).
    ///
    /// - Parameter names: The names.
    /// - Returns: The value, or `nil` for no names (the key's row is removed).
    package static func nameList(_ names: Set<String>) -> SyncStateValue? {
        names.isEmpty ? nil : .text(names.sorted().map { $0 + "\n" }.joined())
    }

    /// The names a value written by ``nameList(_:)`` holds.
    ///
    /// - Parameter text: The stored text.
    /// - Returns: The names.
    package static func names(inList text: String) -> Set<String> {
        Set(text.split(separator: "\n").map(String.init))
    }
}
