import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `privatesync` command: parses the line, runs the command, and turns every failure into one sentence on
/// standard error and an exit code.
struct CLI {
    static let parser = ArgumentParser(root: CommandTree.root, globalOptions: [CommandTree.home])
    static let help = HelpFormatter(parser: parser)

    /// The parsed command line.
    let command: ParsedCommand
    /// The world's folder.
    let home: String

    /// Runs a command line.
    ///
    /// Runs on the main actor, where `main` starts, so that a command that never awaits (most of them) runs on the
    /// main thread and the process never starts the concurrency runtime's worker threads: that start-up is a
    /// measurable share of a short command's time (docs/benchmarks.md, `status_vs_sqlite3`).
    ///
    /// - Parameter arguments: The arguments after the tool's name.
    /// - Returns: The exit code.
    @MainActor
    static func run(_ arguments: [String]) async -> ExitCode {
        let command: ParsedCommand
        do {
            command = try parser.parse(arguments)
        } catch {
            return usageFailure(error)
        }
        if command.helpRequested {
            Terminal.text(help.help(command.path))
            return .success
        }
        let environment = ProcessInfo.processInfo.environment
        do {
            let home = try HomePath.normalize(
                command.option("home") ?? environment["PRIVATESYNC_HOME"] ?? "./.privatesync")
            return try await CLI(command: command, home: home).dispatch()
        } catch {
            let failure = CLIError.from(error)
            Terminal.error("error: \(failure.message)")
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
            return usageFailure(error)
        }
    }

    /// Reports a command line that does not fit: the error, the usage line, and where help is.
    private static func usageFailure(_ error: UsageError) -> ExitCode {
        Terminal.error("error: \(error.message)")
        Terminal.error("usage: \(help.usage(error.path))")
        Terminal.error("See '\(parser.displayName(error.path)) --help'.")
        return .usage
    }

    /// Whether `--json` was given.
    var json: Bool { command.flag("json") }

    @MainActor
    private func dispatch() async throws -> ExitCode {
        switch command.path {
        case ["init"]: return try initWorld()
        case ["device", "add"]: return try deviceAdd()
        case ["device", "list"]: return try deviceList()
        case ["device", "reinstall"]: return try deviceReinstall()
        case ["device", "upgrade"]: return try deviceUpgrade()
        case ["account", "sign-in"]: return try accountSignIn()
        case ["account", "sign-out"]: return try accountSignOut()
        case ["account", "status"]: return try accountStatus()
        case ["account", "start-fresh"]: return try accountStartFresh()
        case ["launch"]: return try launch()
        case ["sync", "on"]: return try syncSwitch(on: true)
        case ["sync", "off"]: return try syncSwitch(on: false)
        case ["sync", "now"]: return try await syncNow()
        case ["sync", "status"]: return try syncStatus()
        case ["sync", "reset"]: return try syncReset()
        case ["record", "add"]: return try recordAdd()
        case ["record", "edit"]: return try recordEdit()
        case ["record", "delete"]: return try recordDelete()
        case ["record", "list"]: return try recordList()
        case ["cloud", "record", "put"]: return try await cloudRecordPut()
        case ["cloud", "record", "edit"]: return try await cloudRecordEdit()
        case ["cloud", "record", "delete"]: return try await cloudRecordDelete()
        case ["cloud", "record", "list"]: return try await cloudRecordList()
        case ["cloud", "zone", "list"]: return try await cloudZoneList()
        case ["cloud", "zone", "delete"]: return try await cloudZoneDelete()
        case ["inspect"]: return try inspect()
        case ["audit"]: return try audit()
        case ["fault", "inject"]: return try faultInject()
        case ["fault", "list"]: return try faultList()
        case ["fault", "clear"]: return try faultClear()
        case ["simulate"]: return try await simulate()
        case ["simulate", "merge"]: return try simulateMerge()
        case ["demo"]:
            guard command.option("home") != nil else { return try await Demo(home: nil).run() }
            try HomePath.checkLength(of: home, identifier: World.demoContainerIdentifier)
            return try await Demo(home: home).run()

        default: throw CLIError(.internalError, "no handler for '\(Self.parser.displayName(command.path))'")
        }
    }

    // MARK: Shared steps

    /// The world at `home`.
    func world() throws -> World {
        // Every file is checked page by page when opened: a damaged page anywhere is refused, naming the file,
        // before anything reads or writes it.
        try World.open(at: home, options: World.Options(verifyIntegrity: true))
    }

    /// The device named by `--device`.
    func device(in world: World) throws -> SimulatedDevice {
        try world.device(command.option("device") ?? "")
    }

    /// The app on the `--device`, as its last launch left it; its stores opened read-only for a command that only
    /// reads, so that it works on a read-only world and writes nothing.
    func resumedApp(in world: World, readOnly: Bool = false) throws -> LaunchedApp {
        try world.resume(command.option("device") ?? "", readOnly: readOnly)
    }

    /// Prints a status, as a sentence or JSON.
    func printStatus(_ status: SyncStatus, device: String) {
        if json {
            Terminal.json(StatusJSON(status))
        } else {
            Terminal.line("\(device): sync is \(status.description)")
            Terminal.line("  \(status.copy)")
        }
    }

    /// `on` or `off` from an `on|off` option.
    func onOff(_ name: String) -> Bool? {
        command.option(name).map { $0 == "on" }
    }

    /// An account from its option or argument.
    func account(_ text: String?) throws -> AccountID? {
        try text.map { try AccountID($0) }
    }
}
