package import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The one merge of the package's engines: the app's own (`SyncEngine`) and the partition mirror over the
// CKSyncEngine-shaped one use it alike.
extension ConflictResolver {
    /// Merges this device's version with the server's by the resolver, keeping the record's own times.
    ///
    /// A merge CloudKit would refuse as too large (each side fits, their union does not) can never upload: the
    /// server's version, which fits and which other devices already have, is kept instead, and the caller reports
    /// it (`mergeTooLarge`), so that devices converge and the user learns which edit was dropped.
    ///
    /// - Parameters:
    ///   - local: This device's version, with changes the server has not accepted.
    ///   - server: The server's version.
    /// - Returns: The record to keep, and whether it is the server's because the merge was too large.
    package func mergeOutcome(local: StoredRecord, server: StoredRecord) -> (record: StoredRecord, tooLarge: Bool) {
        let resolved = resolve(local: local, server: server)
        // The record's times are its own whatever the resolver kept: created when its earliest version was (two
        // devices that created one name agree on it: a merge that keeps an earlier creation than the server's is
        // sent, `matchesForUpload`, so the server and every device end on the earliest), modified at its latest
        // surviving field edit.
        let created = min(local.createdAt, server.createdAt)
        let merged = StoredRecord(
            name: resolved.name, type: resolved.type, fields: resolved.fields, fieldVersions: resolved.fieldVersions,
            origin: resolved.origin, createdAt: created,
            modifiedAt: resolved.fieldVersions.latest.map { Date(timeIntervalSinceReferenceDate: $0) } ?? created)
        if merged.encodedSize > CloudLimits.cloudKit.maximumRecordBytes {
            var kept = server
            kept.modifiedAt =
                server.fieldVersions.latest.map { Date(timeIntervalSinceReferenceDate: $0) } ?? server.createdAt
            return (kept, true)
        }
        return (merged, false)
    }
}
