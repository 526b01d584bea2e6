import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension LaunchRecord {
    /// Reads a `last-launch.json` as ``LaunchRecord/save(appGroup:)`` writes it (with `JSONEncoder`, dates as
    /// seconds since 2001), without `Codable`; see ``JSONReader`` for why.
    ///
    /// - Parameter json: The file's bytes.
    /// - Returns: The record.
    /// - Throws: ``JSONReadError`` naming the place of anything wrong.
    static func read(json: [UInt8]) throws(JSONReadError) -> LaunchRecord {
        try JSONReader.read(json) { (reader: inout JSONReader) throws(JSONReadError) in try read(&reader) }
    }

    private static func read(_ reader: inout JSONReader) throws(JSONReadError) -> LaunchRecord {
        var launchedAt: Double?
        var syncWanted: Bool?
        var store: StoreMode?
        var identifier: String?
        var fallbackReason: PauseReason??
        var fallbackDetail: String??
        var skippedDirectoryFix: Bool?
        var skippedEntitlementCheck: Bool?
        var steps: [LaunchStep]?
        var first = true
        let top = "the top level"
        try reader.beginObject(at: top)
        while let key = try reader.nextKey(&first, at: top) {
            switch key {
            case "launchedAt" where launchedAt == nil: launchedAt = try reader.double(at: "launchedAt")
            case "syncWanted" where syncWanted == nil: syncWanted = try reader.bool(at: "syncWanted")
            case "userCreatedStore" where store == nil:
                let text = try reader.string(at: "userCreatedStore")
                guard let mode = StoreMode(rawValue: text) else {
                    throw reader.problem("userCreatedStore", "should be \"cloud\" or \"local\", not \"\(text)\"")
                }
                store = mode
            case "containerIdentifier" where identifier == nil:
                identifier = try reader.string(at: "containerIdentifier")
            case "fallbackReason" where fallbackReason == nil:
                let text = try reader.optionalString(at: "fallbackReason")
                guard let text else {
                    fallbackReason = .some(nil)
                    continue
                }
                guard let reason = PauseReason(rawValue: text) else {
                    throw reader.problem("fallbackReason", "is not a pause reason: \"\(text)\"")
                }
                fallbackReason = reason
            case "fallbackDetail" where fallbackDetail == nil:
                fallbackDetail = .some(try reader.optionalString(at: "fallbackDetail"))
            case "skippedDirectoryFix" where skippedDirectoryFix == nil:
                skippedDirectoryFix = try reader.bool(at: "skippedDirectoryFix")
            case "skippedEntitlementCheck" where skippedEntitlementCheck == nil:
                skippedEntitlementCheck = try reader.bool(at: "skippedEntitlementCheck")
            case "steps" where steps == nil:
                var list: [LaunchStep] = []
                var firstStep = true
                try reader.beginArray(at: "steps")
                while try reader.nextElement(&firstStep, at: "steps") {
                    list.append(try LaunchStep.read(&reader, at: "steps[\(list.count)]"))
                }
                steps = list
            case "launchedAt", "syncWanted", "userCreatedStore", "containerIdentifier", "fallbackReason",
                "fallbackDetail", "skippedDirectoryFix", "skippedEntitlementCheck", "steps":
                throw reader.repeatedKey(key, at: top)
            default: throw reader.unknownKey(key, at: top)
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
            userCreatedStore: store, containerIdentifier: identifier, fallbackReason: fallbackReason ?? nil,
            fallbackDetail: fallbackDetail ?? nil, skippedDirectoryFix: skippedDirectoryFix,
            skippedEntitlementCheck: skippedEntitlementCheck, steps: steps)
    }
}
