import PrivateCloud

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
        var launchedAt: Double?
        var syncWanted: Bool?
        var store: StoreMode?
        var identifier: String?
        var fallbackReason: PauseReason?
        var fallbackDetail: String?
        var skippedDirectoryFix: Bool?
        var skippedEntitlementCheck: Bool?
        var steps: [LaunchStep]?
        let top = "the top level"
        let keys = [
            "launchedAt", "syncWanted", "userCreatedStore", "containerIdentifier", "fallbackReason", "fallbackDetail",
            "skippedDirectoryFix", "skippedEntitlementCheck", "steps",
        ]
        try reader.object(at: top, keys: keys) { key, reader throws(JSONReadError) in
            switch key {
            case "launchedAt": launchedAt = try reader.double(at: "launchedAt")
            case "syncWanted": syncWanted = try reader.bool(at: "syncWanted")
            case "userCreatedStore":
                let text = try reader.string(at: "userCreatedStore")
                guard let mode = StoreMode(rawValue: text) else {
                    throw reader.problem("userCreatedStore", "should be \"cloud\" or \"local\", not \"\(text)\"")
                }
                store = mode
            case "containerIdentifier": identifier = try reader.string(at: "containerIdentifier")
            case "fallbackReason":
                guard let text = try reader.optionalString(at: "fallbackReason") else { return }
                guard let reason = PauseReason(rawValue: text) else {
                    throw reader.problem("fallbackReason", "is not a pause reason: \"\(text)\"")
                }
                fallbackReason = reason
            case "fallbackDetail": fallbackDetail = try reader.optionalString(at: "fallbackDetail")
            case "skippedDirectoryFix": skippedDirectoryFix = try reader.bool(at: "skippedDirectoryFix")
            case "skippedEntitlementCheck": skippedEntitlementCheck = try reader.bool(at: "skippedEntitlementCheck")
            default:
                steps = try reader.array(at: "steps") { index, reader throws(JSONReadError) in
                    try LaunchStep.read(&reader, at: "steps[\(index)]")
                }
            }
        }
        guard let launchedAt else { throw reader.missingKey("launchedAt", at: top) }
        guard let syncWanted else { throw reader.missingKey("syncWanted", at: top) }
        guard let store else { throw reader.missingKey("userCreatedStore", at: top) }
        guard let identifier else { throw reader.missingKey("containerIdentifier", at: top) }
        guard let skippedDirectoryFix else { throw reader.missingKey("skippedDirectoryFix", at: top) }
        guard let skippedEntitlementCheck else { throw reader.missingKey("skippedEntitlementCheck", at: top) }
        guard let steps else { throw reader.missingKey("steps", at: top) }
        // Checked here so that no date arithmetic or formatting later meets a value out of range.
        guard launchedAt.isFinite, abs(launchedAt) <= 1e10 else {
            throw reader.problem("launchedAt", "is \(launchedAt) seconds since 2001, out of range")
        }
        do {
            _ = try ContainerIdentifier(identifier)
        } catch {
            throw reader.problem("containerIdentifier", "is not a container identifier: \(error.problem)")
        }
        return LaunchRecord(
            launchedAt: Date(timeIntervalSinceReferenceDate: launchedAt), syncWanted: syncWanted,
            userCreatedStore: store, containerIdentifier: identifier, fallbackReason: fallbackReason,
            fallbackDetail: fallbackDetail, skippedDirectoryFix: skippedDirectoryFix,
            skippedEntitlementCheck: skippedEntitlementCheck, steps: steps)
    }
}
