#if canImport(CloudKit)
    import CloudKit

    extension PSError {
        /// The error a CloudKit error stands for: the same code, the same words, the wait, the conflict's records
        /// and the per-item errors, in PrivateSync's types. Any other error is an `internalError` naming it.
        ///
        /// - Parameter error: What CloudKit threw.
        init(cloudKit error: any Error) {
            if let error = error as? PSError {
                self = error
                return
            }
            guard let error = error as? CKError else {
                self.init(.internalError, "CloudKit failed: \(error)")
                return
            }
            var info: [String: any Sendable] = [localizedDescriptionKey: error.localizedDescription]
            if let wait = error.retryAfterSeconds { info[PSErrorRetryAfterKey] = wait }
            if let record = error.serverRecord {
                info[PSRecordChangedErrorServerRecordKey] = PSRecord(cloudKit: record)
            }
            if let record = error.clientRecord {
                info[PSRecordChangedErrorClientRecordKey] = PSRecord(cloudKit: record)
            }
            if let record = error.ancestorRecord {
                info[PSRecordChangedErrorAncestorRecordKey] = PSRecord(cloudKit: record)
            }
            if let partial = error.partialErrorsByItemID {
                var items = ItemErrors()
                for (key, itemError) in partial {
                    if let id = key.base as? CKRecord.ID {
                        items.records[PSRecord.ID(cloudKit: id)] = PSError(cloudKit: itemError)
                    } else if let id = key.base as? CKRecordZone.ID {
                        items.zones[PSRecordZone.ID(cloudKit: id)] = PSError(cloudKit: itemError)
                    }
                }
                info[PSPartialErrorsByItemIDKey] = items
            }
            self.init(Code(rawValue: error.code.rawValue) ?? .internalError, userInfo: info)
        }
    }
#endif
