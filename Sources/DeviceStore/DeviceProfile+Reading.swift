import PrivateCloud

/// A `device.json`, as ``SimulatedDevice`` writes it (with `JSONEncoder`).
extension DeviceProfile: JSONFile {
    /// Reads a profile, checking every value.
    ///
    /// - Parameter reader: The reader, at the profile's object.
    /// - Returns: The profile.
    /// - Throws: ``JSONReadError`` naming the place of anything wrong.
    package static func read(_ reader: inout JSONReader) throws(JSONReadError) -> DeviceProfile {
        var name: String?
        var account: String?
        var accountStatus: String?
        var build: AppBuild?
        let top = "the top level"
        try reader.object(at: top, keys: ["name", "account", "accountStatus", "build"]) {
            key, reader throws(JSONReadError) in
            switch key {
            case "name": name = try reader.string(at: "name")
            case "account": account = try reader.optionalString(at: "account")
            case "accountStatus": accountStatus = try reader.string(at: "accountStatus")
            default: build = try readBuild(&reader)
            }
        }
        guard let name else { throw reader.missingKey("name", at: top) }
        guard let accountStatus else { throw reader.missingKey("accountStatus", at: top) }
        guard let build else { throw reader.missingKey("build", at: top) }
        // Every value is checked here, once, so that nothing read from the file is used out of range later: an
        // invalid account would otherwise read as signed out, an unknown status as `couldNotDetermine`, and a
        // version of `Int.max` would trap at the next upgrade.
        do {
            try DeviceName.validate(name)
        } catch {
            throw reader.problem("name", "is not a valid device name: \(error.problem)")
        }
        if let account {
            do {
                _ = try AccountID(account)
            } catch {
                throw reader.problem("account", "is not a valid account: \(error.problem)")
            }
        }
        guard let status = AccountStatus(name: accountStatus) else {
            throw reader.problem("accountStatus", "is not an account status: \"\(accountStatus.prefix(40))\"")
        }
        if account == nil && status != .noAccount {
            throw reader.problem("accountStatus", "is \(accountStatus) with no account signed in")
        }
        return DeviceProfile(name: name, account: account, accountStatus: accountStatus, build: build)
    }

    private static func readBuild(_ reader: inout JSONReader) throws(JSONReadError) -> AppBuild {
        var version: Int?
        var services: [String]?
        var identifiers: [String]?
        try reader.object(at: "build", keys: ["version", "iCloudServices", "containerIdentifiers"]) {
            key, reader throws(JSONReadError) in
            switch key {
            case "version": version = try reader.int(at: "build.version")
            case "iCloudServices": services = try reader.strings(at: "build.iCloudServices")
            default: identifiers = try reader.strings(at: "build.containerIdentifiers")
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
