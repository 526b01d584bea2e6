import ArgumentParsing
import PrivateSync
import SimulatedWorld

extension SyncCommand {
    /// `privatesync sync status`.
    struct Status: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "status", abstract: "The status the settings screen shows.")
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Flag(help: CommandHelp.json) var json: Bool

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let device = try world.device(self.device)
            let status = try cli.afterLaunch(of: device.name) {
                try LaunchSequence(device: device, environment: world.environment(for: device)).status()
            }
            cli.printStatus(status, device: device.name, json: json)
            return .success
        }
    }
}
