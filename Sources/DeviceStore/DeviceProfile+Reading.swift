import PrivateCloud

extension DeviceProfile {
    /// Reads a `device.json` as ``SimulatedDevice`` writes it (with `JSONEncoder`), without `Codable`; see
    /// ``JSONReader`` for why.
    ///
    /// - Parameter json: The file's bytes.
    /// - Returns: The profile.
    /// - Throws: ``JSONReadError`` naming the place of anything wrong: a missing, repeated or unknown key, or a
    ///   value of the wrong kind.
    static func read(json: [UInt8]) throws(JSONReadError) -> DeviceProfile {
        try JSONReader.read(json) { (reader: inout JSONReader) throws(JSONReadError) in try read(&reader) }
    }

    private static func read(_ reader: inout JSONReader) throws(JSONReadError) -> DeviceProfile {
        var name: String?
        var account: String??
        var accountStatus: String?
        var build: AppBuild?
        var first = true
        try reader.beginObject(at: "the top level")
        while let key = try reader.nextKey(&first, at: "the top level") {
            switch key {
            case "name" where name == nil: name = try reader.string(at: "name")
            case "account" where account == nil: account = .some(try reader.optionalString(at: "account"))
            case "accountStatus" where accountStatus == nil: accountStatus = try reader.string(at: "accountStatus")
            case "build" where build == nil: build = try readBuild(&reader)
            case "name", "account", "accountStatus", "build": throw reader.repeatedKey(key, at: "the top level")
            default: throw reader.unknownKey(key, at: "the top level")
            }
        }
        guard let name else { throw reader.missingKey("name", at: "the top level") }
        guard let accountStatus else { throw reader.missingKey("accountStatus", at: "the top level") }
        guard let build else { throw reader.missingKey("build", at: "the top level") }
        // An account name that is not one would read as signed out (``DeviceProfile/accountID``): a damaged file.
        if case .some(.some(let name)) = account {
            do {
                _ = try AccountID(name)
            } catch {
                throw reader.problem("the key \"account\"", "is not a valid account name: \(error.problem)")
            }
        }
        return DeviceProfile(name: name, account: account ?? nil, accountStatus: accountStatus, build: build)
    }

    private static func readBuild(_ reader: inout JSONReader) throws(JSONReadError) -> AppBuild {
        var version: Int?
        var services: [String]?
        var identifiers: [String]?
        var first = true
        try reader.beginObject(at: "build")
        while let key = try reader.nextKey(&first, at: "build") {
            switch key {
            case "version" where version == nil: version = try reader.int(at: "build.version")
            case "iCloudServices" where services == nil: services = try reader.strings(at: "build.iCloudServices")
            case "containerIdentifiers" where identifiers == nil:
                identifiers = try reader.strings(at: "build.containerIdentifiers")
            case "version", "iCloudServices", "containerIdentifiers": throw reader.repeatedKey(key, at: "build")
            default: throw reader.unknownKey(key, at: "build")
            }
        }
        guard let version else { throw reader.missingKey("version", at: "build") }
        guard let services else { throw reader.missingKey("iCloudServices", at: "build") }
        guard let identifiers else { throw reader.missingKey("containerIdentifiers", at: "build") }
        return AppBuild(version: version, iCloudServices: services, containerIdentifiers: identifiers)
    }
}
