public import DeviceStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decides what a record becomes when this device changed it and the server has a version it has not seen.
///
/// The engine always merges INTO the server's version (its change tag is the only current one); a resolver only
/// decides the fields. Replace ``FieldLevelLastWriterWins`` with your own to test another policy.
public protocol ConflictResolver: Sendable {
    /// Merges two versions of one record.
    ///
    /// - Parameters:
    ///   - local: This device's version, with changes not yet accepted by the server.
    ///   - server: The server's version.
    /// - Returns: The fields and field versions to keep (name, type, origin and creation date are the local ones).
    func resolve(local: StoredRecord, server: StoredRecord) -> StoredRecord
}

/// Per field, the last writer wins: each field takes the value of the side that wrote it last, by the field's
/// version (write time, then device identifier to break ties, so every device picks the same winner). A field one
/// side cleared is a write like any other: a later clear beats an earlier value.
public struct FieldLevelLastWriterWins: ConflictResolver {
    /// The resolver the engine uses unless told otherwise.
    public init() {}

    public func resolve(local: StoredRecord, server: StoredRecord) -> StoredRecord {
        var merged = local
        let keys = Set(local.fieldVersions.versions.keys).union(server.fieldVersions.versions.keys)
            .union(local.fields.keys).union(server.fields.keys)
        for key in keys {
            let localVersion = local.fieldVersions[key]
            let serverVersion = server.fieldVersions[key]
            let serverWins: Bool =
                switch (localVersion, serverVersion) {
                case (nil, _): true
                case (_?, nil): false
                case (let l?, let s?): s >= l
                }
            if serverWins {
                merged.fields[key] = server.fields[key]
                merged.fieldVersions[key] = serverVersion
            }
        }
        merged.modifiedAt =
            merged.fieldVersions.latest.map { Date(timeIntervalSinceReferenceDate: $0) }
            ?? max(local.modifiedAt, server.modifiedAt)
        return merged
    }
}
