import ArgumentParsing
import DeviceStore
import PrivateCloud
import SimulatedWorld

extension DeviceCommand {
    /// `privatesync device upgrade`.
    struct Upgrade: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "upgrade", abstract: "Install a newer build over the app, keeping its folder and data.")
        }

        @Argument(valueName: "NAME", help: "The device.") var name: String
        @Option(
            valueName: "on|off", help: "Whether the new build has the iCloud entitlement (default: as before).",
            parsing: .onOff)
        var entitlement: Bool?

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let device = try world.device(name)
            let identifier = world.containerIdentifier
            let asked = entitlement
            // The new build is made from the installed one as read under the profile's lock, so a racing change to
            // the device (a sign-in, another upgrade) is neither lost nor given the same build number.
            let build = try device.upgrade { installed in
                let entitlement = asked ?? installed.entitlements.permits(identifier)
                return .build(
                    version: installed.version + 1, withCloudKitFor: entitlement ? identifier : nil,
                    syncEngine: installed.syncEngine)
            }
            let entitled = build.entitlements.permits(identifier)
            Terminal.line(
                "Upgraded the app on \(device.name) to build \(build.version) (\(entitled ? "with" : "WITHOUT") the "
                    + "iCloud entitlement); its folder and data are kept")
            return .success
        }
    }
}
