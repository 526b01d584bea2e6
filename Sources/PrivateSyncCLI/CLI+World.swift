import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CLI {
    func initWorld() throws -> ExitCode {
        let identifier =
            try command.option("container").map { try ContainerIdentifier($0) } ?? World.demoContainerIdentifier
        try HomePath.checkLength(of: home, identifier: identifier)
        let partition = try command.option("schema").map(schema(fromFile:)) ?? .demoHealth
        let world = try World.create(at: home, partition: partition, containerIdentifier: identifier)
        Terminal.line("Created a world at \(world.home)")
        Terminal.line(
            "  schema: \(partition.schema.name) (\(partition.userCreatedTypes.count) user-created types, "
                + "\(partition.localOnlyTypes.count) local-only)")
        Terminal.line("  container: \(identifier)")
        return .success
    }

    /// The most bytes a schema file may hold: far more than any schema of CloudKit's limits needs, and a bound on
    /// what `--schema /dev/zero` costs.
    static let schemaFileLimit = 4 * 1024 * 1024

    /// Reads a schema file, at most ``schemaFileLimit`` bytes of it.
    private func schema(fromFile path: String) throws -> SyncPartition {
        let shown = TextEscaping.escape(path.prefix(200))
        let bytes: [UInt8]
        do {
            bytes = try BoundedFileRead.read(path, limit: Self.schemaFileLimit)
        } catch {
            switch error.code {
            case .notFound: throw CLIError(.noInput, "the schema file \(shown) does not exist")
            case .isFolder: throw CLIError(.dataError, "the schema file \(shown) is a folder")
            case .tooLarge:
                throw CLIError(
                    .dataError,
                    "the schema file \(shown) is larger than \(Self.schemaFileLimit) bytes; it is not a schema")
            case .unreadable: throw CLIError(.ioError, "cannot read the schema file \(shown): \(error.reason)")
            }
        }
        return try SyncPartition.decode(json: bytes, source: path)
    }

    func deviceAdd() throws -> ExitCode {
        let world = try world()
        let name = command.arguments[0]
        let account = try account(command.option("account"))
        let device = try world.addDevice(
            name, account: account, syncPreference: onOff("sync"), entitlement: !command.flag("no-entitlement"))
        Terminal.line(
            "Installed the app on \(device.name): "
                + "\(account.map { "signed into \($0)" } ?? "no iCloud account"), sync \(command.option("sync") ?? "never set"), "
                + "\(command.flag("no-entitlement") ? "a build WITHOUT the iCloud entitlement" : "with the iCloud entitlement")"
        )
        return .success
    }

    private struct DeviceJSON: Encodable {
        let name: String
        let account: String?
        let accountStatus: String
        let buildVersion: Int
        let entitlement: Bool
        let syncPreference: Bool
        let launched: Bool
        let userCreatedStore: String?
    }

    func deviceList() throws -> ExitCode {
        let world = try world()
        var devices: [DeviceJSON] = []
        for name in try world.deviceNames() {
            let device = try world.device(name)
            let launch = try LaunchRecord.load(appGroup: device.appGroup.path)
            devices.append(
                DeviceJSON(
                    name: name, account: device.profile.account, accountStatus: device.session.status.name,
                    buildVersion: device.profile.build.version,
                    entitlement: device.entitlements.permits(world.containerIdentifier),
                    syncPreference: try device.syncPreference(), launched: launch != nil,
                    userCreatedStore: launch?.userCreatedStore.rawValue))
        }
        if json {
            struct List: Encodable { let devices: [DeviceJSON] }
            Terminal.json(List(devices: devices))
        } else if devices.isEmpty {
            Terminal.line("No devices. Add one with: privatesync device add NAME --account ID --sync on")
        } else {
            Terminal.table(
                [["DEVICE", "ACCOUNT", "STATUS", "BUILD", "ENTITLEMENT", "SYNC", "STORE"]]
                    + devices.map {
                        [
                            $0.name, $0.account ?? "-", $0.accountStatus, "\($0.buildVersion)",
                            $0.entitlement ? "yes" : "no",
                            $0.syncPreference ? "on" : "off", $0.userCreatedStore ?? "never launched",
                        ]
                    })
        }
        return .success
    }

    func deviceReinstall() throws -> ExitCode {
        let world = try world()
        let device = try world.device(command.arguments[0])
        try device.reinstall(syncPreference: onOff("sync"))
        Terminal.line(
            "Reinstalled the app on \(device.name): its folder is a fresh install (no Library/Application Support), "
                + "sync \(command.option("sync") ?? "never set")")
        return .success
    }

    func deviceUpgrade() throws -> ExitCode {
        let world = try world()
        let device = try world.device(command.arguments[0])
        let identifier = world.containerIdentifier
        let asked = onOff("entitlement")
        // The new build is made from the installed one as read under the profile's lock, so a racing change to the
        // device (a sign-in, another upgrade) is neither lost nor given the same build number.
        let build = try device.upgrade { installed in
            let entitlement = asked ?? installed.entitlements.permits(identifier)
            return .build(version: installed.version + 1, withCloudKitFor: entitlement ? identifier : nil)
        }
        let entitlement = build.entitlements.permits(identifier)
        Terminal.line(
            "Upgraded the app on \(device.name) to build \(build.version) (\(entitlement ? "with" : "WITHOUT") the "
                + "iCloud entitlement); its folder and data are kept")
        return .success
    }

    func accountSignIn() throws -> ExitCode {
        let world = try world()
        let device = try device(in: world)
        let account = try AccountID(command.arguments[0])
        let previous = device.session.account
        try device.signIn(account)
        let change =
            previous.map { $0 == account ? "was already signed into \($0)" : "switched from \($0)" } ?? "signed in"
        Terminal.line("\(device.name) is signed into iCloud as \(account) (\(change))")
        return .success
    }

    func accountSignOut() throws -> ExitCode {
        let world = try world()
        let device = try device(in: world)
        try device.signOut()
        Terminal.line("\(device.name) is signed out of iCloud; its data stays on the device")
        return .success
    }

    func accountStatus() throws -> ExitCode {
        let world = try world()
        let device = try device(in: world)
        if let name = command.option("set") {
            guard device.session.account != nil else {
                throw CLIError(.dataError, "\(device.name) has no iCloud account signed in; sign in first")
            }
            try device.setAccountStatus(AccountStatus(name: name) ?? .couldNotDetermine)
        }
        let (account, status) = device.session.current
        if json {
            struct AccountJSON: Encodable {
                let device: String
                let account: String?
                let status: String
            }
            Terminal.json(AccountJSON(device: device.name, account: account?.rawValue, status: status.name))
        } else {
            Terminal.line("\(device.name): iCloud account \(account?.rawValue ?? "none"), status \(status)")
        }
        return .success
    }

    func accountStartFresh() throws -> ExitCode {
        let world = try world()
        let app = try resumedApp(in: world)
        let archive = try app.startFreshForSignedInAccount()
        Terminal.line(
            "Kept the previous account's \(archive.records) record(s) apart, on the device, in \(archive.path)")
        Terminal.line(
            "\(app.device.name) now syncs with \(app.device.session.account?.rawValue ?? "no account"); run: privatesync sync now --device \(app.device.name)"
        )
        return .success
    }
}
