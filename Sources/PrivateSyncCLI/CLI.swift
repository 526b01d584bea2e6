import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import SimulatedWorld

/// The `privatesync` command: parses the line against the commands' declarations, runs the command chosen, and
/// turns every failure into one sentence on standard error and an exit code. A command's ``RunnableCommand/run(_:)``
/// gets it as its context: the world's folder, and the steps commands share.
struct CLI {
    /// The parser of every command, from their declarations.
    static var parser: ArgumentParser { ArgumentParser(root: PrivateSyncCommand.self, global: GlobalOptions.self) }

    /// The world's folder.
    let home: String
    /// Whether `--home` was given (rather than taken from the environment or the default).
    let homeGiven: Bool

    /// Runs a command line.
    ///
    /// - Parameter arguments: The arguments after the tool's name.
    /// - Returns: The exit code.
    @MainActor
    static func run(_ arguments: [String]) async -> ExitCode {
        let parser = Self.parser
        let parsed: ParsedCommand
        do {
            parsed = try parser.parse(arguments)
        } catch {
            return usageFailure(error, parser: parser)
        }
        if parsed.helpRequested {
            Terminal.text(HelpFormatter(parser: parser).help(parsed.path))
            return .success
        }
        do {
            // One variable read alone (`ProcessEnvironment`, with getenv): `ProcessInfo`'s environment copies every
            // variable into a dictionary, a measurable part of a short command such as `sync status` (`make bench`,
            // `status_vs_sqlite3`).
            let global = try parsed.decode(GlobalOptions.self)
            try BusyTimeout.apply(ProcessEnvironment.value(of: "PRIVATESYNC_BUSY_TIMEOUT_MS"))
            let home = try HomePath.normalize(
                global.home ?? ProcessEnvironment.value(of: "PRIVATESYNC_HOME") ?? "./.privatesync")
            guard let command = try RunnableCommands.decode(parsed) else {
                throw CLIError(.internalError, "no handler for '\(parser.displayName(parsed.path))'")
            }
            try command.validate()
            return try await command.run(CLI(home: home, homeGiven: global.home != nil))
        } catch {
            let failure = CLIError.from(error)
            Terminal.error("error: \(failure)")
            return failure.code
        }
    }

    /// Runs a command line given as the bytes of `argv`, refusing (64) an argument that is not valid UTF-8.
    ///
    /// - Parameter argumentBytes: Each argument's bytes, after the tool's name.
    /// - Returns: The exit code.
    @MainActor
    static func run(argumentBytes: [[UInt8]]) async -> ExitCode {
        do {
            return await run(try CommandLineArguments.decode(argumentBytes))
        } catch {
            return usageFailure(error, parser: parser)
        }
    }

    /// Reports a command line that does not fit: the error, the usage line, and where help is.
    private static func usageFailure(_ error: UsageError, parser: ArgumentParser) -> ExitCode {
        Terminal.error("error: \(error.message)")
        Terminal.error("usage: \(HelpFormatter(parser: parser).usage(error.path))")
        Terminal.error("See '\(parser.displayName(error.path)) --help'.")
        return .usage
    }

    // MARK: Shared steps

    /// The world at `home`.
    func world() throws -> World {
        // Every file is checked page by page when opened: a damaged page anywhere is refused, naming the file,
        // before anything reads or writes it.
        try World.open(at: home, options: World.Options(verifyIntegrity: true))
    }

    /// The app on a device, as its last launch left it; its stores opened read-only for a command that only reads,
    /// so that it works on a read-only world and writes nothing.
    func resumedApp(_ device: String, in world: World, readOnly: Bool = false) throws -> LaunchedApp {
        try afterLaunch(of: device) { try world.resume(device, readOnly: readOnly) }
    }

    /// Runs `body`, which needs the last launch of `device`; a device never launched is refused (66) with the command
    /// that launches it.
    func afterLaunch<T>(of device: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LaunchError where error.code == .neverLaunched {
            throw CLIError(.noInput, "\(error); run: privatesync launch --device \(device)")
        }
    }

    /// Prints a status, as a sentence or JSON.
    func printStatus(_ status: SyncStatus, device: String, json: Bool) {
        if json {
            Terminal.json(StatusJSON(status))
        } else {
            Terminal.line("\(device): sync is \(status.description)")
            Terminal.line("  \(status.copy)")
        }
    }
}
