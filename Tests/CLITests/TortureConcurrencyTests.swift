import Foundation
import PrivateSyncSQLite
import Synchronization
import Testing

/// Many processes on one file: clients (threads, each running `privatesync` commands one after another) work on
/// the same device store, the same container file, the same fault file, at once, for many rounds; afterwards the
/// history of what every command answered is checked against the world, as Jepsen checks a history.
///
/// - Acknowledged means present: every `record add` that exited 0 is on its device, with the fields it was given,
///   unless an acknowledged `record delete` removed it; after everyone syncs, it is in the account's container and
///   on every device of the account.
/// - Acknowledged deletes stay deleted, on the device and in the container.
/// - Every command ends in a documented outcome (a write or a read: 0; `sync now`: 0, 69, 75 or 78), never 74.
/// - Every database file passes `PRAGMA integrity_check`; `audit` and `audit --convergence` are clean.
///
/// Which command each client runs next is drawn from a seeded generator (`PRIVATESYNC_TORTURE_SEED`, 11 by
/// default); how the clients' commands interleave is the machine's, which is the point. `make test` runs each
/// workload at its short size; `make torture` multiplies every client's rounds (`PRIVATESYNC_TORTURE_PROCESSES`,
/// 1 by default; `make torture` sets 8). The bug this suite was written for (issue 22: a descriptor of a database
/// file closed while a connection of the process had it open) lost acknowledged writes in every workload at the
/// short size.
@Suite("Torture: many processes on one file", .serialized)
struct TortureConcurrencyTests {
    static let environment = ProcessInfo.processInfo.environment
    static var seed: UInt64 { UInt64(environment["PRIVATESYNC_TORTURE_SEED"] ?? "") ?? 11 }
    static var scale: Int { max(1, Int(environment["PRIVATESYNC_TORTURE_PROCESSES"] ?? "") ?? 1) }

    /// One command as it ran: what a client asked, what it answered, and when, in the order of a counter every
    /// client advances at each start and end (so "A ended before B started" is known without a clock).
    struct Operation: Sendable {
        let client: Int
        let arguments: [String]
        let status: Int32
        let output: String
        let error: String
        let started: Int
        let ended: Int

        var isAcknowledged: Bool { status == 0 }
        /// Whether the command was killed (SIGKILL) before it answered: it may or may not have taken effect.
        var wasKilled: Bool { status == Self.killedStatus }
        /// The status recorded for a command killed before it answered.
        static let killedStatus: Int32 = -9
        var command: String { arguments.prefix(2).joined(separator: " ") }
        var line: String { "client \(client): privatesync \(arguments.joined(separator: " ")) -> \(status) \(error)" }
    }

    /// What a client does next: its next command, given its index and its step (or `nil` to stop), from the state
    /// the history has reached (the records the client has added so far, say).
    typealias Client = @Sendable (_ step: Int, _ history: [Operation]) -> [String]?

    /// Where the clients' threads record what they did.
    final class Recorder: Sendable {
        let operations = Mutex<[Operation]>([])
        /// Advanced at every start and end of a command.
        let clock = Atomic<Int>(0)
    }

    /// Runs every client on its own thread until each returns `nil`, and returns the history.
    ///
    /// - Parameters:
    ///   - cli: The world.
    ///   - clients: The clients; each runs its commands one after another.
    ///   - killers: Clients whose every command is killed with SIGKILL at a moment drawn from the seed, unless it
    ///     answered first: after 1 to 64 more starts and ends of the other clients' commands (the history's own
    ///     clock, not the wall's), so that it dies at a different point of its work each time.
    /// - Returns: The history, in the order the commands started.
    static func run(_ cli: CLIRunner, _ clients: [Client], killers: [Client] = []) -> [Operation] {
        let recorder = Recorder()
        let done = DispatchGroup()
        let all = clients.map { ($0, false) } + killers.map { ($0, true) }
        for (index, (client, kills)) in all.enumerated() {
            done.enter()
            let thread = Thread {
                var step = 0
                var random = SeededGenerator(seed: seed &+ 7_919 &* UInt64(index))
                while let arguments = client(step, recorder.operations.withLock { $0.filter { $0.client == index } }) {
                    let started = recorder.clock.add(1, ordering: .sequentiallyConsistent).newValue
                    let run =
                        (try? kills
                            ? Self.runKilled(
                                cli, arguments, at: started + Int.random(in: 1...64, using: &random), recorder)
                            : cli.run(arguments))
                        ?? CLIRunner.Run(status: -2, signal: nil, standardOutput: "", standardError: "did not start")
                    let ended = recorder.clock.add(1, ordering: .sequentiallyConsistent).newValue
                    recorder.operations.withLock {
                        $0.append(
                            Operation(
                                client: index, arguments: arguments, status: run.status, output: run.standardOutput,
                                error: run.standardError, started: started, ended: ended))
                    }
                    step += 1
                }
                done.leave()
            }
            thread.start()
        }
        done.wait()
        return recorder.operations.withLock { $0 }.sorted { $0.started < $1.started }
    }

