public import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StoredRecord {
    /// The longest device identifier a field version may carry.
    static let deviceIdentifierLimit = 255

    /// Why a time of `seconds` since 2001 cannot be one of a record's times, or `nil`: it must be finite and within
    /// the range every time of a store stays in (about 317 years either side of 2001), which the store's opening
    /// check holds every record to.
    package static func timeProblem(_ seconds: Double) -> String? {
        StoreStateCheck.dateProblem(seconds)
    }

    /// Why this record cannot be stored, or `nil` when it can: every value the store's opening check
    /// (`StoreStateCheck`) will judge, judged the same way now (the record's and the server's times), and the rest a
    /// later read computes with (each field version's time, which becomes the modification time of a merge; each
    /// field value, as a save judges it).
    ///
    /// The store refuses such a record on every write, so no file it writes is ever refused at its next opening;
    /// the sync engine asks first for each record it fetches (other clients write the container too: a web client,
    /// an older build, a hostile one), and leaves a record it cannot store where it is, naming it, instead of
    /// taking the whole device out of service.
    ///
    /// - Parameter serverFields: The server's system fields stored with the record, if any.
    /// - Returns: What is wrong, in words, or `nil`.
    public func storageProblem(serverFields: SystemFields?) -> String? {
        // Every record a pull stores is judged: the common case, a sound one, costs a pass without sorting.
        guard !isStorable(serverFields: serverFields) else { return nil }
        let times: [(String, Date?)] = [
            ("its creation time", createdAt), ("its modification time", modifiedAt),
            ("the server's creation time", serverFields?.creationDate),
            ("the server's modification time", serverFields?.modificationDate),
        ]
        for case (let what, let time?) in times {
            if let problem = Self.timeProblem(time.timeIntervalSinceReferenceDate) { return "\(what) \(problem)" }
        }
        if let problem = Self.problem(in: fieldVersions) { return problem }
        for key in fields.keys.sorted() {
            // A date field may hold any finite date (a birth date in 1900, a date typed as 0001-01-01): only the
            // record's own times are bounded, since the engine computes with them.
            if let problem = fields[key]!.problem { return "\(CloudKitNames.quoted(key)): \(problem)" }
        }
        return nil
    }

    /// How far inside the range a fetched field version must be: an edit of the field supersedes it by a
    /// millisecond (``FieldVersion/edit(at:by:superseding:)``), so a version stamped just inside the range (by another
    /// client) would make every later edit of the field fall outside it, and the field uneditable. A year of room.
    package static let fetchedVersionMargin: Double = 366 * 86_400

    /// Why one of a record's field versions cannot be stored (a time out of range, a device identifier over 255
    /// bytes), or `nil`.
    ///
    /// - Parameters:
    ///   - fieldVersions: The versions.
    ///   - margin: How far inside the range each time must be (``fetchedVersionMargin`` for a fetched record).
    package static func problem(in fieldVersions: FieldVersions, margin: Double = 0) -> String? {
        for key in fieldVersions.versions.keys.sorted() {
            let version = fieldVersions.versions[key]!
            if let problem = timeProblem(version.time) {
                return "the version of \(CloudKitNames.quoted(key)) \(problem)"
            }
            if abs(version.time) > StoreStateCheck.dateLimit - margin {
                return "the version of \(CloudKitNames.quoted(key)) is \(version.time) seconds since 2001, too near "
                    + "the end of the range for an edit to follow it"
            }
            if version.device.utf8.count > deviceIdentifierLimit {
                return "the version of \(CloudKitNames.quoted(key)) names a device of more than "
                    + "\(deviceIdentifierLimit) bytes"
            }
        }
        return nil
    }

    /// Whether ``storageProblem(serverFields:)`` finds nothing, judged without building its message.
    private func isStorable(serverFields: SystemFields?) -> Bool {
        func inRange(_ seconds: Double) -> Bool { Self.timeProblem(seconds) == nil }
        guard inRange(createdAt.timeIntervalSinceReferenceDate), inRange(modifiedAt.timeIntervalSinceReferenceDate)
        else { return false }
        if let serverFields {
            guard inRange(serverFields.creationDate.timeIntervalSinceReferenceDate),
                inRange(serverFields.modificationDate.timeIntervalSinceReferenceDate)
            else { return false }
        }
        for version in fieldVersions.versions.values {
            guard inRange(version.time), version.device.utf8.count <= Self.deviceIdentifierLimit else { return false }
        }
        return fields.values.allSatisfy { $0.problem == nil }
    }
}
