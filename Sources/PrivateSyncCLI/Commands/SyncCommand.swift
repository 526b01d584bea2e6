import ArgumentParsing
import DeviceStore
import PrivateSync

/// `privatesync sync`: its subcommands.
struct SyncCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sync", abstract: "Flip the sync switch, sync now, or show the status.",
            subcommands: [On.self, Off.self, Now.self, Status.self, Reset.self])
    }

    /// Flips the sync switch on a device, as `sync on` and `sync off` do.
    static func flip(on: Bool, device: String, json: Bool, _ cli: CLI) throws -> ExitCode {
        let world = try cli.world()
        let app = try cli.resumedApp(device, in: world).setSyncEnabled(on)
        let status = try app.status()
        if !json {
            Terminal.line(
                "Turned sync \(on ? "on" : "off") on \(app.device.name); the user-created store is now \(app.record.userCreatedStore.rawValue)"
            )
        }
        cli.printStatus(status, device: app.device.name, json: json)
        return .success
    }
}
