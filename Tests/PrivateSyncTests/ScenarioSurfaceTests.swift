import PrivateSyncSQLite
import PrivateSyncTesting
import Testing

@Suite("Chosen record names, writes by other clients, and aimed faults, through TestWorld")
struct ScenarioSurfaceTests {
    private func checkIn(_ world: TestWorld, mood: Int64) -> [String: FieldValue] {
        ["mood": .int64(mood), "date": .date(world.clock.now())]
    }

    /// Adds a check-in named `name` (mood 1) on `phone`, syncs it, deletes it, and sends the delete.
    private func addSyncAndDelete(_ name: String, on phone: LaunchedApp, _ world: TestWorld) async throws {
        try phone.add("CheckIn", name: name, fields: checkIn(world, mood: 1))
        await phone.sync()
        try phone.delete(name)
        await phone.sync()
    }

    // MARK: Chosen names

    @Test("a chosen name is used as the record's name, and syncs under it")
    func chosenNameSyncs() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        let record = try phone.add("CheckIn", name: "checkin-2026-11-29", fields: checkIn(world, mood: 4))
        #expect(record.name == "checkin-2026-11-29")
        await phone.sync()
        await tablet.sync()
        #expect(try tablet.stores.userCreated.record(named: "checkin-2026-11-29")?.fields["mood"] == .int64(4))
    }

    @Test("a name already used on the device is refused, in either store; nothing is added")
    func nameInUseIsRefused() throws {
        let (world, phone, _) = try launchedPhoneAndTablet()
        try phone.add("CheckIn", name: "same", fields: checkIn(world, mood: 4))
        #expect(throws: StoreError.self) { try phone.add("CheckIn", name: "same", fields: checkIn(world, mood: 5)) }
        #expect(
            throws: StoreError.self,
            performing: {
                try phone.add(
                    "Baseline", name: "same",
                    fields: [
                        "metric": .string("m"), "value": .double(1), "computedAt": .date(world.clock.now()),
                        "windowDays": .int64(7),
                    ])
            })
        #expect(try phone.stores.userCreated.record(named: "same")?.fields["mood"] == .int64(4))
        #expect(try phone.stores.localOnly.count() == 0)
    }

    @Test(
        "names are checked as CloudKit checks them",
        arguments: ["", "_reserved", "tab\there", "é", String(repeating: "x", count: 256)])
    func invalidNamesAreRefused(name: String) throws {
        let (world, phone, _) = try launchedPhoneAndTablet()
        do {
            try phone.add("CheckIn", name: name, fields: checkIn(world, mood: 4))
            Issue.record("the name was accepted")
        } catch {
            #expect(error.code == .invalidName)
        }
        #expect(try phone.stores.userCreated.count() == 0)
    }

    @Test("a name deleted and created again works, and syncs as the new record")
    func nameCreatedAgainAfterDelete() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        try await addSyncAndDelete("again", on: phone, world)
        await phone.sync()  // fetches the echo of its own delete
        try phone.add("CheckIn", name: "again", fields: checkIn(world, mood: 2))
        await phone.sync()
        await tablet.sync()
        #expect(try tablet.stores.userCreated.record(named: "again")?.fields["mood"] == .int64(2))
        #expect(try world.containerRecords(account: "alice").map(\.recordID.recordName) == ["again"])
    }

    @Test("a name created again before the delete's echo is fetched keeps the new record")
    func nameCreatedAgainBeforeTheDeleteEcho() async throws {
        let (world, phone, _) = try launchedPhoneAndTablet()
        try await addSyncAndDelete("again", on: phone, world)
        try phone.add("CheckIn", name: "again", fields: checkIn(world, mood: 2))
        await phone.sync()
        await phone.sync()
        // The echo of its own delete names the old record, which the server held; the new one it never saw.
        let onDevice = try phone.stores.userCreated.record(named: "again")?.fields["mood"]
        let inCloud = try world.containerRecords(account: "alice").map(\.recordID.recordName)
        #expect(onDevice == .int64(2))
        #expect(inCloud == ["again"])
    }

    @Test("two devices creating the same name converge on one record, through a conflict")
    func twoDevicesCreateTheSameName() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        try phone.add("CheckIn", name: "shared", fields: checkIn(world, mood: 1))
        world.clock.advance(by: 1)
        try tablet.add("CheckIn", name: "shared", fields: checkIn(world, mood: 2))
        await phone.sync()
        let report = await tablet.sync()
        await phone.sync()
        #expect((report?.conflictsResolved ?? 0) >= 1)
        #expect(try world.containerRecords(account: "alice").map(\.recordID.recordName) == ["shared"])
        let onPhone = try phone.stores.userCreated.record(named: "shared")?.fields["mood"]
        let onTablet = try tablet.stores.userCreated.record(named: "shared")?.fields["mood"]
        #expect(onPhone == onTablet)
        #expect(onTablet == .int64(2), "the later edit wins")
    }

    // MARK: Other clients

    @Test(
        "another client's record, of a type and fields the app does not know, lands in the container",
        arguments: ContainerBackend.allCases)
    func otherClientPutsUnknownTypes(backend: ContainerBackend) async throws {
        let world = try TestWorld(backend: backend)
        let cloud = try world.cloud(account: "alice")
        let record = try await cloud.put(type: "FutureThing", name: "f1", fields: ["weight": .double(3)])
        #expect(record.recordChangeTag != nil)
        #expect(try await cloud.records().map(\.recordType) == ["FutureThing"])
        #expect(try await cloud.zones().map(\.zoneName) == ["_defaultZone", SyncEngine.defaultZoneName])
        await #expect(throws: CloudError.self) {
            try await cloud.put(type: "FutureThing", name: "f1", fields: [:])
        }
    }

    @Test("another client's edit reaches a device; a stale one meets serverRecordChanged and saves over it")
    func otherClientEdits() async throws {
        let (world, phone, _) = try launchedPhoneAndTablet()
        try phone.add("CheckIn", name: "c1", fields: checkIn(world, mood: 4))
        await phone.sync()
        let cloud = try world.cloud(account: "alice")
        let plain = try await cloud.edit("c1", fields: ["mood": .int64(5)])
        #expect(plain.conflict == nil)
        let stale = try await cloud.edit("c1", fields: ["mood": .int64(6)], stale: true)
        #expect(stale.conflict?.code == .serverRecordChanged)
        #expect(stale.conflict?.serverRecord?.recordChangeTag == plain.record.recordChangeTag)
        #expect(stale.record["mood"] == .int64(6))
        await phone.sync()
        #expect(try phone.stores.userCreated.record(named: "c1")?.fields["mood"] == .int64(6))
    }

    @Test("another client's delete, and a zone it deletes, are what the container reports")
    func otherClientDeletes() async throws {
        let world = try TestWorld()
        let cloud = try world.cloud(account: "alice")
        try await cloud.put(type: "Note", name: "n1", fields: [:])
        try await cloud.put(type: "Note", name: "n2", zone: try ZoneID("Other"), fields: [:])
        try await cloud.delete("n1")
        await #expect(throws: CloudError.self) { try await cloud.delete("n1") }
        #expect(try await cloud.records().map(\.recordID.recordName) == ["n2"])
        try await cloud.deleteZone(try ZoneID("Other"))
        #expect(try await cloud.records().isEmpty)
        do {
            _ = try await cloud.records(zone: try ZoneID("Other"))
            Issue.record("a deleted zone was listed")
        } catch let error as CloudError {
            #expect(error.code == .zoneNotFound)
        }
    }

    // MARK: Aimed faults

    @Test("a fault aimed at one device leaves the other device's sync alone")
    func faultAimedAtADevice() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        try world.inject(.networkUnavailable, device: "tablet", count: 5)
        try phone.add("CheckIn", fields: checkIn(world, mood: 4))
        let phoneReport = await phone.sync()
        #expect(phoneReport?.sentSaves == 1)
        let tabletReport = await tablet.sync()
        #expect(tabletReport?.fetchedModifications == 0)
        #expect(world.faults.remaining == 4)
    }

    @Test("inject refuses an invalid device or record name")
    func injectChecksNames() throws {
        let world = try TestWorld()
        #expect(throws: (any Error).self) { try world.inject(.partialFailure, device: "bad name") }
        #expect(throws: WorldError.self) { try world.inject(.partialFailure, record: "_bad") }
        #expect(world.faults.remaining == 0)
    }

    // MARK: The fault file

    @Test("a version-1 fault file is read, upgraded in place, and its faults keep their meaning")
    func version1FaultFileUpgrades() throws {
        let directory = try TestWorld()
        let path = directory.directory + "/faults-v1.sqlite"
        do {
            let connection = try DatabaseFile.open(at: path, format: PersistentFaults.version1Format, create: true)
            try connection.execute(
                "INSERT INTO faults (kind, account, remaining, retry_after) VALUES ('rate-limited', 'alice', 2, 5)")
        }
        let faults = PersistentFaults(path: path, verifyIntegrity: true)
        let entries = try faults.entries()
        #expect(entries.count == 1)
        #expect(entries.first?.kind == .rateLimited)
        #expect(entries.first?.device == nil && entries.first?.record == nil && entries.first?.after == 0)
        let fault = faults.nextFault(for: .allZones, target: CallTarget(account: try AccountID("alice"), device: "x"))
        #expect(fault?.kind == .rateLimited && fault?.retryAfter == 5)
    }

    @Test("a fault file row out of range is refused as damaged, and strikes nothing")
    func faultFileRowsAreRangeChecked() throws {
        let world = try TestWorld()
        let path = world.directory + "/faults.sqlite"
        let faults = PersistentFaults(path: path)
        try faults.inject(Fault(.networkFailure), account: nil, device: "phone", count: 1, after: 0)
        let connection = try Connection(path: path, mode: .readWrite)
        try connection.execute("UPDATE faults SET skip = 2000000")
        #expect(throws: DatabaseFileError.self) { try PersistentFaults(path: path).entries() }
        #expect(PersistentFaults(path: path).nextFault(for: .allZones, target: CallTarget(account: nil)) == nil)
    }

    @Test("persistent faults aim at a device, a record, and let N through", arguments: [0, 2])
    func persistentFaultsAim(after: Int) throws {
        let world = try TestWorld()
        let faults = PersistentFaults(path: world.directory + "/faults.sqlite")
        try faults.inject(Fault(.partialFailure, record: "r1"), account: nil, device: "phone", count: 1, after: after)
        let call = ContainerCall.modifyRecords(saves: 2, deletes: 0)
        #expect(
            faults.nextFault(for: call, target: CallTarget(account: nil, device: "tablet", recordNames: ["r1"])) == nil)
        #expect(
            faults.nextFault(for: call, target: CallTarget(account: nil, device: "phone", recordNames: ["r2"])) == nil)
        for _ in 0..<after {
            #expect(
                faults.nextFault(for: call, target: CallTarget(account: nil, device: "phone", recordNames: ["r1"]))
                    == nil)
        }
        let fault = faults.nextFault(for: call, target: CallTarget(account: nil, device: "phone", recordNames: ["r1"]))
        #expect(fault?.kind == .partialFailure && fault?.record == "r1")
        #expect(try faults.entries().isEmpty)
    }
}
