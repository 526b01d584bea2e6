import ArgumentParsing
import SimulatedWorld

extension FaultCommand {
    /// `privatesync fault clear`.
    struct Clear: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "clear", abstract: "Remove every waiting fault.")
        }

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            guard let faults = world.faults as? PersistentFaults else {
                throw CLIError(.internalError, "this world keeps no fault file")
            }
            // Rows are removed without being read, so that a hand-edited row out of range can be cleared.
            let count = try faults.clear()
            Terminal.line("Cleared \(count) waiting fault(s).")
            return .success
        }
    }
}
