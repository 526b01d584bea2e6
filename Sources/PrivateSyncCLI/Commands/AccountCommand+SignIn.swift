import ArgumentParsing
import DeviceStore
import PrivateCloud
import SimulatedWorld

extension AccountCommand {
    /// `privatesync account sign-in`.
    struct SignIn: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "sign-in",
                abstract: "Sign the device into an iCloud account (switching if another is signed in).")
        }

        @Argument(valueName: "ID", help: "The account.", parsing: .account) var account: AccountID
        @Option(valueName: "NAME", help: CommandHelp.device) var device: String

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let device = try world.device(self.device)
            let previous = device.session.account
            try device.signIn(account)
            let change =
                previous.map { $0 == account ? "was already signed into \($0)" : "switched from \($0)" }
                ?? "signed in"
            Terminal.line("\(device.name) is signed into iCloud as \(account) (\(change))")
            return .success
        }
    }
}
