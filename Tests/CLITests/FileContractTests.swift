import Foundation
import Testing

/// The `strace` command, where it is installed.
private let straceExecutable: String? = ["/usr/bin/strace", "/bin/strace"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// SQLite's contract, checked on the real commands from outside: while SQLite holds a database file, its `-wal` or
/// its `-shm` open in a process, nothing else in that process opens it (closing that descriptor would drop every
/// lock the process holds on the file; <https://www.sqlite.org/howtocorrupt.html>, 2.2).
///
/// Every command of a scenario that uses every kind of file (stores, archives, containers, the fault file, a
/// reinstall, a start-fresh and its restore, a hostile `@FILE` naming a store, a simulation on files) runs under
/// `strace -f -k`, which prints the call stack of every `openat` and `close`: an open is SQLite's when a frame of
/// its stack is in SQLite's library. The checker replays each command's opens and closes and fails on an open of a
/// database file by anything else while SQLite has that file open. Independent of the code it checks: it reads what
/// the kernel was asked, not what the package believes it does. The bug of issue 22 (the header read and the
/// verification memo opening the store while its connection was open) fails it at the first `record add`.
@Suite(
    "File contract: only SQLite opens a database file while SQLite has it open",
    .enabled(if: straceExecutable != nil, "needs strace (.ci/run installs it)"))
struct FileContractTests {
    static var strace: String? { straceExecutable }

    /// One traced call: its thread, name, arguments, result and the frames of its stack.
    struct Call {
        let thread: String
        let name: String
        let arguments: String
        let result: String
        var frames: [String] = []

        var isSQLite: Bool { frames.contains { $0.contains("libsqlite3") || $0.contains("(sqlite3") } }
        /// The path an `openat` names.
        var path: String? {
            guard let start = arguments.firstIndex(of: "\"") else { return nil }
            let rest = arguments[arguments.index(after: start)...]
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            return String(rest[..<end])
        }
    }

    /// Whether `path` is a database file of the world, or one of SQLite's files beside it (a file being created,
    /// which no other process can see yet, is not).
    static func isDatabaseFile(_ path: String) -> Bool {
        guard !path.contains(".creating-") else { return false }
        return [".store", ".sqlite", "-wal", "-shm", ".partial", ".restored"].contains { path.hasSuffix($0) }
    }

    /// The calls of a trace, each with its stack (`strace -f -k` prints the frames after the call, ` > ` each).
    static func calls(_ trace: String) -> [Call] {
        var calls: [Call] = []
        var unfinished: [String: (name: String, arguments: String)] = [:]
        for line in trace.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix(" > ") {
                if !calls.isEmpty { calls[calls.count - 1].frames.append(String(line)) }
                continue
            }
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2 else { continue }
            let thread = String(parts[0])
            var body = String(parts[1]).trimmingCharacters(in: .whitespaces)
            if body.hasPrefix("<... ") {
                // `<... openat resumed>, O_RDONLY) = 3`: the rest of a call another thread's line interrupted.
                guard let started = unfinished.removeValue(forKey: thread),
                    let close = body.range(of: "resumed>")
                else { continue }
                body = started.name + "(" + started.arguments + body[close.upperBound...]
            } else if body.hasSuffix("<unfinished ...>") {
                guard let open = body.firstIndex(of: "(") else { continue }
                unfinished[thread] = (
                    String(body[..<open]),
                    String(body[body.index(after: open)...].dropLast("<unfinished ...>".count))
                )
                continue
            }
            // `close(6)                 = 0`: strace pads the result to a column.
            guard let open = body.firstIndex(of: "("), let equals = body.range(of: " = ", options: .backwards),
                let close = body[..<equals.lowerBound].lastIndex(where: { $0 != " " }), body[close] == ")"
            else { continue }
            calls.append(
                Call(
                    thread: thread, name: String(body[..<open]),
                    arguments: String(body[body.index(after: open)..<close]),
                    result: String(body[equals.upperBound...])))
        }
        return calls
    }

    /// The opens of a database file, by something other than SQLite, while SQLite had it open in that process.
    static func violations(_ calls: [Call]) -> [String] {
        var sqliteFiles: [String: String] = [:]  // descriptor -> path, opened by SQLite
        var otherFiles: [String: String] = [:]  // descriptor -> path, opened by anything else
        var found: [String] = []
        for call in calls {
            switch call.name {
            case "openat", "open":
                guard let path = call.path, isDatabaseFile(path),
                    let descriptor = call.result.split(separator: " ").first, Int(descriptor) ?? -1 >= 0
                else { continue }
                if call.isSQLite {
                    sqliteFiles[String(descriptor)] = path
                } else {
                    if sqliteFiles.values.contains(path) {
                        found.append("\(path) opened while SQLite had it open, from \(call.frames.prefix(8))")
                    }
                    otherFiles[String(descriptor)] = path
                }
            case "close":
                let descriptor = call.arguments.trimmingCharacters(in: .whitespaces)
                if let path = otherFiles.removeValue(forKey: descriptor), sqliteFiles.values.contains(path) {
                    found.append("\(path) closed while SQLite had it open")
                }
                sqliteFiles[descriptor] = nil
            default: continue
            }
        }
        return found
    }

    @Test("every command of a scenario over every kind of file keeps SQLite's contract")
    func scenarioKeepsTheContract() throws {
        let cli = CLIRunner.fresh()
        let strace = try #require(Self.strace)
        let store = cli.home + "/devices/A/AppGroup/Library/Application Support/UserCreated.store"
        var opens = 0
        var commands = 0
        /// Runs a command under strace; returns its status and standard output.
        func traced(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let trace = cli.home + ".trace"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: strace)
            process.arguments =
                ["-f", "-qq", "-k", "-e", "trace=openat,open,close", "-o", trace, CLIRunner.binary, "--home", cli.home]
                + arguments
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            let error = Pipe()
            process.standardError = error
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let calls = Self.calls(try String(contentsOfFile: trace, encoding: .utf8))
            opens += calls.filter { $0.name.hasPrefix("open") && $0.path.map(Self.isDatabaseFile) == true }.count
            commands += 1
            let violations = Self.violations(calls)
            #expect(violations == [], "privatesync \(arguments.joined(separator: " "))")
            return (process.terminationStatus, String(decoding: data, as: UTF8.self) + message)
        }
        func traced(_ arguments: String...) throws -> (status: Int32, output: String) { try traced(arguments) }
        func ok(_ arguments: String...) throws -> String { try ok(arguments) }
        func ok(_ arguments: [String]) throws -> String {
            let (status, output) = try traced(arguments)
            #expect(status == 0, "privatesync \(arguments.joined(separator: " ")) exited \(status): \(output)")
            return output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let note = ["--field", "body=b", "--field", "date=now"]
        _ = try ok("init")
        for device in ["A", "B"] {
            _ = try ok("device", "add", device, "--account", "alice", "--sync", "on")
            _ = try ok("launch", "--device", device)
        }
        let name = try ok(["record", "add", "Note", "--device", "A", "--field", "title=t"] + note)
        _ = try ok(
            "record", "add", "Baseline", "--device", "A", "--field", "metric=hrv", "--field", "value=1", "--field",
            "computedAt=now", "--field", "windowDays=7")
        // A hostile value file: the device's own store, named while the command has the store open.
        #expect(try traced(["record", "edit", name, "--device", "A", "--field", "body=@" + store]).status == 65)
        _ = try ok("record", "edit", name, "--device", "A", "--field", "body=c")
        _ = try ok("record", "list", "--device", "A")
        _ = try ok("sync", "now", "--device", "A")
        _ = try ok("sync", "now", "--device", "B")
        _ = try ok("sync", "status", "--device", "A")
        _ = try ok("inspect", "--device", "A")
        _ = try ok("fault", "inject", "network-unavailable", "--count", "1")
        _ = try ok("fault", "list")
        #expect(try traced("sync", "now", "--device", "B").status == 75)
        _ = try ok(
            "cloud", "record", "put", "--account", "alice", "--type", "Note", "--name", "n2", "--field", "title=y")
        _ = try ok("cloud", "record", "edit", "n2", "--account", "alice", "--field", "title=z")
        _ = try ok("cloud", "record", "list", "--account", "alice")
        _ = try ok("record", "delete", name, "--device", "A")
        _ = try ok("sync", "now", "--device", "A")
        // An account switch, a start-fresh (an archive written), and back (the archive restored and removed).
        _ = try ok("account", "sign-in", "bob", "--device", "A")
        _ = try ok("launch", "--device", "A")
        _ = try ok("account", "start-fresh", "--device", "A")
        _ = try ok(["record", "add", "Note", "--device", "A", "--field", "title=bob's"] + note)
        _ = try ok("sync", "now", "--device", "A")
        _ = try ok("account", "sign-in", "alice", "--device", "A")
        _ = try ok("launch", "--device", "A")
        _ = try ok("account", "start-fresh", "--device", "A")
        _ = try ok("sync", "now", "--device", "A")
        _ = try ok("audit")
        _ = try ok("device", "reinstall", "B", "--sync", "on")
        _ = try ok("launch", "--device", "B")
        _ = try ok("sync", "now", "--device", "B")
        _ = try ok("audit", "--convergence")
        _ = try ok("fault", "clear")
        // Many devices in one process, on files: several connections of one process to one container file.
        _ = try ok("simulate", "--seed", "3", "--steps", "40", "--backend", "file")
        #expect(opens > 100, "the trace saw the database files opened")
        print("file contract: \(commands) command(s) traced, \(opens) open(s) of database files checked")
    }

    @Test("the checker finds an open beside SQLite's and a close under it, and nothing in SQLite's own")
    func checkerFindsAViolation() {
        let sqlite = " > /usr/lib/x86_64-linux-gnu/libsqlite3.so.0(sqlite3BtreeOpen+0xfc) [0x4096c]"
        let ours = " > /work/privatesync($s17PrivateSyncSQLite16VerificationMemoC5state) [0x1d2606]"
        let trace = """
            7 openat(AT_FDCWD, "/w/UserCreated.store", O_RDWR|O_NOFOLLOW|O_CLOEXEC) = 3
            \(sqlite)
            7 openat(AT_FDCWD, "/w/UserCreated.store-wal", O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC, 0600 <unfinished ...>
            8 openat(AT_FDCWD, "/w/verified.memo", O_RDONLY) = 5
            \(ours)
            7 <... openat resumed>) = 4
            \(sqlite)
            7 openat(AT_FDCWD, "/w/UserCreated.store", O_RDONLY|O_NOFOLLOW|O_CLOEXEC) = 6
            \(ours)
            7 close(6)                          = 0
            \(sqlite)
            7 close(3) = 0
            7 openat(AT_FDCWD, "/w/UserCreated.store", O_RDONLY|O_CLOEXEC) = 3
            \(ours)
            7 close(3) = 0
            """
        let calls = Self.calls(trace)
        #expect(calls.count == 8)
        #expect(calls[2].path == "/w/UserCreated.store-wal" && calls[2].isSQLite, "a resumed call keeps its stack")
        #expect(Self.violations(calls).count == 2, "the open and the close of the memo's read, not the later one")
    }
}
