import PrivateCloud
package import PrivateSyncJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A `last-launch.json`, as ``LaunchRecord/save(appGroup:)`` writes it (with `JSONEncoder`, dates as seconds since
/// 2001).
extension LaunchRecord: JSONFile {
    /// Reads a launch record, checking every value.
    ///
    /// - Parameter reader: The reader, at the record's object.
    /// - Returns: The record.
    /// - Throws: `JSONReadError` naming the place of anything wrong.
    package static func read(_ reader: inout JSONReader) throws(JSONReadError) -> LaunchRecord {
        // Placeholders, each replaced: `object` refuses an object without one of `required`. The date is kept as
        // read, in seconds, until it is checked.
        var record = LaunchRecord(
            launchedAt: Date(timeIntervalSinceReferenceDate: 0), syncWanted: false, userCreatedStore: .local,
            containerIdentifier: "", fallbackReason: nil, fallbackDetail: nil, skippedDirectoryFix: false,
            skippedEntitlementCheck: false, steps: [])
        var launchedAt = 0.0
        let keys = [
            "launchedAt", "syncWanted", "userCreatedStore", "containerIdentifier", "fallbackReason", "fallbackDetail",
            "skippedDirectoryFix", "skippedEntitlementCheck", "steps",
        ]
        let required = [
            "launchedAt", "syncWanted", "userCreatedStore", "containerIdentifier", "skippedDirectoryFix",
            "skippedEntitlementCheck", "steps",
        ]
        try reader.object(at: "the top level", keys: keys, required: required) { key, reader throws(JSONReadError) in
            switch key {
            case "launchedAt": launchedAt = try reader.double(at: "launchedAt")
            case "syncWanted": record.syncWanted = try reader.bool(at: "syncWanted")
            case "userCreatedStore":
                let text = try reader.string(at: "userCreatedStore")
                guard let mode = StoreMode(rawValue: text) else {
                    throw reader.problem("userCreatedStore", "should be \"cloud\" or \"local\", not \"\(text)\"")
                }
                record.userCreatedStore = mode
            case "containerIdentifier": record.containerIdentifier = try reader.string(at: "containerIdentifier")
            case "fallbackReason":
                guard let text = try reader.optionalString(at: "fallbackReason") else { return }
                guard let reason = PauseReason(rawValue: text) else {
                    throw reader.problem("fallbackReason", "is not a pause reason: \"\(text)\"")
                }
                record.fallbackReason = reason
            case "fallbackDetail": record.fallbackDetail = try reader.optionalString(at: "fallbackDetail")
            case "skippedDirectoryFix": record.skippedDirectoryFix = try reader.bool(at: "skippedDirectoryFix")
            case "skippedEntitlementCheck":
                record.skippedEntitlementCheck = try reader.bool(at: "skippedEntitlementCheck")
            default:
                record.steps = try reader.array(at: "steps") { index, reader throws(JSONReadError) in
                    try LaunchStep.read(&reader, at: "steps[\(index)]")
                }
            }
        }
        // Checked here so that no date arithmetic or formatting later meets a value out of range.
        guard launchedAt.isFinite, abs(launchedAt) <= 1e10 else {
            throw reader.problem("launchedAt", "is \(launchedAt) seconds since 2001, out of range")
        }
        do {
            _ = try ContainerIdentifier(record.containerIdentifier)
        } catch {
            throw reader.problem("containerIdentifier", "is not a container identifier: \(error.problem)")
        }
        record.launchedAt = Date(timeIntervalSinceReferenceDate: launchedAt)
        return record
    }
}
