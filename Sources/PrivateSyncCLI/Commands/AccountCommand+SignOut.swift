import ArgumentParsing
import DeviceStore
import SimulatedWorld

extension AccountCommand {
    /// `privatesync account sign-out`.
    struct SignOut: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "sign-out", abstract: "Sign the device out of iCloud.")
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let device = try world.device(self.device)
            try device.signOut()
            Terminal.line("\(device.name) is signed out of iCloud; its data stays on the device")
            return .success
        }
    }
}
