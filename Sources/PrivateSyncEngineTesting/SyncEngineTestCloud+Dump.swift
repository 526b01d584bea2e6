#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SyncEngineTestCloud {
    /// Every record of an account's database, as the server holds them, sorted by zone and name.
    ///
    /// - Parameter account: The account.
    /// - Returns: The records (new objects); none for an account that never used the container.
    /// - Throws: `IdentifierError` for an invalid account; for files, `DatabaseFileError` for a damaged file.
    public func records(of account: String) throws -> [PSRecord] {
        let id = try AccountID(account)
        let records: [Record]
        switch storage {
        case .memory:
            records = memory.records(account: id, container: containerIdentifier)
        case .files(let folder):
            let path = FileContainer.databasePath(cloudRoot: folder, account: id, identifier: containerIdentifier)
            // An account that never used the container has no file (and reading one never creates it).
            records = FileManager.default.fileExists(atPath: path) ? try ContainerFile.read(path).records : []
        }
        return records.sorted { $0.recordID < $1.recordID }.map(PSRecord.init)
    }

    /// A text listing of an account's database for snapshot assertions: each zone, then each record's type, name
    /// and fields, sorted, without system fields (change tags and dates), so that it reads the same on every run.
    ///
    /// ```
    /// alice · iCloud.com.example.app
    /// zone Contacts
    ///   Contact 1F3A… {name: "Ann", userModificationDate: date(788918400.0)}
    /// ```
    ///
    /// - Parameter account: The account.
    /// - Returns: The listing; the zones that exist, even empty, come from the database itself.
    /// - Throws: `PSError` when the zones cannot be read; `IdentifierError`; `DatabaseFileError`.
    public func dump(of account: String) async throws -> String {
        let zones = try await PSDatabase(
            container: baseContainer(session: AccountSession(account: try AccountID(account)))
        ).allRecordZones().map(\.zoneID)
        let records = try records(of: account)
        var lines = ["\(account) · \(containerIdentifier)"]
        for zone in zones {
            let inZone = records.filter { $0.recordID.zoneID == zone }
            if zone == .default && inZone.isEmpty { continue }
            lines.append("zone \(zone.zoneName)")
            for record in inZone {
                let fields = record.containerRecord.fields
                let body = fields.keys.sorted().map { "\($0): \(fields[$0]!)" }.joined(separator: ", ")
                lines.append("  \(record.recordType) \(record.recordID.recordName) {\(body)}")
            }
        }
        return lines.joined(separator: "\n")
    }
}
