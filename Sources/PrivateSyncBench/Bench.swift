import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import PrivateSyncSQLite
import SimulatedWorld
import Simulator

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
        /// What must hold.
        let floor: Floor
        /// What to aim at, when more than the floor (none by default).
        var goal = ""
        let inputs: String

        /// Whether the value holds the floor.
        var met: Bool { floor.holds(value) }
    }

    /// What a figure must hold (issue 14's floor): its text in the table (`>= 0.6`, `<= 2`) and the check, made from
    /// one bound so that the two cannot disagree.
    struct Floor: Sendable {
        let text: String
        let holds: @Sendable (Double) -> Bool

        /// At least `bound`.
        static func atLeast(_ bound: Double) -> Floor { Floor(text: ">= \(shown(bound))") { $0 >= bound } }

        /// At most `bound`.
        static func atMost(_ bound: Double) -> Floor { Floor(text: "<= \(shown(bound))") { $0 <= bound } }

        /// A bound as the table writes it: a whole number without a fraction (`2`, `800000`), else as is (`0.6`).
        private static func shown(_ bound: Double) -> String {
            bound == bound.rounded() ? String(Int(bound)) : String(bound)
        }
    }

    static let identifier = try! ContainerIdentifier("iCloud.com.example.bench")
    static let alice = try! AccountID("alice")
    static let zone = ZoneID(uncheckedName: SyncEngine.defaultZoneName)

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // A subcommand that takes a number takes it last.
        let number = arguments.last.flatMap { Int($0) }
        switch (arguments.first ?? "", arguments.count, number) {
        case ("initial-sync", 3, let count?):
            await initialSyncChild(home: arguments[1], records: count)
        case ("big-world-upload", 3, let count?):
            await bigWorldUploadChild(home: arguments[1], records: count)
        case ("big-world-download", 3, let count?):
            await bigWorldDownloadChild(home: arguments[1], records: count)
        case ("big-world-only", 2, let count?):
            // One big world alone: `privatesync-bench big-world-only N`.
            await standalone { scratch in
                let run = try await bigWorld(at: scratch + "/big-world", records: count)
                print(
                    "big_world records=\(count) upload_mb=\(format(run.uploadMB)) download_mb=\(format(run.downloadMB)) "
                        + "upload_s=\(format(run.uploadSeconds)) download_s=\(format(run.downloadSeconds))")
            }
        case ("fanout-only", 2, let devices?):
            // One fan-out alone: `privatesync-bench fanout-only DEVICES`.
            await standalone { scratch in
                let run = try await fanout(at: scratch + "/fanout", devices: devices, records: 10_000)
                print("fanout devices=\(devices) rounds=\(run.rounds) per_device_ms=\(format(run.perDevice * 1000))")
            }
        case ("save-ratio-only", 2, let count?):
            // `container_save_ratio` alone, over `count` records: `privatesync-bench save-ratio-only 100000`.
            await standalone { scratch in
                let records = BenchSchema.records(count, zone: zone)
                let (_, container) = try await world(at: scratch + "/big", records: [])
                let raw = try RawInserter(path: scratch + "/raw.sqlite", records: records)
                let rates = try await saveRates(records, container: container, raw: raw)
                print(
                    "container_save_ratio \(format(rates.container / rates.raw)) container=\(Int(rates.container))/s "
                        + "sqlite=\(Int(rates.raw))/s")
            }
        case ("initial-sync-ratio-only", 2, let count?):
            // `initial_sync_ratio` alone, over `count` records: `privatesync-bench initial-sync-ratio-only 100000`.
            await standalone { scratch in
                let records = BenchSchema.records(count, zone: zone)
                let (world, _) = try await world(at: scratch + "/big", records: records[...])
                let rawBefore = try rawInsertRate(records, path: scratch + "/raw-before-pull.sqlite")
                let pull = try initialSync(home: world.home, records: count)
                let rawAfter = try rawInsertRate(records, path: scratch + "/raw-after-pull.sqlite")
                let pullRate = Double(count) / pull.seconds
                let baseline = (rawBefore + rawAfter) / 2
                print(
                    "initial_sync_ratio \(format(pullRate / baseline)) device=\(Int(pullRate))/s "
                        + "sqlite=\(Int(baseline))/s (\(Int(rawBefore))/\(Int(rawAfter))) rss_mb=\(format(pull.rssMB))")
            }
        case ("prepare-initial-sync", 3, let count?):
            // A world whose container holds `count` records, for profiling `initial-sync HOME COUNT` on it.
            await exitOnFailure("prepare-initial-sync") {
                _ = try await world(at: arguments[1], records: BenchSchema.records(count, zone: zone)[...])
            }
        case ("status-only", 2, _):
            // `status_vs_sqlite3` alone, on a world like the bench's small one: `privatesync-bench status-only CLI`.
            let cli = arguments[1]
            await standalone { scratch in
                let (small, _) = try await world(
                    at: scratch + "/small", records: BenchSchema.records(1000, zone: zone)[...])
                try await seedSmallDevice(small)
                _ = try await incrementalSync(small, device: "fresh-1000")
                let figure = try statusFigure(
                    cli: cli, home: small.home, containerFile: small.containerPath(account: alice))
                print("\(figure.name) \(format(figure.value)) \(figure.inputs)")
                if let keep = ProcessEnvironment.value(of: "PRIVATESYNC_BENCH_KEEP") {
                    try FileSystem.move(small.home, to: keep)
                    print("world kept at \(keep)")
                }
            }
        case ("concurrent-writers-only", 2, _):
            // `concurrent_writers_scaling` alone: `privatesync-bench concurrent-writers-only CLI`.
            let cli = arguments[1]
            await standalone { scratch in
                let figure = try concurrentWritersFigure(cli: cli, scratch: scratch)
                print("\(figure.name) \(format(figure.value)) \(figure.inputs)")
            }
        case ("engine-only", 1, _):
            // The CKSyncEngine-shaped engine's figures alone: `privatesync-bench engine-only`.
            await exitOnFailure("engine-only") {
                for figure in try await engineFigures() + [try await appleSampleFigure()] {
                    print("\(figure.name) \(format(figure.value)) \(figure.inputs)")
                }
            }
        case ("delegate-sweep", _, _):
            // A sweep of Apple's sample delegate: `privatesync-bench delegate-sweep 10000 [0/2] [files]`.
            await delegateSweep(Array(arguments.dropFirst()))
        case ("engine-profile", 1, _):
            // The engine's half of `engine_events_ratio`, ten times, for a profiler: `perf record privatesync-bench
            // engine-profile`.
            await exitOnFailure("engine-profile") { for _ in 0..<10 { _ = try await engineSendOnly() } }
        case ("simulate-only", 1, _):
            // `simulated_speedup` alone: `privatesync-bench simulate-only`.
            let figure = await simulatedSpeedup()
            print("\(figure.name) \(format(figure.value)) \(figure.inputs)")
        case ("save-only", 2, let count?):
            // For profiling the container's save path alone: `valgrind --tool=callgrind privatesync-bench save-only N`.
            await saveOnly(records: count)
        default:
            let cli = arguments.firstIndex(of: "--cli").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
            await exitOnFailure("bench") { try await run(cli: cli, keep: arguments.contains("--keep")) }
        }
    }

    /// Runs `body`; when it throws, writes `task failed: ERROR` to standard error and exits 70, as every subcommand
    /// and child process of the bench does.
    ///
    /// - Parameters:
    ///   - task: What the message names as failed.
    ///   - body: The work.
    static func exitOnFailure(_ task: String, _ body: @Sendable () async throws -> Void) async {
        do {
            try await body()
        } catch {
            writeError("\(task) failed: \(error)")
            exit(70)
        }
    }

    /// Runs `body` in a scratch folder, removed afterwards; exits 70 when it throws.
    ///
    /// - Parameters:
    ///   - task: What the message names as failed when `body` throws.
    ///   - body: The work, given the scratch folder.
    static func standalone(_ task: String = "bench", _ body: @Sendable (String) async throws -> Void) async {
        await exitOnFailure(task) {
            let scratch = try temporaryFolder()
            defer { try? FileSystem.removeItem(scratch) }
            try await body(scratch)
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
        /// Reports a figure measured here, from its parts: its floor says whether it was met.
        func report(_ name: String, _ value: Double, floor: Floor, goal: String = "", inputs: String) {
            report(Figure(name: name, value: value, floor: floor, goal: goal, inputs: inputs))
        }

        // 1. Saving through the container against raw SQLite inserting the same rows.
        let records = BenchSchema.records(100_000, zone: zone)
        let (big, bigContainer) = try await world(at: scratch + "/big", records: [])
        let raw = try RawInserter(path: scratch + "/raw.sqlite", records: records)
        let (containerRate, rawRate) = try await saveRates(records, container: bigContainer, raw: raw)
        report(
            "container_save_ratio", containerRate / rawRate, floor: .atLeast(0.6), goal: ">= 0.7",
            inputs:
                "records=100000 batch=400 fields=10 bytes≈\(records[0].encodedSize) container=\(Int(containerRate))/s "
                + "sqlite=\(Int(rawRate))/s journal=wal synchronous=full")

        // 1b. The container file's size per record against the raw table's, both with their logs folded in.
        let containerBytes = try checkpointedSize(big.containerPath(account: alice))
        let rawBytes = try raw.checkpointedSize()
        report(
            "container_bytes_per_record_ratio", Double(containerBytes) / Double(rawBytes), floor: .atMost(1.5),
            inputs:
                "records=100000 bytes_per_record=\(containerBytes / 100_000)/\(rawBytes / 100_000) "
                + "container=\(containerBytes) sqlite=\(rawBytes)")

        // 2. Fetching 100 changes in a zone of 100,000 records, against the same in a zone of 1,000.
        let (small, smallContainer) = try await world(at: scratch + "/small", records: records.prefix(1000))
        let bigFetch = try await fetchHundredChanges(bigContainer, zoneSize: 100_000)
        let smallFetch = try await fetchHundredChanges(smallContainer, zoneSize: 1000)
        report(
            "fetch_changes_scaling", bigFetch / smallFetch, floor: .atMost(1.5),
            inputs:
                "changes=100 zones=100000/1000 median_ms=\(format(bigFetch * 1000))/\(format(smallFetch * 1000)) runs=41"
        )

        // 3. A fresh device pulling every record into its store, each size in a process of its own (peak memory).
        let (twenty, _) = try await world(at: scratch + "/twenty", records: records.prefix(20_000))
        let pull20 = try initialSync(home: twenty.home, records: 20_000)
        let rawBefore = try rawInsertRate(records, path: scratch + "/raw-before-pull.sqlite")
        let pull100 = try initialSync(home: big.home, records: 100_000)
        let rawAfter = try rawInsertRate(records, path: scratch + "/raw-after-pull.sqlite")
        let pullRate = 100_000 / pull100.seconds
        let pullBaseline = (rawBefore + rawAfter) / 2
        report(
            "initial_sync_ratio", pullRate / pullBaseline, floor: .atLeast(0.4), goal: ">= 0.5",
            inputs:
                "records=100000 page=400 device=\(Int(pullRate))/s sqlite=\(Int(pullBaseline))/s "
                + "(before/after the pull \(Int(rawBefore))/\(Int(rawAfter))/s)")
        report(
            "initial_sync_peak_rss_mb", pull100.rssMB, floor: .atMost(200),
            inputs: "records=100000 rss_mb_at_20000=\(format(pull20.rssMB)) rss_mb_at_100000=\(format(pull100.rssMB))")

        // 4. One device's sync with 10 pending changes, in a store of 100,000 records against one of 1,000.
        try await seedSmallDevice(small)
        let incrementalBig = try await incrementalSync(big, device: "fresh-100000")
        let incrementalSmall = try await incrementalSync(small, device: "fresh-1000")
        report(
            "incremental_sync_scaling", incrementalBig / incrementalSmall, floor: .atMost(1.5),
            inputs:
                "pending=10 stores=100000/1000 median_ms=\(format(incrementalBig * 1000))/\(format(incrementalSmall * 1000)) runs=15"
        )

        // 5. `privatesync sync status` against `sqlite3 FILE 'select count(*) from records'` on the same world, run in
        // turn: the wall time each process takes, as a user waits for it (their CPU times are printed beside it: a
        // static 28 MB binary is charged its start-up's page faults, which a small binary linked to a shared SQLite is
        // not).
        if let cli, FileSystem.exists("/usr/bin/sqlite3") {
            report(try statusFigure(cli: cli, home: small.home, containerFile: small.containerPath(account: alice)))
        } else {
            print("status_vs_sqlite3 skipped: needs --cli PATH and /usr/bin/sqlite3")
        }

        // 5b. Adds per second with 8 processes writing to one device at once, against 1 (issue 22): what contention
        // costs; every add must be acknowledged and found.
        if let cli, FileSystem.exists("/bin/sh") {
            report(try concurrentWritersFigure(cli: cli, scratch: scratch))
        } else {
            print("concurrent_writers_scaling skipped: needs --cli PATH and /bin/sh")
        }

        // 6. Simulated seconds per second of the default simulator run: per second of the CPU time the run took (the
        // machine is shared), with the wall-clock figure and the steps per second beside it.
        report(await simulatedSpeedup())

        // 7. Eight devices converging on 10,000 records against two: the cost per device.
        let fanTwo = try await fanout(at: scratch + "/fanout-2", devices: 2, records: 10_000)
        let fanEight = try await fanout(at: scratch + "/fanout-8", devices: 8, records: 10_000)
        report(
            "fanout_scaling", fanEight.perDevice / fanTwo.perDevice, floor: .atMost(1.2),
            inputs:
                "records=10000 devices=8/2 per_device_ms=\(format(fanEight.perDevice * 1000))/"
                + "\(format(fanTwo.perDevice * 1000)) rounds=\(fanEight.rounds)/\(fanTwo.rounds)")

        // 8. One device holding many records syncs them to a second: peak memory of each side, at 100,000 records and
        // at the full size (1,000,000 unless PRIVATESYNC_BENCH_BIG_WORLD says otherwise).
        let bigWorldSmall = try await bigWorld(at: scratch + "/big-world-100000", records: 100_000)
        let bigWorldFull = try await bigWorld(at: scratch + "/big-world-full", records: bigWorldRecords)
        let flat = bigWorldFull.peakMB <= max(bigWorldSmall.peakMB * 1.1, bigWorldSmall.peakMB + 5)
        report(
            "big_world_rss_mb", bigWorldFull.peakMB, floor: Floor(text: "<= 100, flat") { $0 <= 100 && flat },
            inputs:
                "records=\(bigWorldFull.records) rss_mb_at_100000=\(format(bigWorldSmall.peakMB)) "
                + "rss_mb_at_\(bigWorldFull.records)=\(format(bigWorldFull.peakMB)) "
                + "upload_mb=\(format(bigWorldSmall.uploadMB))/\(format(bigWorldFull.uploadMB)) "
                + "download_mb=\(format(bigWorldSmall.downloadMB))/\(format(bigWorldFull.downloadMB)) "
                + "upload_per_s=\(Int(Double(bigWorldFull.records) / bigWorldFull.uploadSeconds)) "
                + "download_per_s=\(Int(Double(bigWorldFull.records) / bigWorldFull.downloadSeconds)) flat=\(flat)")

        // 9. The CKSyncEngine-shaped engine (issue 26): its cost over the container's own requests, and the test list of
        // Apple's sample, ported.
        for figure in try await engineFigures() { report(figure) }
        report(try await appleSampleFigure())
        for figure in try await delegateSweepFigures() { report(figure) }

        // Not a goal: what verifying a whole file costs, which the CLI does once per change of a file it opens; and
        // what the page reads alone (`quick_check`, the check before issue 22) cost, for the price of the comparison.
        let path = big.containerPath(account: alice)
        // In turn, three times each, medians: the first read of the file after the big world's writes pays for the
        // page cache, whichever check makes it (1,276 ms against 160 once, the quick check first).
        var quickSamples: [Double] = []
        var integritySamples: [Double] = []
        for _ in 0..<3 {
            quickSamples.append(try checkSeconds(path) { try $0.quickCheckProblems() })
            integritySamples.append(try checkSeconds(path) { try $0.integrityCheckProblems() })
        }
        let quick = median(quickSamples)
        let integrity = median(integritySamples)
        print(
            "integrity_check_ms \(format(integrity * 1000)) quick_check_ms \(format(quick * 1000)) file=container "
                + "records=100000")

        print("")
        print("figure                            value        floor          goal        met")
        for figure in figures {
            print(
                pad(figure.name, 34) + pad(format(figure.value), 13) + pad(figure.floor.text, 15) + pad(figure.goal, 12)
                    + (figure.met ? "yes" : "NO"))
        }
    }

    // MARK: Measurements

    /// `simulated_speedup`: the default simulator run (20 seeds), simulated seconds per second of CPU time.
    static func simulatedSpeedup() async -> Figure {
        var simulated = 0.0
        var steps = 0
        let cpuBefore = processCPUSeconds()
        let simulationSeconds = await time {
            for seed in UInt64(0)..<20 {
                let result = await Simulation.run(SimulationOptions(seed: seed))
                simulated += result.simulatedSeconds
                steps += result.steps
            }
        }
        let simulationCPU = processCPUSeconds() - cpuBefore
        return Figure(
            name: "simulated_speedup", value: simulated / simulationCPU, floor: .atLeast(800_000), goal: ">= 1000000",
            inputs:
                "steps_per_s=\(Int(Double(steps) / simulationCPU)) seeds=20 steps=\(SimulationOptions.defaultSteps) "
                + "steps_run=\(steps) simulated_s=\(Int(simulated)) cpu_s=\(format(simulationCPU)) "
                + "wall_speedup=\(Int(simulated / simulationSeconds)) real_s=\(format(simulationSeconds))")
    }

    /// A new world with the bench schema and container, on the file backend, with no device yet.
    ///
    /// - Parameter home: The world's folder.
    /// - Returns: The world.
    /// - Throws: What creating the world throws.
    static func newWorld(at home: String) throws -> World {
        try World.create(
            at: home, partition: BenchSchema.partition, containerIdentifier: identifier,
            options: World.Options(backend: .file))
    }

    /// Saves `records` through the container and inserts them raw, 400 at a time; returns both rates (records per
    /// second). Batch by batch, alternately, so that both meet the same disk: an fsync's cost drifts within a run.
    static func saveRates(
        _ records: [Record], container: FileContainer, raw: RawInserter
    ) async throws -> (container: Double, raw: Double) {
        var containerSeconds = 0.0
        var rawSeconds = 0.0
        for start in stride(from: 0, to: records.count, by: 400) {
            let end = min(start + 400, records.count)
            // The batch is the caller's: made before the clock starts, as the baseline's rows are.
            let batch = Array(records[start..<end])
            containerSeconds += try await time {
                let result = try await container.modifyRecords(saving: batch, deleting: [])
                if let failure = result.partialFailure { throw failure }
            }
            rawSeconds += try raw.insert(start..<end)
        }
        return (Double(records.count) / containerSeconds, Double(records.count) / rawSeconds)
    }

    /// A world with the bench schema, and alice's container holding `records` (saved 400 at a time).
    static func world(at home: String, records: ArraySlice<Record>) async throws -> (World, FileContainer) {
        let world = try newWorld(at: home)
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

        /// The file's size once its write-ahead log is folded into it.
        func checkpointedSize() throws -> Int {
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return try Bench.fileSize(connection.path)
        }
    }

    /// Raw SQLite's insert rate for `records` into a new file at `path` (400 rows a transaction), which is removed
    /// after: the baseline of `initial_sync_ratio`, measured right before and right after the pull so that the
    /// baseline meets the same load from the machine's other users as the pull.
    static func rawInsertRate(_ records: [Record], path: String) throws -> Double {
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileSystem.removeItem(path + suffix) }
        }
        let raw = try RawInserter(path: path, records: records)
        var seconds = 0.0
        for start in stride(from: 0, to: records.count, by: 400) {
            seconds += try raw.insert(start..<min(start + 400, records.count))
        }
        return Double(records.count) / seconds
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
        await exitOnFailure("initial-sync") {
            let world = try World.open(at: home)
            let name = "fresh-\(records)"
            try world.addDevice(name, account: alice, syncPreference: true)
            try await printFirstDownload(of: world.launch(name), records: records, device: "the device")
        }
    }

    /// A child's figure: syncs `app` until its first download finished, checks it got all `records`, and prints the
    /// seconds it took and the peak resident memory in kilobytes.
    ///
    /// - Throws: ``BenchError`` naming `device` when a cycle failed or a record is missing.
    static func printFirstDownload(of app: LaunchedApp, records: Int, device: String) async throws {
        let seconds = try await time {
            while try app.engine?.state().initialFetchDone != true {
                guard let report = await app.sync(force: true), report.outcome == .succeeded else {
                    throw BenchError("\(device)'s sync failed")
                }
            }
        }
        guard try app.stores.userCreated.count() == records else {
            throw BenchError("\(device) did not get every record")
        }
        print("\(seconds) \(try peakResidentKilobytes())")
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
        await standalone("save-only") { scratch in
            let records = BenchSchema.records(count, zone: zone)
            let (_, container) = try await world(at: scratch + "/save", records: [])
            let seconds = try await time {
                for start in stride(from: 0, to: records.count, by: 400) {
                    let result = try await container.modifyRecords(
                        saving: Array(records[start..<min(start + 400, records.count)]), deleting: [])
                    if let failure = result.partialFailure { throw failure }
                }
            }
            print("container_save records=\(count) rate=\(Int(Double(count) / seconds))/s")
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

    /// `status_vs_sqlite3`: `privatesync sync status` against `sqlite3 FILE 'select count(*) from records'` on the
    /// same world, the two run in turn (so that both meet the same load from the machine's other users).
    static func statusFigure(cli: String, home: String, containerFile: String) throws -> Figure {
        let times = try medianProcessTimes([
            (cli, ["--home", home, "sync", "status", "--device", "fresh-1000"]),
            ("/usr/bin/sqlite3", [containerFile, "select count(*) from records"]),
        ])
        let (status, sqlite) = (times[0], times[1])
        let ratio = status.wall / sqlite.wall
        return Figure(
            name: "status_vs_sqlite3", value: ratio, floor: .atMost(2), goal: "<= 1.5",
            inputs:
                "records=1000 median_wall_ms=\(format(status.wall * 1000))/\(format(sqlite.wall * 1000)) "
                + "cpu_ratio=\(format(status.cpu / sqlite.cpu)) "
                + "median_cpu_ms=\(format(status.cpu * 1000))/\(format(sqlite.cpu * 1000)) runs=41 cli=\(cli)")
    }

    /// The median wall time and the median CPU time (user and system) of each command, over 41 rounds that run
    /// every command in turn, after one round to warm the caches.
    static func medianProcessTimes(_ commands: [(String, [String])]) throws -> [(wall: Double, cpu: Double)] {
        for (executable, arguments) in commands { _ = try runChild(executable, arguments) }
        var wall = [[Double]](repeating: [], count: commands.count)
        var cpu = [[Double]](repeating: [], count: commands.count)
        let clock = ContinuousClock()
        for _ in 0..<41 {
            for (index, (executable, arguments)) in commands.enumerated() {
                let cpuBefore = childrenCPUSeconds()
                let start = clock.now
                _ = try runChild(executable, arguments)
                wall[index].append(seconds(clock.now - start))
                cpu[index].append(childrenCPUSeconds() - cpuBefore)
            }
        }
        return commands.indices.map { (median(wall[$0]), median(cpu[$0])) }
    }

    /// The CPU time (user and system) of every child this process waited for.
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
            getrusage(RUSAGE_CHILDREN, &usage)
        #else
            // Glibc declares `RUSAGE_*` as cases of a C enum, and `getrusage` takes their raw value; Darwin's are
            // plain `Int32`s.
            getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #endif
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The CPU time (user and system) of this process, every thread.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
            getrusage(RUSAGE_SELF, &usage)
        #else
            getrusage(RUSAGE_SELF.rawValue, &usage)  // Glibc's enum case, as in childrenCPUSeconds
        #endif
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }

    /// A file's size in bytes.
    static func fileSize(_ path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw BenchError("cannot stat \(path)") }
        return Int(info.st_size)
    }

    /// The size of a database file once its write-ahead log is folded into it.
    static func checkpointedSize(_ path: String) throws -> Int {
        let connection = try Connection(path: path, mode: .readWrite)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return try fileSize(path)
    }

    static func checkSeconds(_ path: String, _ check: (Connection) throws -> [String]) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let connection = try Connection(path: path, mode: .readOnly)
        _ = try check(connection)
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
