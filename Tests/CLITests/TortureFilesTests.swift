import Foundation
import PrivateSyncSQLite
import Testing

/// The files torture: garbage in every file the world holds, pairs of writing commands racing, and signals at
/// seeded moments of writing commands. Short in `make test`; `make torture` runs every garbage case
/// (`PRIVATESYNC_TORTURE_GARBAGE=all`), 200 races (`PRIVATESYNC_TORTURE_RACES`) and 150 signals
/// (`PRIVATESYNC_TORTURE_SIGNALS`). Each prints its seed (`PRIVATESYNC_TORTURE_SEED`) and counts.
@Suite("Torture: files, races and signals")
struct TortureFilesTests {
    static let environment = ProcessInfo.processInfo.environment
    static var seed: UInt64 { SeededGenerator.tortureSeed }

    // MARK: Garbage

    /// One file of the world with one value replaced.
    struct GarbageCase: Sendable, CustomStringConvertible {
        let file: String
        let place: String
        let value: String
        var description: String { "\(file) \(place) = \(value)" }
    }

    static let jsonGarbage = ["\"garbage\"", "-1", "1e300", "null", "[]", "{}", "\"\"", "9223372036854775808"]
    static let sqlGarbage = ["'garbage'", "-1", "1e300", "X'00FF'", "NULL", "''", "9223372036854775807"]

