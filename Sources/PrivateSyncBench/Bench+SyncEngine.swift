import PrivateCloud
import PrivateSyncEngineTesting
import PrivateSyncFileSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Bench {
    /// `engine_events_ratio` and `engine_records_ratio`: the CKSyncEngine-shaped engine, with a delegate that does
    /// nothing but hand its records over, sends 20,000 records from one device and fetches them on another, in
    /// memory; the container alone takes the same requests (batches of 400, pages of 400).
    ///
    /// - `engine_events_ratio` (the figure): events per second through the engine ÷ requests per second of
    ///   the container alone. Each request of the engine is an event or two for the delegate, so 1 says an event
    ///   costs what a request does.
    /// - `engine_records_ratio`, the stricter: records per second through the engine ÷ records per second through
    ///   the container alone, the same work; the engine's own cost per record (its `PSRecord`s, its bookkeeping)
    ///   is what keeps it under 1.
    static func engineFigures(records count: Int = 20_000) async throws -> [Figure] {
        var rawSamples: [(seconds: Double, requests: Int)] = []
        var engineSamples: [(seconds: Double, events: Int)] = []
        for _ in 0..<5 {
            rawSamples.append(try await rawRequestsSeconds(count))
            engineSamples.append(try await engineSeconds(count))
        }
        let raw = median(rawSamples.map(\.seconds))
        let engine = median(engineSamples.map(\.seconds))
        let requests = rawSamples[0].requests
        let events = engineSamples[0].events
        let eventsPerSecond = Double(events) / engine
        let requestsPerSecond = Double(requests) / raw
        let inputs =
            "records=\(count) batch=400 events=\(events) requests=\(requests) engine_ms=\(format(engine * 1000)) "
            + "raw_ms=\(format(raw * 1000)) runs=5 backend=memory"
        return [
            Figure(
                name: "engine_events_ratio", value: eventsPerSecond / requestsPerSecond, floor: .atLeast(0.8),
                inputs: "events_per_s=\(Int(eventsPerSecond)) requests_per_s=\(Int(requestsPerSecond)) " + inputs),
            Figure(
                name: "engine_records_ratio", value: raw / engine, floor: .atLeast(0.5), goal: ">= 0.8",
                inputs: "records_per_s=\(Int(Double(count) / engine))/\(Int(Double(count) / raw)) " + inputs),
        ]
    }

    /// The seconds the container takes for `count` saves in requests of 400, then a fetch of them in pages of 400,
    /// and the requests it took.
    private static func rawRequestsSeconds(_ count: Int) async throws -> (Double, Int) {
        let cloud = try SyncEngineTestCloud()
        let container = cloud.baseContainer(session: AccountSession(account: alice))
        let zone = ZoneID(uncheckedName: "Bench")
        _ = try await container.saveZones([RecordZone(zoneID: zone)])
        let records = engineRecords(count).map(\.containerRecord)
        var requests = 0
        let seconds = try await time {
            for start in stride(from: 0, to: count, by: 400) {
                _ = try await container.modifyRecords(
                    saving: Array(records[start..<min(start + 400, count)]), deleting: [])
                requests += 1
            }
            var token: ChangeToken?
            var more = true
            while more {
                let page = try await container.recordZoneChanges(in: zone, since: token, resultsLimit: 400)
                token = page.changeToken
                more = page.moreComing
                requests += 1
            }
        }
        return (seconds, requests)
    }

    /// The seconds the engine takes to send `count` records from one device and fetch them on another, and the
    /// events it delivered.
    private static func engineSeconds(_ count: Int) async throws -> (Double, Int) {
        let limits = CloudLimits(
            maximumItemsPerRequest: 400, maximumRequestBytes: 2 * 1024 * 1024, maximumRecordBytes: 1024 * 1024,
            maximumFieldsPerRecordType: 256, maximumZones: 1000, maximumChangesPerPage: 400)
        let cloud = try SyncEngineTestCloud(limits: limits)
        let sender = PassThroughDelegate(records: engineRecords(count))
        let receiver = PassThroughDelegate(records: [])
        let phone = try cloud.device("phone", signedInTo: "alice").makeEngine(
            delegate: sender, stateSerialization: nil)
        let tablet = try cloud.device("tablet", signedInTo: "alice").makeEngine(
            delegate: receiver, stateSerialization: nil)
        try await phone.fetchChanges()
        try await tablet.fetchChanges()
        phone.state.add(pendingDatabaseChanges: [.saveZone(PSRecordZone(zoneName: "Bench"))])
        phone.state.add(pendingRecordZoneChanges: sender.records.keys.sorted().map { .saveRecord($0) })
        let before = sender.events + receiver.events
        let seconds = try await time {
            try await phone.sendChanges()
            try await tablet.fetchChanges()
        }
        guard receiver.fetched == count else {
            throw BenchError("the engine moved \(receiver.fetched) of \(count) records")
        }
        return (seconds, sender.events + receiver.events - before)
    }

    /// One run of the engine's half of `engine_events_ratio`, for a profiler (`privatesync-bench engine-profile`).
    ///
    /// - Returns: The events the engine delivered.
    static func engineSendOnly() async throws -> Int {
        let (_, events) = try await engineSeconds(20_000)
        return events
    }

    /// The records of the engine figures: the bench schema's, in the zone `Bench`.
    private static func engineRecords(_ count: Int) -> [PSRecord] {
        BenchSchema.records(count, zone: ZoneID(uncheckedName: "Bench")).map(PSRecord.init)
    }

    /// `apple_sample_tests_seconds`: the wall time of the test list of Apple's CKSyncEngine sample, run with the
    /// ported sample delegate over the memory container (the scenarios of `AppleSampleTests`, without the
    /// framework around them).
    static func appleSampleFigure() async throws -> Figure {
        let folder = try temporaryFolder()
        defer { try? FileSystem.removeItem(folder) }
        let seconds = try await time { try await SampleWorkout(folder: folder).runAll() }
        return Figure(
            name: "apple_sample_tests_seconds", value: seconds, floor: .atMost(2),
            inputs:
                "scenarios=8 (1, 10 and 444 contacts, rename, zoneNotFound, unknownItem, two conflicts) backend=memory")
    }
}
