import Foundation
import Testing

/// Runs the built `privatesync` binary as a child process, as a user or a script would.
struct CLIRunner {
    /// What one run did.
    struct Run {
        let status: Int32
        let signal: Int32?
        let standardOutput: String
        let standardError: String

        /// The standard output parsed as one JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(standardOutput.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// The world's folder for every run.
    let home: String

    /// The binary: beside the test bundle in the build folder, or `$PRIVATESYNC_BIN`.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["PRIVATESYNC_BIN"] { return path }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("privatesync").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug/privatesync"
    }()

    /// A runner with a new, empty temporary home (not created: `init` creates it).
    static func fresh() -> CLIRunner {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-cli-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        return CLIRunner(home: base.appendingPathComponent("world").path)
    }

    /// A process, not started, that runs `privatesync --home HOME ARGUMENTS` with no backtraces and no shard from the
    /// environment the tests run in (a CI matrix's must not leak into `--shard env`), plus `extra`.
    func process(_ arguments: [String], home: Bool = true, environment extra: [String: String] = [:]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = (home ? ["--home", self.home] : []) + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        for name in ["PRIVATESYNC_SHARD_INDEX", "PRIVATESYNC_SHARD_COUNT", "JOB_COMPLETION_INDEX"] {
            environment[name] = nil
        }
        environment.merge(extra) { _, new in new }
        process.environment = environment
        return process
    }

    /// Runs `privatesync --home HOME ARGUMENTS`.
    @discardableResult
    func run(_ arguments: [String], home: Bool = true, environment extra: [String: String] = [:]) throws -> Run {
        let process = process(arguments, home: home, environment: extra)
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let signalled = process.terminationReason == .uncaughtSignal
        return Run(
            status: signalled ? -1 : process.terminationStatus, signal: signalled ? process.terminationStatus : nil,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a command that must succeed, and returns its standard output.
    /// Runs `sync now`, which may end in any documented outcome: 0 finished, 69 paused, 75 to be retried, 78 off
    /// (docs/cli.md). Anything else (a refusal, a trap) is a failure of the command.
    @discardableResult
    func syncNow(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let run = try run(["sync", "now"] + arguments)
        #expect(
            Self.syncNowOutcomes.contains(run.status),
            "privatesync sync now \(arguments.joined(separator: " ")) exited \(run.status): \(run.standardError)",
            sourceLocation: sourceLocation)
        return run
    }

    /// The exit codes of a `sync now` that ran as documented, whatever the cycle's outcome.
    static let syncNowOutcomes: Set<Int32> = [0, 69, 75, 78]

    /// Runs a command that must exit with `status`.
    @discardableResult
    func exits(
        _ status: Int32, _ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Run {
        let run = try run(arguments)
        #expect(
            run.status == status,
            "privatesync \(arguments.joined(separator: " ")) exited \(run.status), not \(status): \(run.standardError)",
            sourceLocation: sourceLocation)
        return run
    }

    /// Runs a command that must succeed (exit 0).
    @discardableResult
    func ok(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        try ok(arguments, sourceLocation: sourceLocation)
    }

    /// Runs a command that must succeed (exit 0).
    @discardableResult
    func ok(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let run = try run(arguments)
        #expect(
            run.status == 0, "privatesync \(arguments.joined(separator: " ")) failed: \(run.standardError)",
            sourceLocation: sourceLocation)
        return run
    }

    /// A runner on a new world (`init`) with each of `devices` installed (signed in to alice, sync on) and launched,
    /// one device after the other.
    static func world(
        launching devices: String..., sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> CLIRunner
    {
        try world(launchingAll: devices, sourceLocation: sourceLocation)
    }

    /// ``world(launching:sourceLocation:)`` for a list of devices, each a build of `engine` (`app` or
    /// `cksyncengine`).
    static func world(
        launchingAll devices: [String], engine: String = "app", sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> CLIRunner
    {
        let cli = fresh()
        try cli.ok("init", sourceLocation: sourceLocation)
        for device in devices {
            try cli.ok(
                "device", "add", device, "--account", "alice", "--sync", "on", "--engine", engine,
                sourceLocation: sourceLocation)
            try cli.ok("launch", "--device", device, sourceLocation: sourceLocation)
        }
        return cli
    }

    /// A runner on a new world where `device` (``world(launching:sourceLocation:)``) has synced one CheckIn of mood
    /// `mood`.
    static func syncedWorld(
        device: String = "phone", mood: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CLIRunner {
        let cli = try world(launching: device, sourceLocation: sourceLocation)
        try cli.addCheckIn(mood: mood, on: device, sourceLocation: sourceLocation)
        try cli.ok("sync", "now", "--device", device, sourceLocation: sourceLocation)
        return cli
    }

    /// Adds a CheckIn of mood `mood`, dated now, on `device`, with `more` arguments after (`record add`, which must
    /// succeed; its standard output is the record's name).
    @discardableResult
    func addCheckIn(
        mood: Int, on device: String, _ more: String..., sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Run {
        try ok(
            ["record", "add", "CheckIn", "--device", device, "--field", "mood=\(mood)", "--field", "date=now"] + more,
            sourceLocation: sourceLocation)
    }

    /// Adds a Note titled `title`, with body `b`, dated now, on `device`, with `more` arguments after (`record add`,
    /// which must succeed; its standard output is the record's name).
    @discardableResult
    func addNote(
        on device: String, title: String = "t", _ more: String..., sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Run {
        try ok(
            [
                "record", "add", "Note", "--device", device, "--field", "title=\(title)", "--field", "body=b",
                "--field", "date=now",
            ]
                + more, sourceLocation: sourceLocation)
    }

    /// A hash of every file in the world (path, size and bytes), ignoring SQLite's shared-memory index files and empty
    /// WAL files (a read-only connection may leave both; neither holds data), and the memo of which file states
    /// passed a page-by-page check (`verified.memo`, a cache that any command checking a file may update).
    func worldDigest() throws -> [String: Data] {
        var digest: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: home) else { return digest }
        while let relative = enumerator.nextObject() as? String {
            let path = home + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !relative.hasSuffix("-shm"), relative != "verified.memo", !relative.hasPrefix("verified.memo.tmp-")
            else { continue }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            if relative.hasSuffix("-wal") && bytes.isEmpty { continue }
            digest[relative] = bytes
        }
        return digest
    }
}
