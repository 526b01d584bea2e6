import PrivateCloud
package import PrivateSyncJSON

/// A `device.json`, as ``SimulatedDevice`` writes it (with `JSONEncoder`).
extension DeviceProfile: JSONFile {
    /// Reads a profile, checking every value.
    ///
    /// - Parameter reader: The reader, at the profile's object.
    /// - Returns: The profile.
    /// - Throws: `JSONReadError` naming the place of anything wrong.
    package static func read(_ reader: inout JSONReader) throws(JSONReadError) -> DeviceProfile {
        // Placeholders, each replaced: `object` refuses an object without one of `required`.
        let empty = AppBuild(version: 0, iCloudServices: [], containerIdentifiers: [])
        var profile = DeviceProfile(name: "", account: nil, accountStatus: "", build: empty)
        let keys = ["name", "account", "accountStatus", "build"]
        try reader.object(at: "the top level", keys: keys, required: ["name", "accountStatus", "build"]) {
            key, reader throws(JSONReadError) in
            switch key {
            case "name": profile.name = try reader.string(at: "name")
            case "account": profile.account = try reader.optionalString(at: "account")
            case "accountStatus": profile.accountStatus = try reader.string(at: "accountStatus")
            default: profile.build = try readBuild(&reader)
            }
        }
        // Every value is checked here, once, so that nothing read from the file is used out of range later: an
        // invalid account would otherwise read as signed out, an unknown status as `couldNotDetermine`, and a
        // version of `Int.max` would trap at the next upgrade.
        do {
            try DeviceName.validate(profile.name)
        } catch {
            throw reader.problem("name", "is not a valid device name: \(error.problem)")
        }
        if let account = profile.account {
            do {
                _ = try AccountID(account)
            } catch {
                throw reader.problem("account", "is not a valid account: \(error.problem)")
            }
        }
        guard let status = AccountStatus(name: profile.accountStatus) else {
            throw reader.problem("accountStatus", "is not an account status: \"\(profile.accountStatus.prefix(40))\"")
        }
        if profile.account == nil && status != .noAccount {
            throw reader.problem("accountStatus", "is \(profile.accountStatus) with no account signed in")
        }
        return profile
    }

    private static func readBuild(_ reader: inout JSONReader) throws(JSONReadError) -> AppBuild {
        var build = AppBuild(version: 0, iCloudServices: [], containerIdentifiers: [])
        let required = ["version", "iCloudServices", "containerIdentifiers"]
        // Without the key, a build of the app's own engine: every profile written before the choice existed.
        try reader.object(at: "build", keys: required + ["syncEngine"], required: required) {
            key, reader throws(JSONReadError) in
            switch key {
            case "version": build.version = try reader.int(at: "build.version")
            case "iCloudServices": build.iCloudServices = try reader.strings(at: "build.iCloudServices")
            case "containerIdentifiers":
                build.containerIdentifiers = try reader.strings(at: "build.containerIdentifiers")
            default:
                let name = try reader.string(at: "build.syncEngine")
                guard let engine = AppSyncEngine(rawValue: name) else {
                    throw reader.problem(
                        "build.syncEngine",
                        "is \"\(name.prefix(40))\"; it is one of \(AppSyncEngine.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                build.syncEngine = engine
            }
        }
        guard (1...DeviceProfile.AppBuild.maximumVersion).contains(build.version) else {
            throw reader.problem(
                "build.version",
                "is \(build.version); a build number is from 1 to \(DeviceProfile.AppBuild.maximumVersion)")
        }
        for service in build.iCloudServices where service.isEmpty || service.utf8.count > 64 {
            throw reader.problem("build.iCloudServices", "holds a service name that is empty or too long")
        }
        for identifier in build.containerIdentifiers {
            do {
                _ = try ContainerIdentifier(identifier)
            } catch {
                throw reader.problem("build.containerIdentifiers", "holds an invalid identifier: \(error.problem)")
            }
        }
        return build
    }
}
