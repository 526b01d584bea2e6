extension MirrorBookkeeping {
    /// Forgets what was known of the first saves of records deleted here: a record made later under one of their
    /// names is a new one, never sent, which a fetched deletion of the old one leaves alone.
    ///
    /// - Parameter names: The deleted records' names.
    mutating func forgetFirstSaves(of names: Set<String>) {
        firstSendUnanswered.subtract(names)
        untaggedMayBeOnServer.subtract(names)
        firstSendMayHaveLanded.subtract(names)
    }

    /// Whether the bookkeeping counts the record among those that may be on the server although it carries no change
    /// tag (``firstSendUnanswered``, ``untaggedMayBeOnServer``): what its deletion here must make it forget.
    ///
    /// - Parameter name: The record's name.
    /// - Returns: Whether it does.
    func mayBeOnServer(_ name: String) -> Bool {
        firstSendUnanswered.contains(name) || untaggedMayBeOnServer.contains(name)
    }
}
