import PrivateSyncTesting
import Synchronization
import Testing

/// An opener that counts its calls and hands out a memory container: proof of whether step 6 ran.
final class CountingOpener: ContainerOpener {
    let calls = Mutex(0)
    let cloud = MemoryCloud()
    let session: AccountSession

    init(session: AccountSession) {
        self.session = session
    }

    var count: Int { calls.withLock { $0 } }

    func openContainer(identifier: ContainerIdentifier, entitlements: Entitlements) -> any PrivateContainer {
        calls.withLock { $0 += 1 }
        return MemoryContainer(cloud: cloud, identifier: identifier, session: session)
    }
}

/// Runs the launch sequence of `device` in `world` with a counting opener instead of the world's.
func launchCounting(
    _ world: TestWorld, _ name: String, options: LaunchSequence.Options = .init()
) throws
    -> (LaunchedApp, CountingOpener)
{
    let device = try world.device(name)
    var environment = world.world.environment(for: device)
    let opener = CountingOpener(session: device.session)
    environment.opener = opener
    return (try LaunchSequence(device: device, environment: environment).run(options: options), opener)
}

extension LaunchedApp {
    /// Adds a CheckIn with a mood.
    @discardableResult
    func checkIn(_ mood: Int64, note: String? = nil) throws -> StoredRecord {
        var fields: [String: FieldValue] = ["mood": .int64(mood), "date": .date(environment.clock.now())]
        if let note { fields["note"] = .string(note) }
        return try add("CheckIn", fields: fields)
    }

    /// Adds a Baseline (local-only).
    @discardableResult
    func baseline(_ value: Double) throws -> StoredRecord {
        try add(
            "Baseline",
            fields: [
                "metric": .string("restingHeartRate"), "value": .double(value),
                "computedAt": .date(environment.clock.now()),
                "windowDays": .int64(7),
            ])
    }

    /// The names of the user-created records on the device.
    var userRecordNames: Set<String> {
        Set((try? stores.userCreated.records().map(\.name)) ?? [])
    }
}

/// Syncs every app, round after round, until a whole round moves nothing (at most 20 rounds).
@discardableResult
func syncUntilQuiet(_ apps: [LaunchedApp]) async -> Int {
    for round in 1...20 {
        var moved = 0
        for app in apps {
            guard let report = await app.sync(force: true) else { continue }
            moved += report.sentSaves + report.sentDeletes + report.fetchedModifications + report.fetchedDeletions
        }
        if moved == 0 { return round }
    }
    Issue.record("the devices did not settle in 20 rounds")
    return 20
}

/// The user-created records of an app, by name, as their fields.
func contents(_ app: LaunchedApp) throws -> [String: [String: FieldValue]] {
    Dictionary(uniqueKeysWithValues: try app.stores.userCreated.records().map { ($0.name, $0.fields) })
}

/// The records of an account's container, by name, as their fields (without the sync field).
func containerContents(_ world: TestWorld, _ account: String) throws -> [String: [String: FieldValue]] {
    Dictionary(
        uniqueKeysWithValues: try world.containerRecords(account: account).map { record in
            var fields = record.fields
            for key in Schema.reservedFieldNames { fields[key] = nil }
            return (record.recordID.recordName, fields)
        })
}

/// Launches a device's app with its container observed.
func launchObserved(_ world: TestWorld, _ name: String) throws -> (LaunchedApp, ObservedContainer) {
    let observed = Mutex<ObservedContainer?>(nil)
    let app = try world.launch(name) { base in
        let wrapper = ObservedContainer(base: base)
        observed.withLock { $0 = wrapper }
        return wrapper
    }
    return (app, try #require(observed.withLock { $0 }))
}

/// Two devices on alice, sync on, sharing one synced CheckIn (mood 3, note "original"): the world, the phone, the
/// tablet and the record's name.
func twoDevicesSharingOneRecord() async throws -> (TestWorld, LaunchedApp, LaunchedApp, String) {
    let world = try TestWorld()
    try world.addDevice("phone", account: "alice", sync: true)
    try world.addDevice("tablet", account: "alice", sync: true)
    let phone = try world.launch("phone")
    let tablet = try world.launch("tablet")
    let shared = try phone.checkIn(3, note: "original")
    await syncUntilQuiet([phone, tablet])
    return (world, phone, tablet, shared.name)
}