    /// Every key of every JSON file and every column or state row of every SQLite file, with every garbage value.
    static func everyCase(_ home: String) throws -> [GarbageCase] {
        var cases: [GarbageCase] = []
        let jsonFiles = [
            "world.json", "devices/A/device.json", "devices/A/AppGroup/Library/Preferences/preferences.json",
            "devices/A/AppGroup/Library/Preferences/last-launch.json",
        ]
        for file in jsonFiles {
            let object =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: home + "/" + file)))
                as? [String: Any] ?? [:]
            var keys = object.keys.sorted()
            if let build = object["build"] as? [String: Any] { keys += build.keys.sorted().map { "build." + $0 } }
            for key in keys {
                // An empty list of entitlements is no garbage: it is a build without the iCloud entitlement, whose
                // resumed cloud app traps as CloudKit does (see docs/launch.md, trap 2).
                let values = key.hasPrefix("build.") ? jsonGarbage.filter { $0 != "[]" } : jsonGarbage
                for value in values { cases.append(GarbageCase(file: file, place: key, value: value)) }
            }
            cases.append(GarbageCase(file: file, place: "", value: "empty file"))
        }
        let store = "devices/A/AppGroup/Library/Application Support/UserCreated.store"
        let stateKeys = try Connection(path: home + "/" + store, mode: .readOnly).query(
            "SELECT key FROM sync_state ORDER BY key"
        ) { $0.text(0) }
        for key in stateKeys {
            for value in sqlGarbage { cases.append(GarbageCase(file: store, place: "sync_state." + key, value: value)) }
        }
        // record_name too: a rowid table's text key takes NULL, which the store check let through until 2026-12-01.
        for column in ["record_name", "created_at", "modified_at", "server_modified_at"] {
            for value in sqlGarbage { cases.append(GarbageCase(file: store, place: "records." + column, value: value)) }
        }
        for column in ["kind", "account", "remaining", "retry_after"] {
            for value in sqlGarbage {
                cases.append(GarbageCase(file: "faults.sqlite", place: "faults." + column, value: value))
            }
        }
        for column in ["kind", "count"] {
            for value in sqlGarbage {
                cases.append(GarbageCase(file: "faults.sqlite", place: "struck." + column, value: value))
            }
        }
        return cases
    }

    /// Applies a garbage case to the world at `home`.
    static func apply(_ garbage: GarbageCase, home: String) throws {
        let path = home + "/" + garbage.file
        if garbage.value == "empty file" {
            try Data().write(to: URL(fileURLWithPath: path))
            return
        }
        if garbage.file.hasSuffix(".json") {
            var object =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
                ?? [:]
            let value = try JSONSerialization.jsonObject(with: Data(garbage.value.utf8), options: .fragmentsAllowed)
            if garbage.place.hasPrefix("build.") {
                var build = object["build"] as? [String: Any] ?? [:]
                build[String(garbage.place.dropFirst("build.".count))] = value
                object["build"] = build
            } else {
                object[garbage.place] = value
            }
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
            return
        }
        let connection = try Connection(path: path, mode: .readWrite)
        let parts = garbage.place.split(separator: ".").map(String.init)
        // CHECK constraints and NOT NULL refuse some values; writable_schema lets a hand-edit through anyway.
        try connection.execute("PRAGMA ignore_check_constraints = ON")
        if parts[0] == "sync_state" {
            try connection.execute("UPDATE sync_state SET value = \(garbage.value) WHERE key = '\(parts[1])'")
        } else {
            try? connection.execute("UPDATE \(parts[0]) SET \(parts[1]) = \(garbage.value)")
        }
    }

    /// The commands that read the world's files, each of which must refuse garbage with 74 or work.
    static let readers: [[String]] = [
        ["device", "list"], ["sync", "status", "--device", "A"], ["record", "list", "--device", "A"],
        ["inspect", "--device", "A"], ["fault", "list"], ["sync", "now", "--device", "A"],
        ["record", "add", "CheckIn", "--device", "A", "--field", "mood=1", "--field", "date=now"],
        ["account", "sign-in", "bob", "--device", "A"], ["launch", "--device", "A"], ["audit"],
    ]

    /// A world with every file present: a launched, synced device, a record, a fault waiting, a fault struck.
    static func template() throws -> CLIRunner {
        let cli = try CLIRunner.world(launching: "A")
        try cli.addCheckIn(mood: 2, on: "A")
        try cli.ok("fault", "inject", "zone-busy", "--retry-after", "5")
        try cli.syncNow("--device", "A")
        try cli.syncNow("--device", "A")
        try cli.ok("fault", "inject", "network-failure", "--account", "alice", "--count", "3")
        return cli
    }

    /// Whether `status` is a documented outcome of a `sync now` (paused, to be retried, off): not a failure.
    static func isSyncNowOutcome(_ arguments: [String], _ status: Int32?) -> Bool {
        guard let status, arguments.starts(with: ["sync", "now"]) else { return false }
        return CLIRunner.syncNowOutcomes.contains(status)
    }

    @Test("garbage in any value of any file: refused with 74 naming the file, never a trap, nothing written")
    func garbageIsRefused() throws {
        let template = try Self.template()
        let all = try Self.everyCase(template.home)
        var random = SeededGenerator(seed: Self.seed)
        let cases =
            Self.environment["PRIVATESYNC_TORTURE_GARBAGE"] == "all"
            ? all : Array(all.shuffled(using: &random).prefix(12))
        var refused = 0
        var runs = 0
        for garbage in cases {
            let cli = CLIRunner.fresh()
            try? FileManager.default.removeItem(atPath: cli.home)
            try FileManager.default.copyItem(atPath: template.home, toPath: cli.home)
            try Self.apply(garbage, home: cli.home)
            for arguments in Self.readers {
                let before = try cli.worldDigest()
                let run = try cli.run(arguments)
                runs += 1
                let line = "\(garbage): \(arguments.joined(separator: " "))"
                #expect(run.signal == nil && run.status < 128, "\(line) trapped (\(run.status), \(run.signal ?? 0))")
                if run.status == 0 { continue }
                // A sync that ran and ended paused, to be retried or off is an outcome, not a refusal.
                if arguments.starts(with: ["sync", "now"]) && CLIRunner.syncNowOutcomes.contains(run.status) {
                    continue
                }
                refused += 1
                #expect(run.status == 74, "\(line) exited \(run.status): \(run.standardError)")
                #expect(
                    run.standardError.contains(garbage.file.split(separator: "/").last.map(String.init) ?? "?"),
                    "\(line) did not name the file: \(run.standardError)")
                #expect(try cli.worldDigest() == before, "\(line) wrote to the world")
            }
        }
        print(
            "garbage torture (seed \(Self.seed)): \(cases.count) of \(all.count) case(s), \(runs) command(s), "
                + "\(refused) refused with 74")
    }

    // MARK: Races

    /// A writing command, and what must hold afterwards when it was acknowledged (exited 0).
    struct Write {
        let arguments: [String]
        let check: (CLIRunner, String) throws -> Bool
    }

    static func deviceEntry(_ cli: CLIRunner, _ name: String) throws -> [String: Any] {
        let list = try cli.ok("device", "list", "--json").json["devices"] as? [[String: Any]] ?? []
        return list.first { $0["name"] as? String == name } ?? [:]
    }

    static func recordNames(_ cli: CLIRunner, _ device: String) throws -> Set<String> {
        let records = try cli.ok("record", "list", "--device", device, "--json").json["records"] as? [[String: Any]]
        return Set((records ?? []).compactMap { $0["name"] as? String })
    }

    /// The world the writes of ``writes(round:)`` act on: A and B launched (alice, sync on), U installed with sync off.
    static func writersWorld() throws -> CLIRunner {
        let cli = try CLIRunner.world(launching: "A", "B")
        try cli.ok("device", "add", "U", "--account", "alice", "--sync", "off")
        return cli
    }

    /// Writes on devices A and B (alice, syncing) and U (sync off: its build may lose the entitlement without its
    /// resumed app trapping as CloudKit does, docs/launch.md trap 2). Each pair is of changes that commute, so both
    /// must survive.
    static func writes(round: Int) -> [Write] {
        [
            Write(arguments: ["account", "sign-in", "bob\(round)", "--device", "U"]) { cli, _ in
                try deviceEntry(cli, "U")["account"] as? String == "bob\(round)"
            },
            Write(arguments: ["device", "upgrade", "U", "--entitlement", round % 2 == 0 ? "off" : "on"]) { cli, _ in
                try deviceEntry(cli, "U")["entitlement"] as? Bool == (round % 2 != 0)
            },
            Write(arguments: ["record", "add", "CheckIn", "--device", "A", "--field", "mood=1", "--field", "date=now"])
            { cli, output in
                try recordNames(cli, "A").contains(output.trimmingCharacters(in: .whitespacesAndNewlines))
            },
            Write(arguments: [
                "record", "add", "Baseline", "--device", "B", "--field", "metric=hrv", "--field",
                "value=2", "--field", "computedAt=now", "--field", "windowDays=7",
            ]) { cli, output in
                try recordNames(cli, "B").contains(output.trimmingCharacters(in: .whitespacesAndNewlines))
            },
            Write(arguments: [
                "account", "status", "--set", round % 2 == 0 ? "restricted" : "available",
                "--device", "B",
            ]) { cli, _ in
                try deviceEntry(cli, "B")["accountStatus"] as? String == (round % 2 == 0 ? "restricted" : "available")
            },
            Write(arguments: ["device", "add", "C\(round)", "--account", "alice"]) { cli, _ in
                try deviceEntry(cli, "C\(round)")["account"] as? String == "alice"
            },
            Write(arguments: ["sync", round % 2 == 0 ? "off" : "on", "--device", "B"]) { cli, _ in
                try deviceEntry(cli, "B")["syncPreference"] as? Bool == (round % 2 != 0)
            },
            Write(arguments: ["fault", "inject", "zone-busy", "--account", "carol\(round)"]) { cli, _ in
                let waiting = try cli.ok("fault", "list", "--json").json["waiting"] as? [[String: Any]] ?? []
                return waiting.contains { $0["account"] as? String == "carol\(round)" }
            },
            Write(arguments: ["sync", "now", "--device", "B"]) { _, _ in true },
        ]
    }

    @Test("seeded pairs of writing commands racing: every acknowledged change survives")
    func racingWritesAllSurvive() throws {
        let rounds = Int(Self.environment["PRIVATESYNC_TORTURE_RACES"] ?? "") ?? 20
        let cli = try Self.writersWorld()
        var random = SeededGenerator(seed: Self.seed)
        var acknowledged = 0
        for round in 0..<rounds {
            let writes = Self.writes(round: round)
            var pair = Array(writes.indices.shuffled(using: &random).prefix(2))
            // Two writes to one setting do not commute; the harness races writes to different things.
            if writes[pair[0]].arguments.prefix(2) == writes[pair[1]].arguments.prefix(2) { pair = [pair[0]] }
            let children = try pair.map { try TortureKillTests.Child.start(cli, writes[$0].arguments) }
            for (index, child) in zip(pair, children) {
                let (status, output) = child.finish()
                let line = "round \(round) (seed \(Self.seed)): \(writes[index].arguments.joined(separator: " "))"
                let done = status == 0 || Self.isSyncNowOutcome(writes[index].arguments, status)
                #expect(done, "\(line) exited \(status ?? -1)")
                if status == 0 {
                    acknowledged += 1
                    #expect(try writes[index].check(cli, output), "\(line): the acknowledged change was lost")
                }
            }
        }
        print("race torture (seed \(Self.seed)): \(rounds) round(s), \(acknowledged) acknowledged change(s) checked")
        for file in try TortureKillTests.databaseFiles(cli.home) {
            let connection = try Connection(path: file, mode: .readOnly)
            #expect(try connection.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"], "\(file) is corrupt")
        }
    }

    // MARK: Signals

    /// A command started with every signal unblocked and at its default action (the test runner's threads may
    /// block or ignore SIGTERM and SIGINT, and a child inherits both), so that a signal sent lands.
    struct SignalableChild {
        let pid: pid_t
        let output: Int32

        static func start(_ cli: CLIRunner, _ arguments: [String]) throws -> SignalableChild {
            var pipeEnds: [Int32] = [0, 0]
            guard pipe(&pipeEnds) == 0 else { throw CocoaError(.fileWriteUnknown) }
            #if canImport(Darwin)
                var actions: posix_spawn_file_actions_t? = nil  // an opaque pointer on Darwin, a struct in Glibc
                var attributes: posix_spawnattr_t? = nil
            #else
                var actions = posix_spawn_file_actions_t()
                var attributes = posix_spawnattr_t()
            #endif
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var empty = sigset_t()
            sigemptyset(&empty)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGTERM, SIGINT] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigmask(&attributes, &empty)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let argv = ([CLIRunner.binary, "--home", cli.home] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid = pid_t()
            #if canImport(Darwin)
                let spawned = posix_spawn(
                    &pid, CLIRunner.binary, &actions, &attributes, argv, _NSGetEnviron().pointee)
            #else
                let spawned = posix_spawn(&pid, CLIRunner.binary, &actions, &attributes, argv, environ)
            #endif
            close(pipeEnds[1])
            guard spawned == 0 else {
                close(pipeEnds[0])
                throw CocoaError(.fileReadUnknown)
            }
            return SignalableChild(pid: pid, output: pipeEnds[0])
        }

        /// Whether it still runs.
        var isRunning: Bool { kill(pid, 0) == 0 && waitpid(pid, nil, WNOHANG) == 0 }

        /// Waits; returns the exit status, or `nil` when a signal ended it, and the standard output.
        func finish() -> (Int32?, String) {
            let output = FileHandle(fileDescriptor: self.output, closeOnDealloc: true).readDataToEndOfFile()
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let exited = (status & 0x7F) == 0
            return (exited ? (status >> 8) & 0xFF : nil, String(decoding: output, as: UTF8.self))
        }
    }

    @Test("SIGTERM, SIGINT and SIGKILL at seeded moments of writing commands lose nothing acknowledged")
    func signalsLoseNothing() throws {
        let target = Int(Self.environment["PRIVATESYNC_TORTURE_SIGNALS"] ?? "") ?? 15
        let cli = try Self.writersWorld()
        var random = SeededGenerator(seed: Self.seed)
        let signals = [SIGTERM, SIGINT, SIGKILL]
        var landed: [Int32: Int] = [:]
        var acknowledged: [(Write, String)] = []
        var round = 0
        while landed.values.reduce(0, +) < target {
            round += 1
            try #require(round <= target * 10, "only \(landed) signals landed in \(round - 1) rounds")
            let writes = Self.writes(round: round).filter { $0.arguments.first != "fault" }
            let write = writes[Int(random.next() % UInt64(writes.count))]
            let signal = signals[round % signals.count]
            let child = try SignalableChild.start(cli, write.arguments)
            usleep(UInt32(random.next() % 30_000))
            kill(child.pid, signal)
            let (status, output) = child.finish()
            if status == nil || (status ?? 0) >= 128 {
                landed[signal, default: 0] += 1
            } else {
                #expect(
                    status == 0 || Self.isSyncNowOutcome(write.arguments, status),
                    "\(write.arguments.joined(separator: " ")) exited \(status ?? -1)")
                // A later write may change the same setting; record adds and device adds stay true for good.
                if ["add"].contains(write.arguments[1]) { acknowledged.append((write, output)) }
            }
            // The interrupted app is opened again, as a user would.
            for device in ["A", "B"] { try cli.ok("launch", "--device", device) }
        }
        for (write, output) in acknowledged {
            #expect(try write.check(cli, output), "\(write.arguments.joined(separator: " ")): acknowledged, then lost")
        }
        print(
            "signal torture (seed \(Self.seed)): \(round) round(s); landed mid-flight: SIGTERM \(landed[SIGTERM] ?? 0), "
                + "SIGINT \(landed[SIGINT] ?? 0), SIGKILL \(landed[SIGKILL] ?? 0); \(acknowledged.count) acknowledged "
                + "add(s) checked")
        #expect(try cli.run(["audit"]).status == 0)
        for file in try TortureKillTests.databaseFiles(cli.home) {
            let connection = try Connection(path: file, mode: .readOnly)
            #expect(try connection.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"], "\(file) is corrupt")
        }
    }
}