    /// Runs a command and kills it with SIGKILL once the history's clock reaches `moment`, unless it answered
    /// first; a killed command is recorded with ``Operation/killedStatus``.
    static func runKilled(
        _ cli: CLIRunner, _ arguments: [String], at moment: Int, _ recorder: Recorder
    ) throws
        -> CLIRunner.Run
    {
        let process = cli.process(arguments)
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Waits on the other clients' progress, not on time: the moment is a point in the history.
        while process.isRunning && recorder.clock.load(ordering: .sequentiallyConsistent) < moment { sched_yield() }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return CLIRunner.Run(
            status: killed ? Operation.killedStatus : process.terminationStatus, signal: killed ? SIGKILL : nil,
            standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }

    // MARK: Commands

    static func addNote(_ device: String, title: String) -> [String] {
        [
            "record", "add", "Note", "--device", device, "--field", "title=\(title)", "--field", "body=b", "--field",
            "date=now",
        ]
    }

    static func syncNow(_ device: String) -> [String] { ["sync", "now", "--device", device] }

    /// A client that adds a note on `device` at each of its first `rounds` steps, titled `prefix` and the step.
    static func adding(on device: String, _ rounds: Int, titled prefix: String) -> Client {
        { step, _ in step < rounds ? addNote(device, title: "\(prefix)\(step)") : nil }
    }

    /// The start of a one-device race: a world with device A launched, and a client adding `base` notes (times the
    /// scale) titled `prefix` and the step, for the workload to race.
    static func racingAddsOnA(
        _ base: Int, titled prefix: String
    ) throws -> (cli: CLIRunner, rounds: Int, adds: Client) {
        let rounds = base * scale
        return (try CLIRunner.world(launching: "A"), rounds, adding(on: "A", rounds, titled: prefix))
    }

    /// What a client draws its next command from: its device (A for an even client, B for an odd one), a generator
    /// seeded by the run's seed, the client and the step, and the notes acknowledged so far.
    struct Draw {
        let device: String
        var random: SeededGenerator
        let mine: [String]

        init(seed: UInt64, client: Int, step: Int, history: [Operation]) {
            device = client % 2 == 0 ? "A" : "B"
            random = SeededGenerator(seed: seed &+ UInt64(client) &* 1_000_003 &+ UInt64(step))
            mine = TortureConcurrencyTests.acknowledgedNotes(history).present.keys.sorted()
        }

        /// Deletes one of the acknowledged notes (there must be one), drawn.
        mutating func deleteMine() -> [String] {
            ["record", "delete", mine.randomElement(using: &random)!, "--device", device]
        }

        /// Sets the body of one of the acknowledged notes (there must be one), drawn, to `body`.
        mutating func editMine(_ body: String) -> [String] {
            ["record", "edit", mine.randomElement(using: &random)!, "--device", device, "--field", body]
        }
    }

    /// The records `device` lists, by name: their titles.
    static func titles(_ cli: CLIRunner, _ device: String) throws -> [String: String] {
        let list = try cli.ok("record", "list", "--device", device, "--json").json["records"] as? [[String: Any]]
        var titles: [String: String] = [:]
        for record in list ?? [] {
            guard let name = record["name"] as? String else { continue }
            titles[name] = (record["fields"] as? [String: Any])?["title"] as? String ?? ""
        }
        return titles
    }

    /// The records in `account`'s container, by name: their titles.
    static func containerTitles(_ cli: CLIRunner, _ account: String) throws -> [String: String] {
        let list =
            try cli.ok("cloud", "record", "list", "--account", account, "--json").json["records"] as? [[String: Any]]
        var titles: [String: String] = [:]
        for record in list ?? [] {
            guard let name = record["name"] as? String ?? record["recordName"] as? String else { continue }
            titles[name] = (record["fields"] as? [String: Any])?["title"] as? String ?? ""
        }
        return titles
    }

    // MARK: The checker

    /// The notes the history says must exist (added and acknowledged, with no delete after that may have taken
    /// effect: acknowledged or killed mid-way; a refused one changed nothing), by name: their titles; and the names
    /// whose delete was acknowledged.
    static func acknowledgedNotes(_ history: [Operation]) -> (present: [String: String], deleted: Set<String>) {
        var present: [String: String] = [:]
        var deleted = Set<String>()
        for operation in history where operation.isAcknowledged {
            switch operation.command {
            case "record add":
                let name = operation.output.trimmingCharacters(in: .whitespacesAndNewlines)
                let title = operation.arguments.first { $0.hasPrefix("title=") }.map { String($0.dropFirst(6)) }
                present[name] = title ?? ""
            case "record delete":
                let name = operation.arguments[2]
                present[name] = nil
                deleted.insert(name)
            default: continue
            }
        }
        // A delete killed mid-way may have committed: its record is neither promised nor forbidden.
        for operation in history where operation.wasKilled && operation.command == "record delete" {
            present[operation.arguments[2]] = nil
        }
        return (present, deleted)
    }

    /// Checks what every workload must: documented outcomes only; every acknowledged note on `devices` (each of
    /// one account) with its title, in the container after everyone synced, and no acknowledged delete undone;
    /// clean audits; sound files. When anything fails, the history is written as a timeline page (its path and the
    /// replay command printed).
    static func check(
        _ cli: CLIRunner, _ history: [Operation], devices: [String], account: String = "alice",
        outcomes: (Operation) -> Set<Int32> = Self.documentedOutcomes, workload: String = #function,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var problems: [String] = []
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            guard !condition else { return }
            problems.append(message())
            Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
        }
        defer {
            if !problems.isEmpty {
                let name = workload.split(separator: "(").first.map(String.init) ?? workload
                let replay =
                    "PRIVATESYNC_TORTURE_SEED=\(seed) PRIVATESYNC_TORTURE_PROCESSES=\(scale) "
                    + "swift test --filter TortureConcurrencyTests/\(name)"
                let page = HistoryTimeline.write(
                    title: "\(name), seed \(seed), scale \(scale)", replay: replay, problems: problems,
                    history: history)
                print("many-processes torture failed: timeline \(page ?? "(not written)"); replay: \(replay)")
            }
        }
        for operation in history {
            expect(outcomes(operation).contains(operation.status), operation.line)
        }
        let (present, deleted) = acknowledgedNotes(history)
        // Before anyone syncs again: each device holds what it acknowledged.
        for device in devices {
            let held = try titles(cli, device)
            let own = history.filter { $0.isAcknowledged && $0.arguments.contains(device) }
            let (mine, myDeletes) = acknowledgedNotes(own)
            // Killed deletes of the device's notes are in the whole history's `present`, not in `mine`.
            let lost = mine.filter { held[$0.key] != $0.value && present[$0.key] != nil }
            expect(lost.count == 0, "\(device) lost acknowledged write(s), e.g. \(lost.first.map(\.key) ?? "")")
            let undone = myDeletes.filter { held[$0] != nil }
            expect(undone.count == 0, "\(device) undid acknowledged delete(s), e.g. \(undone.first ?? "")")
        }
        // Everyone syncs, one after the other, twice: the container and every device hold the same notes.
        for _ in 0..<2 {
            for device in devices { try cli.syncNow("--device", device, sourceLocation: sourceLocation) }
        }
        let container = try containerTitles(cli, account)
        let missing = present.filter { container[$0.key] != $0.value }
        expect(
            missing.count == 0,
            "the container misses (or holds other fields for) \(missing.count) of \(present.count) acknowledged "
                + "note(s), e.g. \(missing.first.map(\.key) ?? "")")
        expect(deleted.allSatisfy { container[$0] == nil }, "the container holds an acknowledged delete")
        for device in devices {
            let held = try titles(cli, device)
            let absent = present.filter { held[$0.key] != $0.value }
            expect(absent.count == 0, "\(device) misses \(absent.count) note(s) after syncing")
            let status = try cli.ok("sync", "status", "--device", device, "--json").json
            expect(
                status["state"] as? String == "on" && status["pendingChanges"] as? Int == 0,
                "\(device) after syncing: \(status)")
        }
        for audit in [["audit"], ["audit", "--convergence"]] {
            let run = try cli.run(audit)
            expect(
                run.status == 0, "privatesync \(audit.joined(separator: " ")) -> \(run.status) \(run.standardOutput)")
        }
        for file in try TortureKillTests.databaseFiles(cli.home) {
            let connection = try Connection(path: file, mode: .readOnly)
            expect(try connection.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"], "\(file) is corrupt")
        }
        let counts = Dictionary(grouping: history, by: \.command).mapValues(\.count)
        print(
            "many-processes torture (seed \(seed), scale \(scale)): \(history.count) command(s) "
                + "\(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
                + "\(present.count) acknowledged note(s), \(deleted.count) delete(s) checked, "
                + "\(history.filter(\.wasKilled).count) killed")
    }

    /// The outcomes a command may end in under contention (docs/cli.md): 0 for a read or a write; for `sync now`,
    /// 0 finished, 69 paused, 75 to be retried, 78 off.
    static func documentedOutcomes(_ operation: Operation) -> Set<Int32> {
        operation.command == "sync now" ? CLIRunner.syncNowOutcomes : [0]
    }

    // MARK: Workloads

    @Test("four clients adding records to one device: every acknowledged add is there")
    func writersOnOneStore() throws {
        let cli = try CLIRunner.world(launching: "A")
        let rounds = 25 * Self.scale
        let history = Self.run(
            cli,
            (0..<4).map { client in
                { step, _ in step < rounds ? Self.addNote("A", title: "w\(client)-\(step)") : nil }
            })
        try Self.check(cli, history, devices: ["A"])
    }

    @Test("deletes racing sync now on one device: no delete is undone, and the device ends up to date")
    func deletesRacingSync() throws {
        let cli = try CLIRunner.world(launching: "A")
        let count = 30 * Self.scale
        let names = try (0..<count).map { index in
            try cli.ok(Self.addNote("A", title: "d\(index)")).standardOutput
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try cli.syncNow("--device", "A")
        let deletes: Client = { step, _ in
            step < names.count ? ["record", "delete", names[step], "--device", "A"] : nil
        }
        let syncs: Client = { step, _ in step < count / 2 ? Self.syncNow("A") : nil }
        let adds: Client = Self.adding(on: "A", count / 2, titled: "a")
        try Self.check(cli, Self.run(cli, [deletes, syncs, adds]), devices: ["A"])
    }

    @Test("sync off and on racing adds and syncs: no add is lost")
    func switchRacingAdds() throws {
        let (cli, rounds, adds) = try Self.racingAddsOnA(30, titled: "t")
        let switches: Client = { step, _ in
            step < rounds / 2
                ? ["sync", step % 2 == 0 ? "off" : "on", "--device", "A"]
                : (step == rounds / 2
                    ? ["sync", "on", "--device", "A"] : nil)
        }
        let syncs: Client = { step, _ in step < rounds / 2 ? Self.syncNow("A") : nil }
        try Self.check(cli, Self.run(cli, [adds, switches, syncs]), devices: ["A"])
    }

    @Test(
        "four devices of one account (sixteen in make torture) adding and syncing at once, with readers: the container holds every acknowledged note",
        arguments: ["app", "cksyncengine"]
    )
    func devicesSharingOneContainer(engine: String) throws {
        let devices = (0..<(Self.scale > 1 ? 16 : 4)).map { String(UnicodeScalar(UInt8(65 + $0))) }
        let cli = try CLIRunner.world(launchingAll: devices, engine: engine)
        let rounds = 8 * Self.scale
        let clients: [Client] = devices.map { device in
            { step, _ in
                guard step < 2 * rounds else { return nil }
                return step % 2 == 0 ? Self.addNote(device, title: "\(device)\(step)") : Self.syncNow(device)
            }
        }
        // Readers of every kind beside them: each opens (and checks) the files the writers write.
        let readers: [Client] = (0..<2).map { reader in
            { step, _ in
                guard step < 2 * rounds else { return nil }
                let device = devices[(step + reader) % devices.count]
                switch step % 4 {
                case 0: return ["sync", "status", "--device", device]
                case 1: return ["inspect", "--device", device]
                case 2: return ["audit"]
                default: return ["record", "list", "--device", device]
                }
            }
        }
        try Self.check(cli, Self.run(cli, clients + readers), devices: devices)
    }

    @Test("one writer and three readers: every read succeeds and every write is there")
    func readersBesideAWriter() throws {
        let (cli, rounds, writer) = try Self.racingAddsOnA(25, titled: "r")
        let reads: [[String]] = [
            ["record", "list", "--device", "A"], ["sync", "status", "--device", "A"], ["inspect", "--device", "A"],
        ]
        let readers: [Client] = (0..<3).map { reader in
            { step, _ in step < rounds ? reads[(step + reader) % reads.count] : nil }
        }
        try Self.check(cli, Self.run(cli, [writer] + readers), devices: ["A"])
    }

    @Test(
        "everything at once, on two devices: adds, edits, deletes, syncs, faults and the switch, drawn by the seed",
        arguments: ["app", "cksyncengine"])
    func mixedClients(engine: String) throws {
        let cli = try CLIRunner.world(launchingAll: ["A", "B"], engine: engine)
        let rounds = 20 * Self.scale
        let seed = Self.seed
        let clients: [Client] = (0..<4).map { client in
            return { step, history in
                guard step < rounds else { return nil }
                var draw = Draw(seed: seed, client: client, step: step, history: history)
                switch Int.random(in: 0..<10, using: &draw.random) {
                case 0..<4: return Self.addNote(draw.device, title: "m\(client)-\(step)")
                case 4 where !draw.mine.isEmpty:
                    return draw.deleteMine()
                case 5 where !draw.mine.isEmpty:
                    return draw.editMine("body=e\(step)")
                case 6:
                    // A delayed delivery makes the server write the container's file when it withholds a change
                    // (the zone is announced again): one more writer of that file, from any process.
                    let kind = Bool.random(using: &draw.random) ? "network-unavailable" : "delayed-delivery"
                    return ["fault", "inject", kind, "--account", "alice", "--count", "1"]
                default: return Self.syncNow(draw.device)
                }
            }
        }
        let history = Self.run(cli, clients)
        // The faults injected last may still wait; the heal after a run is with the network back.
        try cli.ok("fault", "clear")
        try Self.check(cli, history, devices: ["A", "B"])
    }

    @Test(
        "sixteen clients, every writing command, readers and SIGKILLs on two devices of one account: nothing acknowledged is lost",
        arguments: ["app", "cksyncengine"]
    )
    func sixteenClientsEveryCommand(engine: String) throws {
        let cli = try CLIRunner.world(launchingAll: ["A", "B"], engine: engine)
        let rounds = 4 * Self.scale
        let seed = Self.seed
        // Draws a client's next command: writes of every kind, the switch, the account, a new build, a launch, a
        // fault, and reads, on the client's device.
        @Sendable func command(_ client: Int, _ step: Int, _ history: [Operation], killed: Bool) -> [String] {
            var draw = Draw(seed: seed, client: client, step: step, history: history)
            // A killed client writes and syncs only: the commands whose partial effect the checker can judge.
            switch Int.random(in: 0..<(killed ? 6 : 16), using: &draw.random) {
            case 0..<3: return Self.addNote(draw.device, title: "s\(client)-\(step)")
            case 3 where !draw.mine.isEmpty:
                return draw.deleteMine()
            case 4 where !draw.mine.isEmpty:
                return draw.editMine("body=e\(client)-\(step)")
            case 5, 3, 4: return Self.syncNow(draw.device)
            case 6: return ["sync", Bool.random(using: &draw.random) ? "off" : "on", "--device", draw.device]
            case 7:
                return Bool.random(using: &draw.random)
                    ? ["account", "sign-out", "--device", draw.device]
                    : ["account", "sign-in", "alice", "--device", draw.device]
            case 8: return ["device", "upgrade", draw.device]
            case 9: return ["launch", "--device", draw.device]
            case 10: return ["fault", "inject", "network-unavailable", "--account", "alice", "--count", "1"]
            case 11: return ["sync", "status", "--device", draw.device]
            case 12: return ["inspect", "--device", draw.device]
            case 13: return ["record", "list", "--device", draw.device]
            case 14: return ["audit"]
            default: return ["account", "status", "--device", draw.device]
            }
        }
        let clients: [Client] = (0..<16).map { client in
            { step, history in step < rounds ? command(client, step, history, killed: false) : nil }
        }
        let killers: [Client] = (16..<18).map { client in
            { step, history in step < rounds ? command(client, step, history, killed: true) : nil }
        }
        let history = Self.run(cli, clients, killers: killers)
        // Everyone back: signed in, sync on, launched after the last build, with the network back.
        try cli.ok("fault", "clear")
        for device in ["A", "B"] {
            try cli.ok("account", "sign-in", "alice", "--device", device)
            try cli.ok("sync", "on", "--device", device)
            try cli.ok("launch", "--device", device)
        }
        try Self.check(cli, history, devices: ["A", "B"], outcomes: Self.everyCommandOutcomes)
    }

    /// The documented outcomes of the sixteen-client mix: a killed command ends killed; every other command ends
    /// as ``documentedOutcomes(_:)`` says, whatever runs beside it.
    static func everyCommandOutcomes(_ operation: Operation) -> Set<Int32> {
        if operation.wasKilled { return [Operation.killedStatus] }
        return documentedOutcomes(operation)
    }

    @Test("a reinstall racing adds: every add acknowledged after the reinstall ended is there, and no command fails")
    func reinstallRacingAdds() throws {
        let (cli, _, adds) = try Self.racingAddsOnA(20, titled: "i")
        let reinstalls: Client = { step, _ in
            switch step {
            case 0: return ["device", "reinstall", "A", "--sync", "on"]
            case 1: return ["launch", "--device", "A"]
            default: return nil
            }
        }
        let history = Self.run(cli, [adds, reinstalls])
        for operation in history {
            // An add that meets the app between its reinstall and its next launch is refused as never launched (66).
            let allowed: Set<Int32> = operation.command == "record add" ? [0, 66] : [0]
            #expect(allowed.contains(operation.status), "\(operation.line)")
        }
        let reinstalled = try #require(history.first { $0.command == "device reinstall" })
        let after = Self.acknowledgedNotes(history.filter { $0.started > reinstalled.ended }).present
        let held = try Self.titles(cli, "A")
        #expect(after.allSatisfy { held[$0.key] == $0.value }, "an add acknowledged after the reinstall was lost")
        #expect(
            Self.acknowledgedNotes(history.filter { $0.ended < reinstalled.started }).present.allSatisfy {
                held[$0.key] == nil
            }, "an add acknowledged before the reinstall began survived it")
        for file in try TortureKillTests.databaseFiles(cli.home) {
            let connection = try Connection(path: file, mode: .readOnly)
            #expect(try connection.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"], "\(file) is corrupt")
        }
    }

    @Test(
        "edits racing a start-fresh: every acknowledged edit is in the archive, or on the device after it",
        arguments: ["app", "cksyncengine"])
    func editsRacingStartFresh(engine: String) throws {
        let cli = try CLIRunner.world(launchingAll: ["A"], engine: engine)
        let count = 1000 * Self.scale
        let names = try cli.ok(
            "record", "add", "Note", "--device", "A", "--count", "\(count)", "--field", "title=t", "--field", "body=b",
            "--field", "date=now"
        ).standardOutput.split(separator: "\n").map(String.init)
        try cli.syncNow("--device", "A")
        try cli.ok("account", "sign-in", "bob", "--device", "A")
        let editors: [Client] = (0..<2).map { editor in
            { step, _ in
                let index = step * 2 + editor
                return index < names.count
                    ? ["record", "edit", names[index], "--device", "A", "--field", "title=e\(index)"] : nil
            }
        }
        // The start-fresh comes after a few edits of its own client (of names the editors reach last), so that edits
        // are acknowledged before it as well as during it and after it.
        let fresh: Client = { step, _ in
            switch step {
            case 0..<5:
                let index = names.count - 1 - step
                return ["record", "edit", names[index], "--device", "A", "--field", "title=e\(index)"]
            case 5: return ["account", "start-fresh", "--device", "A"]
            default: return nil
            }
        }
        let history = Self.run(cli, editors + [fresh])
        let started = try #require(history.first { $0.command == "account start-fresh" })
        #expect(started.isAcknowledged, "\(started.line)")
        // An edit after the records went to the archive finds no record (66); every other ends 0.
        for operation in history where operation.command == "record edit" {
            #expect([0, 66].contains(operation.status), "\(operation.line)")
        }
        let archive = try #require(
            FileManager.default.subpaths(atPath: cli.home)?.first {
                $0.contains("/Archives/") && $0.hasSuffix(".store")
            })
        let connection = try Connection(path: cli.home + "/" + archive, mode: .readOnly)
        let archived = Dictionary(
            uniqueKeysWithValues: try connection.query("SELECT record_name, fields FROM records") {
                ($0.text(0), $0.text(1))
            })
        var checked = 0
        for operation in history where operation.command == "record edit" && operation.isAcknowledged {
            let name = operation.arguments[2]
            let title = String(operation.arguments.last!.dropFirst("title=".count))
            #expect(archived[name]?.contains("\"\(title)\"") == true, "\(operation.line): the edit is not archived")
            checked += 1
        }
        #expect(checked >= 5, "fewer edits were acknowledged before the start-fresh than its own client made")
        print("start-fresh torture (scale \(Self.scale)): \(checked) acknowledged edit(s) found in the archive")
    }

