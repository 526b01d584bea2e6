import ArgumentParsing
import DeviceStore
import PrivateSync

extension RecordCommand {
    /// `privatesync record delete`.
    struct Delete: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "delete", abstract: "Delete a record.")
        }

        @Argument(valueName: "NAME", help: "The record's name.", parsing: .recordName) var name: String
        @Option(valueName: "NAME", help: CommandHelp.device) var device: String

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let app = try cli.resumedApp(device, in: world)
            let record = try app.delete(name)
            Terminal.line("Deleted \(record.type) \(record.name)")
            return .success
        }
    }
}
