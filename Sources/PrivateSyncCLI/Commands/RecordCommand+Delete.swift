import ArgumentParsing
import DeviceStore
import PrivateSync

extension RecordCommand {
    /// `privatesync record delete`.
    struct Delete: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "delete", abstract: "Delete a record.")
        }

        @OptionGroup var target: RecordOnDevice

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let app = try cli.resumedApp(target.device, in: world)
            let record = try app.delete(target.name)
            Terminal.line("Deleted \(record.type) \(record.name)")
            return .success
        }
    }
}
