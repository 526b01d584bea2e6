import ArgumentParsing
import DeviceStore
import SimulatedWorld

extension DeviceCommand {
    /// `privatesync device reinstall`.
    struct Reinstall: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "reinstall",
                abstract: "Delete and reinstall the app: its folder goes back to a fresh install.")
        }

        @Argument(valueName: "NAME", help: "The device.") var name: String
        @Option(valueName: "on|off", help: "The sync switch as restored from a backup.", parsing: .onOff)
        var sync: Bool?

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let device = try world.device(name)
            try device.reinstall(syncPreference: sync)
            Terminal.line(
                "Reinstalled the app on \(device.name): its folder is a fresh install (no Library/Application Support), "
                    + "sync \(sync.onOffText)")
            return .success
        }
    }
}
