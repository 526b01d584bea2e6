extension PSError {
    /// The error a container error stands for: the same code, the same words, the wait, and the conflict's records
    /// and the per-item errors in this module's types.
    ///
    /// - Parameter error: What the container threw or returned for an item.
    package init(_ error: CloudError) {
        var info: [String: any Sendable] = [localizedDescriptionKey: error.message]
        if let retryAfter = error.retryAfter { info[PSErrorRetryAfterKey] = retryAfter }
        if let server = error.serverRecord { info[PSRecordChangedErrorServerRecordKey] = PSRecord(server) }
        if let client = error.clientRecord { info[PSRecordChangedErrorClientRecordKey] = PSRecord(client) }
        if let ancestor = error.ancestorRecord { info[PSRecordChangedErrorAncestorRecordKey] = PSRecord(ancestor) }
        if !error.partialErrors.isEmpty {
            var items = ItemErrors()
            for (item, itemError) in error.partialErrors {
                switch item {
                case .record(let id): items.records[PSRecord.ID(id)] = PSError(itemError)
                case .zone(let id): items.zones[PSRecordZone.ID(id)] = PSError(itemError)
                }
            }
            info[PSPartialErrorsByItemIDKey] = items
        }
        self.init(error.code, userInfo: info)
    }

    /// An error with a code and words only.
    ///
    /// - Parameters:
    ///   - code: The code.
    ///   - message: What went wrong, and where.
    package init(_ code: Code, _ message: String) {
        self.init(code, userInfo: [localizedDescriptionKey: message])
    }
}
