extension MirrorBookkeeping {
    /// Forgets what was known of a record's first save, as its record is deleted here: a record made later under its
    /// name is a new one, never sent, which a fetched deletion of the old one leaves alone.
    ///
    /// - Parameter name: The deleted record's name.
    /// - Returns: Whether anything changed (the bookkeeping then needs writing).
    mutating func forgetFirstSave(of name: String) -> Bool {
        let wasUnanswered = firstSendUnanswered.remove(name) != nil
        let wasUntagged = untaggedMayBeOnServer.remove(name) != nil
        firstSendMayHaveLanded.remove(name)
        return wasUnanswered || wasUntagged
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