    @Test("two start-fresh of one device at once: one archives, the other finds nothing left to do (65), never 74")
    func startFreshTwiceAtOnce() throws {
        let cli = try CLIRunner.world(launching: "A")
        try cli.addNote(on: "A", "--count", "20")
        try cli.syncNow("--device", "A")
        for round in 0..<(5 * Self.scale) {
            try cli.ok("account", "sign-in", "bob", "--device", "A")
            let history = Self.run(
                cli, (0..<2).map { _ in { step, _ in step == 0 ? ["account", "start-fresh", "--device", "A"] : nil } })
            #expect(history.map(\.status).sorted() == [0, 65], "round \(round): \(history.map(\.line))")
            // Back on alice before syncing with bob: the archive comes back at the next sync, whole.
            try cli.ok("account", "sign-in", "alice", "--device", "A")
            try cli.syncNow("--device", "A")
            #expect(try Self.titles(cli, "A").count == 20, "round \(round): the records did not all come back")
        }
    }

    @Test(
        "one chosen name added to both stores at once: at most one add succeeds",
        arguments: ["app", "cksyncengine"])
    func chosenNameRacingAcrossStores(engine: String) throws {
        let cli = try CLIRunner.world(launchingAll: ["A"], engine: engine)
        let rounds = 10 * Self.scale
        var both = 0
        for round in 0..<rounds {
            let name = "chosen-\(round)"
            let history = Self.run(
                cli,
                [
                    { step, _ in step == 0 ? Self.addNote("A", title: "n") + ["--name", name] : nil },
                    { step, _ in
                        step == 0
                            ? [
                                "record", "add", "Baseline", "--device", "A", "--name", name, "--field", "metric=hrv",
                                "--field", "value=1", "--field", "computedAt=now", "--field", "windowDays=7",
                            ] : nil
                    },
                ])
            let acknowledged = history.filter(\.isAcknowledged).count
            #expect(acknowledged == 1, "round \(round): \(history.map(\.line))")
            if acknowledged == 2 { both += 1 }
        }
        #expect(both == 0)
    }

    @Test("one device name added by two processes at once: exactly one installs it")
    func deviceAddRacing() throws {
        let cli = try CLIRunner.world(launching: "A")
        for round in 0..<(40 * Self.scale) {
            let history = Self.run(
                cli,
                (0..<2).map { client in
                    { step, _ in
                        step == 0 ? ["device", "add", "D\(round)", "--account", client == 0 ? "alice" : "bob"] : nil
                    }
                })
            #expect(history.filter(\.isAcknowledged).count == 1, "round \(round): \(history.map(\.line))")
            #expect(history.allSatisfy { $0.status == 0 || $0.status == 65 }, "\(history.map(\.line))")
            let winner = try #require(history.first { $0.isAcknowledged })
            let listed = try TortureFilesTests.deviceEntry(cli, "D\(round)")
            #expect(listed["account"] as? String == winner.arguments[4], "the installed device is the winner's")
        }
    }
}
