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

/// `big_world_rss_mb`: one device holding many records syncs them to a second device, through the file container.
extension Bench {
    /// What one big-world run measured: the peak memory of the upload and of the download, each in a process of its
    /// own, and their rates.
    struct BigWorld {
        let records: Int
        let uploadMB: Double
        let downloadMB: Double
        let uploadSeconds: Double
        let downloadSeconds: Double

        /// The figure: the larger of the two peaks.
        var peakMB: Double { max(uploadMB, downloadMB) }
    }

    /// The records of the largest big world: `PRIVATESYNC_BENCH_BIG_WORLD` when set (at least 100,000), else the
    /// issue's 1,000,000.
    static var bigWorldRecords: Int {
        if let text = ProcessEnvironment.value(of: "PRIVATESYNC_BENCH_BIG_WORLD"), let count = Int(text),
            count >= 100_000
        {
            return count
        }
        return 1_000_000
    }

    /// A world where device `holder` holds `records` records waiting to be sent and device `receiver` has never
    /// synced; then the holder's upload and the receiver's download, each in a child process (peak memory).
    ///
    /// The holder's store is filled 1,000 records a transaction through the engine's own store interface (the
    /// record and its pending change together, as `insert` writes them); that part is not measured.
    static func bigWorld(at home: String, records: Int) async throws -> BigWorld {
        let world = try newWorld(at: home)
        try world.addDevice("holder", account: alice, syncPreference: true)
        try world.addDevice("receiver", account: alice, syncPreference: true)
        try fill(try world.launch("holder"), records: 0..<records)
        let upload = try runMeasuredChild(["big-world-upload", home, String(records)])
        let download = try runMeasuredChild(["big-world-download", home, String(records)])
        return BigWorld(
            records: records, uploadMB: upload.rssMB, downloadMB: download.rssMB, uploadSeconds: upload.seconds,
            downloadSeconds: download.seconds)
    }

    /// Writes entries `indices` into the app's user-created store, each with its pending change, 1,000 a transaction.
    static func fill(_ app: LaunchedApp, records indices: Range<Int>) throws {
        let store = app.stores.userCreated
        let origin = alice.userRecordID
        let device = app.device.name
        for start in stride(from: indices.lowerBound, to: indices.upperBound, by: 1000) {
            let end = min(start + 1000, indices.upperBound)
            try store.syncTransaction { state in
                for index in start..<end {
                    let fields = BenchSchema.fields(index)
                    let created = Date(timeIntervalSinceReferenceDate: 788_918_400 + Double(index))
                    let version = FieldVersion(time: created.timeIntervalSinceReferenceDate, device: device)
                    let record = StoredRecord(
                        name: "entry-\(index)", type: "Entry", fields: fields,
                        fieldVersions: FieldVersions(fields.mapValues { _ in version }), origin: origin,
                        createdAt: created, modifiedAt: created)
                    try state.putRecord(record, serverFields: nil)
                    try state.queue(.save, name: record.name, type: record.type)
                }
            }
        }
    }

    /// The child: the holder syncs until nothing waits; prints seconds and peak RSS (KB).
    static func bigWorldUploadChild(home: String, records: Int) async {
        await exitOnFailure("big-world-upload") {
            let world = try World.open(at: home)
            let app = try world.resume("holder")
            let seconds = try await time {
                while try app.stores.userCreated.pendingChangeCount() > 0 {
                    guard let report = await app.sync(force: true), report.outcome == .succeeded else {
                        throw BenchError("the holder's sync failed")
                    }
                }
            }
            print("\(seconds) \(try peakResidentKilobytes())")
        }
    }

    /// The child: the receiver launches and syncs until its first download finished; prints seconds and peak RSS.
    static func bigWorldDownloadChild(home: String, records: Int) async {
        await exitOnFailure("big-world-download") {
            let world = try World.open(at: home)
            try await printFirstDownload(of: world.launch("receiver"), records: records, device: "the receiver")
        }
    }

    /// Runs this program with `arguments` in a child process that prints `seconds peak-KB`.
    static func runMeasuredChild(_ arguments: [String]) throws -> (seconds: Double, rssMB: Double) {
        let output = try runChild(ChildProcess.currentExecutable, arguments)
        let parts = output.split(separator: " ")
        guard parts.count == 2, let seconds = Double(parts[0]), let rss = Double(parts[1]) else {
            throw BenchError("the \(arguments[0]) child printed '\(output)'")
        }
        return (seconds, rss / 1024)
    }
}
