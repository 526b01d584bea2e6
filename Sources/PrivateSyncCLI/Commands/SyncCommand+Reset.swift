import ArgumentParsing
import DeviceStore
import PrivateSync

extension SyncCommand {
    /// `privatesync sync reset`.
    struct Reset: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "reset",
                abstract: "Drop the engine's bookkeeping (tokens, binding, server versions); keep the data.",
                discussion:
                    "The next cycle fetches everything again and merges it with the device's records, without duplicating or losing any: what the server lacks is sent again."
            )
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Flag(help: CommandHelp.json) var json: Bool

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let app = try cli.resumedApp(device, in: world)
            if cli.isMirrored(app) {
                // The mirror's bookkeeping is not the app engine's: resetting the one it does not keep would change
                // nothing, and report that it did.
                throw CLIError(
                    .usage,
                    "device \(app.device.name)'s app syncs through CKSyncEngine, whose state its delegate keeps; sync reset "
                        + "resets the app's own engine")
            }
            try app.resetSyncBookkeeping()
            let status = try app.status()
            if json {
                Terminal.json(StatusJSON(status))
            } else {
                Terminal.line(
                    "\(app.device.name): the sync bookkeeping was reset; the next cycle fetches everything again")
                cli.printStatus(status, device: app.device.name, json: false)
            }
            return .success
        }
    }
}
