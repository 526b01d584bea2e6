import ArgumentParsing
import SimulatedWorld

/// `privatesync demo`.
struct DemoCommand: RunnableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "demo",
            abstract: "A scripted walk through a fresh world: both traps, two devices syncing, a fault.",
            discussion: "Runs in a temporary folder unless --home is given (which must not exist yet).")
    }

    func run(_ cli: CLI) async throws -> ExitCode {
        guard cli.homeGiven else { return try await Demo(home: nil).run() }
        try HomePath.checkLength(of: cli.home, identifier: World.demoContainerIdentifier)
        return try await Demo(home: cli.home).run()
    }
}
