import PrivateCloud

extension DeviceProfile {
    /// Reads a `device.json` as ``SimulatedDevice`` writes it (with `JSONEncoder`), without `Codable`; see
    /// `JSONReader` for why.
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
        // Every value is checked here, once, so that nothing read from the file is used out of range later: an
        // invalid account would otherwise read as signed out, an unknown status as `couldNotDetermine`, and a
        // version of `Int.max` would trap at the next upgrade.
        do {
            try DeviceName.validate(name)
        } catch {
            throw reader.problem("name", "is not a valid device name: \(error.problem)")
        }
        if let account = account ?? nil {
            do {
                _ = try AccountID(account)
            } catch {
                throw reader.problem("account", "is not a valid account: \(error.problem)")
            }
        }
        guard let status = AccountStatus(name: accountStatus) else {
            throw reader.problem("accountStatus", "is not an account status: \"\(accountStatus.prefix(40))\"")
        }
        if (account ?? nil) == nil && status != .noAccount {
            throw reader.problem("accountStatus", "is \(accountStatus) with no account signed in")
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
        guard (1...DeviceProfile.AppBuild.maximumVersion).contains(version) else {
            throw reader.problem(
                "build.version", "is \(version); a build number is from 1 to \(DeviceProfile.AppBuild.maximumVersion)")
        }
        for service in services where service.isEmpty || service.utf8.count > 64 {
            throw reader.problem("build.iCloudServices", "holds a service name that is empty or too long")
        }
        for identifier in identifiers {
            do {
                _ = try ContainerIdentifier(identifier)
            } catch {
                throw reader.problem("build.containerIdentifiers", "holds an invalid identifier: \(error.problem)")
            }
        }
        return AppBuild(version: version, iCloudServices: services, containerIdentifiers: identifiers)
    }
}
