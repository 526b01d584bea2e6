import ArgumentParsing
import DeviceStore
import PrivateCloud
import SimulatedWorld

extension AccountCommand {
    /// `privatesync account status`.
    struct Status: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "status", abstract: "Set (or show) the signed-in account's status.")
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Option(valueName: "STATUS", help: "The new status.", parsing: .settableAccountStatus) var set: AccountStatus?
        @Flag(help: CommandHelp.json) var json: Bool

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let device = try world.device(self.device)
            if let set {
                guard device.session.account != nil else {
                    throw CLIError(.dataError, "\(device.name) has no iCloud account signed in; sign in first")
                }
                try device.setAccountStatus(set)
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
    }
}
