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

/// A fresh world (on `backend`) with `devices` installed, each signed in to `account` with the sync switch at `sync`:
/// the opening most tests share.
func makeWorld(
    _ devices: String..., account: String? = "alice", sync: Bool? = true, backend: ContainerBackend = .memory
) throws -> TestWorld {
    let world = try TestWorld(backend: backend)
    for device in devices { try world.addDevice(device, account: account, sync: sync) }
    return world
}

/// A fresh world (on `backend`) with the phone signed in to `account` (alice unless said otherwise), sync on, and its
/// app launched.
func launchedPhone(account: String? = "alice", backend: ContainerBackend = .memory) throws -> (TestWorld, LaunchedApp) {
    let world = try makeWorld("phone", account: account, backend: backend)
    return (world, try world.launch("phone"))
}

/// A fresh world (on `backend`) with the phone and the tablet on alice, sync on, both launched (the phone first).
func launchedPhoneAndTablet(backend: ContainerBackend = .memory) throws -> (TestWorld, LaunchedApp, LaunchedApp) {
    let world = try makeWorld("phone", "tablet", backend: backend)
    return (world, try world.launch("phone"), try world.launch("tablet"))
}

/// A fresh world with the phone on alice, sync on, launched, that has written `checkIns` check-ins (moods 1, 2, …) and
/// synced them: the world, the phone, and the records' names.
func syncedPhone(checkIns: Int) async throws -> (TestWorld, LaunchedApp, [String]) {
    let (world, phone) = try launchedPhone()
    let names = try (1...checkIns).map { try phone.checkIn(Int64($0)).name }
    await phone.sync()
    return (world, phone, names)
}

/// A phone that synced one check-in (``syncedPhone(checkIns:)``), then signed out and wrote a second (mood 2): the
/// world, the phone, and the record written signed out.
func signedOutPhoneWithAnUnsentRecord() async throws -> (TestWorld, LaunchedApp, StoredRecord) {
    let (world, phone, _) = try await syncedPhone(checkIns: 1)
    try phone.device.signOut()
    return (world, phone, try phone.checkIn(2))
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
    let (world, phone, tablet) = try launchedPhoneAndTablet()
    let shared = try phone.checkIn(3, note: "original")
    await syncUntilQuiet([phone, tablet])
    return (world, phone, tablet, shared.name)
}

/// Two devices sharing one synced record (``twoDevicesSharingOneRecord()``) that edit it a second apart and a second
/// after it was shared, the phone first, neither syncing since: the world, the phone, the tablet and the record's name.
func twoDevicesEditingOneRecord(
    phone phoneEdit: [String: FieldValue?], tablet tabletEdit: [String: FieldValue?]
) async throws -> (TestWorld, LaunchedApp, LaunchedApp, String) {
    let (world, phone, tablet, shared) = try await twoDevicesSharingOneRecord()
    world.clock.advance(by: 1)
    try phone.edit(shared, setting: phoneEdit)
    world.clock.advance(by: 1)
    try tablet.edit(shared, setting: tabletEdit)
    return (world, phone, tablet, shared)
}

/// Two devices sharing one synced record (``twoDevicesSharingOneRecord()``): a second later the tablet sets its note
/// to "tablet" and syncs, and a second after that the phone sets its mood to 9, not yet synced: a conflict of
/// different fields waiting on the phone. The world, the phone, the tablet and the record's name.
func phoneEditWaitingBehindTabletsEdit() async throws -> (TestWorld, LaunchedApp, LaunchedApp, String) {
    let (world, phone, tablet, shared) = try await twoDevicesSharingOneRecord()
    world.clock.advance(by: 1)
    try tablet.edit(shared, setting: ["note": .string("tablet")])
    await tablet.sync()
    world.clock.advance(by: 1)
    try phone.edit(shared, setting: ["mood": .int64(9)])
    return (world, phone, tablet, shared)
}
