import ArgumentParsing
import PrivateSync
import SimulatedWorld

extension DeviceCommand {
    /// `privatesync device list`.
    struct List: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "List the devices.")
        }

        @Flag(help: CommandHelp.json) var json: Bool

        private struct DeviceJSON: Encodable {
            let name: String
            let account: String?
            let accountStatus: String
            let buildVersion: Int
            let entitlement: Bool
            let syncPreference: Bool
            let launched: Bool
            let userCreatedStore: String?
            /// What syncs the build's user-created store: `app` or `cksyncengine`.
            let syncEngine: String
        }

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
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
                        userCreatedStore: launch?.userCreatedStore.rawValue,
                        syncEngine: device.profile.build.syncEngine.rawValue))
            }
            if json {
                struct List: Encodable { let devices: [DeviceJSON] }
                Terminal.json(List(devices: devices))
            } else if devices.isEmpty {
                Terminal.line("No devices. Add one with: privatesync device add NAME --account ID --sync on")
            } else {
                Terminal.table(
                    [["DEVICE", "ACCOUNT", "STATUS", "BUILD", "ENTITLEMENT", "SYNC", "STORE", "ENGINE"]]
                        + devices.map {
                            [
                                $0.name, $0.account ?? "-", $0.accountStatus, "\($0.buildVersion)",
                                $0.entitlement ? "yes" : "no",
                                $0.syncPreference ? "on" : "off", $0.userCreatedStore ?? "never launched",
                                $0.syncEngine,
                            ]
                        })
            }
            return .success
        }
    }
}
