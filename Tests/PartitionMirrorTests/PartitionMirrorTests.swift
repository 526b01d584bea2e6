import DemoSchema
import Foundation
import PartitionMirror
import PartitionMirrorSweep
import PrivateSyncEngineTesting
import Testing

/// The demo app as a delegate of the CKSyncEngine-shaped engine: its partition, its bookkeeping, and the sweep.
@Suite("Partition mirror")
struct PartitionMirrorTests {
    let scratch: ScratchFolder
    let journal = try! SyncPartition.demoHealth.userCreatedType("Journal")

    init() throws {
        scratch = try ScratchFolder()
    }

    /// A device's two stores and its mirror, over a device of a test cloud.
    func launch(_ device: TestDevice, folder: String) throws -> (DeviceStores, PartitionMirror) {
        let directory = scratch.url.appending(path: folder).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let stores = try DeviceStores.open(
            localOnly: StoreConfiguration(
                name: StoreConfiguration.localOnlyName, directory: directory, cloudKitDatabase: .none),
            userCreated: StoreConfiguration(
                name: StoreConfiguration.userCreatedName, directory: directory,
                cloudKitDatabase: .private(try ContainerIdentifier("iCloud.com.example.app"))),
            partition: .demoHealth, deviceID: device.name, clock: device.cloud.clock, names: UUIDRecordNames(),
            durability: .survivesProcessCrash, crashSwitch: nil)
        let mirror = try PartitionMirror(
            store: stores.userCreated, database: device.database, bookkeepingPath: directory + "/mirror.json",
            automaticallySync: false, scheduler: device.cloud.scheduler, durability: .survivesProcessCrash)
        return (stores, mirror)
    }

    @Test("an entry written on one device shows on the other; a baseline measured there never leaves it")
    func entriesSyncBaselinesStay() async throws {
        let cloud = try SyncEngineTestCloud()
        let (phoneStores, phone) = try launch(try cloud.device("phone", signedInTo: "alice"), folder: "phone")
        let (_, watch) = try launch(try cloud.device("watch", signedInTo: "alice"), folder: "watch")
        try await phone.syncEngine.fetchChanges()
        try await watch.syncEngine.fetchChanges()
        try await phone.insert(
            journal, fields: ["date": .date(Date(timeIntervalSince1970: 0)), "body": .string("slept well")],
            name: "entry-1")
        try phoneStores.localOnly.insert(
            try SyncPartition.demoHealth.localOnlyType("Baseline"),
            fields: [
                "metric": .string("resting heart rate"), "value": .double(52),
                "computedAt": .date(Date(timeIntervalSince1970: 0)), "windowDays": .int64(7),
            ], writtenUnder: nil, name: "baseline-1")
        // No zone yet (nothing was there to put in it at the sign-in): the first save finds it missing, and the
        // mirror creates it then, rather than on a guess that would bring back a zone the user deleted.
        await #expect(throws: PSError.self) { try await phone.syncEngine.sendChanges() }
        try await phone.syncEngine.sendChanges()
        try await watch.syncEngine.fetchChanges()
        #expect(try watch.store.recordNames() == ["entry-1"])
        #expect(try watch.store.record(named: "entry-1")?.fields["body"] == .string("slept well"))
        let onServer = try cloud.records(of: "alice").map(\.recordID.recordName)
        #expect(onServer.contains("entry-1"))
        #expect(!onServer.contains("baseline-1"))
        try await phone.syncEngine.expectNothingPending()
    }

    @Test("a record of a local-only type that another client put in the zone is never stored")
    func fetchedLocalOnlyTypeIsRefused() async throws {
        let cloud = try SyncEngineTestCloud()
        let other = try cloud.otherClient(of: "alice")
        let zone = PSRecordZone(zoneName: PartitionMirror.defaultZoneName)
        _ = try await other.save(zone)
        let baseline = PSRecord(recordType: "Baseline", recordID: PSRecord.ID(recordName: "b", zoneID: zone.zoneID))
        baseline["metric"] = "resting heart rate"
        _ = try await other.save(baseline)
        let entry = PSRecord(recordType: "Journal", recordID: PSRecord.ID(recordName: "j", zoneID: zone.zoneID))
        entry["body"] = "from the web"
        entry["date"] = Date(timeIntervalSince1970: 0)
        _ = try await other.save(entry)
        let (stores, phone) = try launch(try cloud.device("phone", signedInTo: "alice"), folder: "phone")
        try await phone.syncEngine.fetchChanges()
        #expect(try stores.userCreated.recordNames() == ["j"])
        #expect(try stores.localOnly.count() == 0)
    }

    @Test("a damaged bookkeeping file is refused with its code, and left as it was")
    func damagedBookkeepingIsRefused() throws {
        let cloud = try SyncEngineTestCloud()
        let device = try cloud.device("phone", signedInTo: "alice")
        let path = scratch.url.appending(path: "mirror.json").path
        let garbage = Data("{\"stateSerialization\": 7".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        let stores = try DeviceStores.open(
            localOnly: StoreConfiguration(
                name: StoreConfiguration.localOnlyName, directory: scratch.url.path, cloudKitDatabase: .none),
            userCreated: StoreConfiguration(
                name: StoreConfiguration.userCreatedName, directory: scratch.url.path, cloudKitDatabase: .none),
            partition: .demoHealth, deviceID: "phone", clock: cloud.clock, names: UUIDRecordNames(),
            durability: .survivesProcessCrash, crashSwitch: nil)
        let error = #expect(throws: MirrorError.self) {
            _ = try PartitionMirror(store: stores.userCreated, database: device.database, bookkeepingPath: path)
        }
        #expect(error?.code == .damagedBookkeeping)
        #expect(error?.message.contains(path) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test(
        "the sweep finds no failure in the demo app's mirror",
        arguments: [
            (DelegateSweep<SweptPartitionMirror>.Configuration.Storage.memory, UInt64(60)), (.files, 15),
        ])
    func sweepPasses(storage: DelegateSweep<SweptPartitionMirror>.Configuration.Storage, seeds: UInt64) async {
        var configuration = DelegateSweep<SweptPartitionMirror>.Configuration()
        configuration.storage = storage
        let report = await SweptPartitionMirror.sweep(configuration: configuration).sweep(seeds: 0..<seeds)
        #expect(report.seeds == Int(seeds))
        #expect(report.crashes > 0 && report.faults > 0)
        #expect(report.failures.isEmpty, "\(report)")
    }

    @Test(
        "the sweep finds each flaw of the mirror within 300 seeds, naming what it broke",
        arguments: FlawedMirrorFront.Flaw.allCases)
    func flawsAreFound(_ flaw: FlawedMirrorFront.Flaw) async {
        let sweep = SweptPartitionMirror.sweep(front: { FlawedMirrorFront(flaw) })
        let failure = await sweep.firstFailure(seeds: 0..<300)
        #expect(failure != nil, "no seed of 300 found \(flaw)")
        if let failure {
            #expect(flaw.brokenInvariants.contains(failure.invariant), "\(failure)")
        }
    }
}
