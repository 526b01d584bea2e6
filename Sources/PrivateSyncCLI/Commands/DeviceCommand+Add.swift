import ArgumentParsing
import DeviceSimulation
import DeviceStore
import PrivateCloud
import SimulatedWorld

extension DeviceCommand {
    /// `privatesync device add`.
    struct Add: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "add", abstract: "A fresh install of the app on a new device.",
                examples: ["privatesync device add phone --account alice --sync on"])
        }

        @Argument(valueName: "NAME", help: "The device's name (letters, digits, '.', '_', '-').") var name: String
        @Option(valueName: "ID", help: "The iCloud account signed in (default: none).", parsing: .account)
        var account: AccountID?
        @Option(
            valueName: "on|off", help: "The sync switch as restored from a backup (default: never set).",
            parsing: .onOff)
        var sync: Bool?
        @Flag(help: "Build the app without the iCloud entitlement.") var noEntitlement: Bool
        @Option(
            valueName: "app|cksyncengine",
            help:
                "What syncs the build's user-created store: the app's own engine (app, the default) or CKSyncEngine with the app as its delegate (cksyncengine); kept by upgrades.",
            parsing: .build)
        var engine: AppSyncEngine?

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let device = try world.addDevice(
                name, account: account, syncPreference: sync, entitlement: !noEntitlement,
                syncEngine: engine ?? .appEngine)
            Terminal.line(
                "Installed the app on \(device.name): "
                    + "\(account.map { "signed into \($0)" } ?? "no iCloud account"), sync \(sync.onOffText), "
                    + "\(noEntitlement ? "a build WITHOUT the iCloud entitlement" : "with the iCloud entitlement")"
                    + (engine == .cksyncengine ? ", syncing through CKSyncEngine" : "")
            )
            return .success
        }
    }
}
