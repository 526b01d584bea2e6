import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import PrivateSyncSQLite
import SimulatedWorld
import Simulator

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `make bench`: every figure is a ratio against a baseline measured in the same run, because these machines are
/// noisy. One line per figure (`name value` then the inputs), then a table.
@main
struct Bench {
    struct Figure {
        let name: String
        let value: Double
        let goal: String
        let met: Bool
        let inputs: String
    }

    static let identifier = try! ContainerIdentifier("iCloud.com.example.bench")
    static let alice = try! AccountID("alice")
    static let zone = ZoneID(uncheckedName: SyncEngine.defaultZoneName)

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "initial-sync", arguments.count == 3, let count = Int(arguments[2]) {
            await initialSyncChild(home: arguments[1], records: count)
            return
        }
        if arguments.first == "save-only", arguments.count == 2, let count = Int(arguments[1]) {
            // For profiling the container's save path alone: `valgrind --tool=callgrind privatesync-bench save-only N`.
            await saveOnly(records: count)
            return
        }
        var cli: String?
        if let index = arguments.firstIndex(of: "--cli"), index + 1 < arguments.count { cli = arguments[index + 1] }
        do {
            try await run(cli: cli, keep: arguments.contains("--keep"))
        } catch {
            writeError("bench failed: \(error)")
            exit(70)
        }
    }

    /// Measures every figure.
    ///
    /// - Parameters:
    ///   - cli: The `privatesync` binary, for `status_vs_sqlite3`.
    ///   - keep: Whether to keep the worlds measured (their folder is printed), to profile a figure on them.
    static func run(cli: String?, keep: Bool) async throws {
        let scratch = try temporaryFolder()
        defer {
            if keep { print("worlds kept in \(scratch)") } else { try? FileSystem.removeItem(scratch) }
        }
        var figures: [Figure] = []
        func report(_ figure: Figure) {
            figures.append(figure)
            print("\(figure.name) \(format(figure.value)) \(figure.inputs)")
        }

        // 1. Saving through the container against raw SQLite inserting the same rows.
        let records = (0..<100_000).map { BenchSchema.record($0, zone: zone) }
        // Batch by batch, alternately, so that both meet the same disk: an fsync's cost drifts within a run.
        let (big, bigContainer) = try await world(at: scratch + "/big", records: [])
        let raw = try RawInserter(path: scratch + "/raw.sqlite", records: records)
        var containerSeconds = 0.0
        var rawSeconds = 0.0
        for start in stride(from: 0, to: records.count, by: 400) {
            containerSeconds += try await time {
                let result = try await bigContainer.modifyRecords(
                    saving: Array(records[start..<start + 400]), deleting: [])
                if let failure = result.partialFailure { throw failure }
            }
            rawSeconds += try raw.insert(start..<start + 400)
        }
        let rawRate = 100_000 / rawSeconds
        let containerRate = 100_000 / containerSeconds
        report(
            Figure(
                name: "container_save_ratio", value: containerRate / rawRate, goal: ">= 0.5",
                met: containerRate / rawRate >= 0.5,
                inputs:
                    "records=100000 batch=400 fields=10 bytes≈\(records[0].encodedSize) container=\(Int(containerRate))/s "
                    + "sqlite=\(Int(rawRate))/s journal=wal synchronous=full"))

        // 2. Fetching 100 changes in a zone of 100,000 records, against the same in a zone of 1,000.
        let (small, smallContainer) = try await world(at: scratch + "/small", records: records.prefix(1000))
        let bigFetch = try await fetchHundredChanges(bigContainer, zoneSize: 100_000)
        let smallFetch = try await fetchHundredChanges(smallContainer, zoneSize: 1000)
        report(
            Figure(
                name: "fetch_changes_scaling", value: bigFetch / smallFetch, goal: "<= 1.5",
                met: bigFetch / smallFetch <= 1.5,
                inputs:
                    "changes=100 zones=100000/1000 median_ms=\(format(bigFetch * 1000))/\(format(smallFetch * 1000)) runs=41"
            ))

        // 3. A fresh device pulling every record into its store, each size in a process of its own (peak memory).
        let (twenty, _) = try await world(at: scratch + "/twenty", records: records.prefix(20_000))
        let pull20 = try initialSync(home: twenty.home, records: 20_000)
        let pull100 = try initialSync(home: big.home, records: 100_000)
        let pullRate = 100_000 / pull100.seconds
        report(
            Figure(
                name: "initial_sync_ratio", value: pullRate / rawRate, goal: ">= 0.25", met: pullRate / rawRate >= 0.25,
                inputs: "records=100000 page=400 device=\(Int(pullRate))/s sqlite=\(Int(rawRate))/s"))
        report(
            Figure(
                name: "initial_sync_peak_rss_mb", value: pull100.rssMB, goal: "<= 200", met: pull100.rssMB <= 200,
                inputs:
                    "records=100000 rss_mb_at_20000=\(format(pull20.rssMB)) rss_mb_at_100000=\(format(pull100.rssMB))"))

        // 4. One device's sync with 10 pending changes, in a store of 100,000 records against one of 1,000.
        try await seedSmallDevice(small)
        let incrementalBig = try await incrementalSync(big, device: "fresh-100000")
        let incrementalSmall = try await incrementalSync(small, device: "fresh-1000")
        report(
            Figure(
                name: "incremental_sync_scaling", value: incrementalBig / incrementalSmall, goal: "<= 1.5",
                met: incrementalBig / incrementalSmall <= 1.5,
                inputs:
                    "pending=10 stores=100000/1000 median_ms=\(format(incrementalBig * 1000))/\(format(incrementalSmall * 1000)) runs=15"
            ))

        // 5. `privatesync sync status` against `sqlite3 FILE 'select count(*) from records'` on the same world.
        if let cli, FileSystem.exists("/usr/bin/sqlite3") {
            let containerFile = small.containerPath(account: alice)
            let statusTime = try medianProcessTime(
                cli, ["--home", small.home, "sync", "status", "--device", "fresh-1000"])
            let sqliteTime = try medianProcessTime("/usr/bin/sqlite3", [containerFile, "select count(*) from records"])
            report(
                Figure(
                    name: "status_vs_sqlite3", value: statusTime / sqliteTime, goal: "<= 3",
                    met: statusTime / sqliteTime <= 3,
                    inputs:
                        "records=1000 median_ms=\(format(statusTime * 1000))/\(format(sqliteTime * 1000)) runs=41 cli=\(cli)"
                ))
        } else {
            print("status_vs_sqlite3 skipped: needs --cli PATH and /usr/bin/sqlite3")
        }

        // 6. Simulated seconds per real second of the default simulator run.
        var simulated = 0.0
        let simulationSeconds = await time {
            for seed in UInt64(0)..<20 {
                simulated += await Simulation.run(SimulationOptions(seed: seed)).simulatedSeconds
            }
        }
        report(
            Figure(
                name: "simulated_speedup", value: simulated / simulationSeconds, goal: ">= 100000",
                met: simulated / simulationSeconds >= 100_000,
                inputs:
                    "seeds=20 steps=\(SimulationOptions.defaultSteps) simulated_s=\(Int(simulated)) real_s=\(format(simulationSeconds))"
            ))

        // Not a goal: what verifying a whole file costs, which the CLI does on every open.
        let checkBig = try quickCheckSeconds(big.containerPath(account: alice))
        print("integrity_check_ms \(format(checkBig * 1000)) file=container records=100000")

        print("")
        print("figure                     value        goal        met")
        for figure in figures {
            print(
                pad(figure.name, 27) + pad(format(figure.value), 13) + pad(figure.goal, 12)
                    + (figure.met ? "yes" : "NO"))
        }
    }

    // MARK: Measurements

    /// A world with the bench schema, and alice's container holding `records` (saved 400 at a time).
    static func world(at home: String, records: ArraySlice<Record>) async throws -> (World, FileContainer) {
        let world = try World.create(
            at: home, partition: BenchSchema.partition, containerIdentifier: identifier,
            options: World.Options(backend: .file))
        let container = FileContainer(
            cloudRoot: world.cloudRoot, identifier: identifier, session: AccountSession(account: alice))
        _ = try await container.saveZones([RecordZone(zoneID: zone)])
        for start in stride(from: records.startIndex, to: records.endIndex, by: 400) {
            let result = try await container.modifyRecords(
                saving: Array(records[start..<min(start + 400, records.endIndex)]), deleting: [])
            if let failure = result.partialFailure { throw failure }
        }
        return (world, container)
    }

    static func time(_ body: () async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        return seconds(clock.now - start)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Raw SQLite inserting the same rows into a table of the same shape, with the container's settings: the
    /// physical baseline. The fields are encoded beforehand, so the baseline pays for SQLite alone.
    final class RawInserter {
        let connection: Connection
        let insert: Statement
        let records: [Record]
        let rows: [[UInt8]]

        init(path: String, records: [Record]) throws {
            connection = try Connection(path: path, mode: .readWriteCreate)
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = FULL")
            try connection.execute(
                """
                CREATE TABLE records (
                    zone_name TEXT NOT NULL, record_name TEXT NOT NULL, record_type TEXT NOT NULL, fields TEXT NOT NULL,
                    change_tag TEXT NOT NULL, change_seq INTEGER NOT NULL, created_at REAL NOT NULL,
                    modified_at REAL NOT NULL, creator TEXT NOT NULL, last_modifier TEXT NOT NULL,
                    PRIMARY KEY (zone_name, record_name));
                CREATE INDEX records_by_change ON records (zone_name, change_seq);
                """)
            insert = try connection.prepare(
                """
                INSERT INTO records (zone_name, record_name, record_type, fields, change_tag, change_seq, created_at,
                    modified_at, creator, last_modifier) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            self.records = records
            rows = records.map { FieldsJSON.encode($0.fields) }
        }

        /// Inserts the rows at `indices` in one transaction; returns the seconds it took.
        func insert(_ indices: Range<Int>) throws -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            try connection.transaction {
                for index in indices {
                    try insert.bind(records[index].recordID.zoneID.zoneName, at: 1)
                    try insert.bind(records[index].recordID.recordName, at: 2)
                    try insert.bind(records[index].recordType, at: 3)
                    try insert.bindText(rows[index], at: 4)
                    try insert.bind("tag\(index)", at: 5)
                    try insert.bind(Int64(index), at: 6)
                    try insert.bind(788_918_400.0, at: 7)
                    try insert.bind(788_918_400.0, at: 8)
                    try insert.bind("_user", at: 9)
                    try insert.bind("_user", at: 10)
                    try insert.run()
                }
            }
            return seconds(clock.now - start)
        }
    }

    /// The median time to fetch 100 changed records since a token.
    static func fetchHundredChanges(_ container: FileContainer, zoneSize: Int) async throws -> Double {
        var token: ChangeToken?
        var more = true
        while more {
            let page = try await container.recordZoneChanges(in: zone, since: token, resultsLimit: nil)
            token = page.changeToken
            more = page.moreComing
        }
        let edited = (0..<100).map { index -> Record in
            var record = BenchSchema.record(index * (zoneSize / 100), zone: zone)
            record["note"] = .string("edited")
            return record
        }
        _ = try await container.modifyRecords(saving: edited, deleting: [], savePolicy: .allKeys, atomically: true)
        var samples: [Double] = []
        for _ in 0..<41 {
            let taken = try await time {
                let page = try await container.recordZoneChanges(in: zone, since: token, resultsLimit: nil)
                precondition(page.modifications.count == 100)
            }
            samples.append(taken)
        }
        return median(samples)
    }

    /// Runs a fresh device's initial sync in a child process: its rate and its peak memory.
    static func initialSync(home: String, records: Int) throws -> (seconds: Double, rssMB: Double) {
        let output = try runChild(ChildProcess.currentExecutable, ["initial-sync", home, String(records)])
        let parts = output.split(separator: " ")
        guard parts.count == 2, let seconds = Double(parts[0]), let rss = Double(parts[1]) else {
            throw BenchError("the initial-sync child printed '\(output)'")
        }
        return (seconds, rss / 1024)
    }

    /// The child: add a device, launch it, sync until the first download finished; print seconds and peak RSS (KB).
    static func initialSyncChild(home: String, records: Int) async {
        do {
            let world = try World.open(at: home)
            let name = "fresh-\(records)"
            try world.addDevice(name, account: alice, syncPreference: true)
            let app = try world.launch(name)
            let seconds = try await time {
                while try app.engine?.state().initialFetchDone != true {
                    guard let report = await app.sync(force: true), report.outcome == .succeeded else {
                        throw BenchError("the initial sync failed")
                    }
                }
            }
            guard try app.stores.userCreated.count() == records else {
                throw BenchError("the device did not get every record")
            }
            print("\(seconds) \(try peakResidentKilobytes())")
        } catch {
            writeError("initial-sync failed: \(error)")
            exit(70)
        }
    }

    /// This process's peak resident set size, in KB: on Linux `VmHWM` from `/proc/self/status`, on Darwin
    /// `getrusage`'s `ru_maxrss` (in bytes there).
    ///
    /// Not `getrusage` on Linux: it carries `ru_maxrss` across `execve`, and a child spawned with `vfork` semantics
    /// (`posix_spawn`) inherits its parent's peak, so the child would report the bench's own memory. Darwin's
    /// `posix_spawn` makes a new task, whose peak starts afresh.
    static func peakResidentKilobytes() throws -> Int {
        #if os(Linux)
            let status = String(decoding: try FileSystem.read("/proc/self/status"), as: UTF8.self)
            for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
                if let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first,
                    let kilobytes = Int(value)
                {
                    return kilobytes
                }
            }
            throw BenchError("no VmHWM in /proc/self/status")
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { throw BenchError("getrusage failed: errno \(errno)") }
            return Int(usage.ru_maxrss) / 1024
        #endif
    }

    /// Saves `count` records through the file container, 400 at a time, in a scratch world; prints the rate.
    static func saveOnly(records count: Int) async {
        do {
            let scratch = try temporaryFolder()
            defer { try? FileSystem.removeItem(scratch) }
            let records = (0..<count).map { BenchSchema.record($0, zone: zone) }
            let (_, container) = try await world(at: scratch + "/save", records: [])
            let seconds = try await time {
                for start in stride(from: 0, to: records.count, by: 400) {
                    let result = try await container.modifyRecords(
                        saving: Array(records[start..<min(start + 400, records.count)]), deleting: [])
                    if let failure = result.partialFailure { throw failure }
                }
            }
            print("container_save records=\(count) rate=\(Int(Double(count) / seconds))/s")
        } catch {
            writeError("save-only failed: \(error)")
            exit(70)
        }
    }

    /// Gives the small world a device that pulled its 1,000 records, as the big world's device pulled 100,000.
    static func seedSmallDevice(_ world: World) async throws {
        _ = try initialSync(home: world.home, records: 1000)
    }

    /// The median time of one sync that sends 10 changes, on a device whose store is already full.
    static func incrementalSync(_ world: World, device: String) async throws -> Double {
        let app = try world.resume(device)
        let store = app.stores.userCreated
        let names = try store.records().prefix(10).map(\.name)
        var samples: [Double] = []
        for round in 0..<16 {
            for name in names { try store.update(name, setting: ["mood": .int64(Int64(round))]) }
            let taken = try await time {
                guard let report = await app.sync(force: true), report.sentSaves == 10 else {
                    throw BenchError("the incremental sync did not send 10 changes")
                }
            }
            if round > 0 { samples.append(taken) }
        }
        return median(samples)
    }

    /// The median wall time of a command, over 41 runs.
    static func medianProcessTime(_ executable: String, _ arguments: [String]) throws -> Double {
        _ = try runChild(executable, arguments)
        var samples: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<41 {
            let start = clock.now
            _ = try runChild(executable, arguments)
            samples.append(seconds(clock.now - start))
        }
        return median(samples)
    }

    static func quickCheckSeconds(_ path: String) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let connection = try Connection(path: path, mode: .readOnly)
        _ = try connection.quickCheckProblems()
        return seconds(clock.now - start)
    }

    // MARK: Helpers

    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        return sorted[sorted.count / 2]
    }

    static func format(_ value: Double) -> String {
        if value >= 1000 { return String(Int(value.rounded())) }
        let scaled = (value * 100).rounded() / 100
        return String(scaled)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func temporaryFolder() throws -> String {
        try FileSystem.makeTemporaryDirectory(prefix: "privatesync-bench")
    }

    /// Runs a program and returns its standard output (new lines removed); throws when it fails.
    static func runChild(_ executable: String, _ arguments: [String]) throws -> String {
        guard let result = ChildProcess.run(executable, arguments) else { throw BenchError("cannot run \(executable)") }
        guard result.termination == .exited(0) else {
            throw BenchError(
                "\(executable) \(arguments.joined(separator: " ")) ended with \(result.termination): "
                    + result.standardError)
        }
        return result.standardOutput.filter { $0 != "\n" }
    }
}

/// Writes a line to standard error.
func writeError(_ text: String) {
    let line = text + "\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
