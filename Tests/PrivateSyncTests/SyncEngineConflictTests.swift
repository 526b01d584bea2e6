import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Sync engine: conflicts")
struct SyncEngineConflictTests {

    @Test("edits of different fields on two devices are both kept")
    func differentFieldsMerge() async throws {
        let (_, phone, tablet, name) = try await twoDevicesEditingOneRecord(
            phone: ["mood": .int64(5)], tablet: ["note": .string("from the tablet")])
        await syncUntilQuiet([phone, tablet])
        for app in [phone, tablet] {
            let record = try #require(try app.stores.userCreated.record(named: name))
            #expect(record.fields["mood"] == .int64(5))
            #expect(record.fields["note"] == .string("from the tablet"))
        }
    }

    @Test("the same field edited on two devices takes the later write, whichever syncs first")
    func sameFieldLastWriterWins() async throws {
        for tabletSyncsFirst in [false, true] {
            let (_, phone, tablet, name) = try await twoDevicesEditingOneRecord(
                phone: ["note": .string("earlier")], tablet: ["note": .string("later")])
            await syncUntilQuiet(tabletSyncsFirst ? [tablet, phone] : [phone, tablet])
            for app in [phone, tablet] {
                #expect(try app.stores.userCreated.record(named: name)?.fields["note"] == .string("later"))
            }
        }
    }

    @Test("a tie in time is broken by device identifier, the same way on every device")
    func tiesAreDeterministic() async throws {
        // The world is kept: it owns the devices' folders (and their sync switches) for as long as it lives.
        let (world, phone, tablet, name) = try await twoDevicesSharingOneRecord()
        defer { withExtendedLifetime(world) {} }
        try phone.edit(name, setting: ["note": .string("phone")])
        try tablet.edit(name, setting: ["note": .string("tablet")])
        await syncUntilQuiet([phone, tablet])
        // "tablet" > "phone", so the tablet's write wins the tie on both.
        for app in [phone, tablet] {
            #expect(try app.stores.userCreated.record(named: name)?.fields["note"] == .string("tablet"))
        }
    }

    @Test("a clear is a write: a later clear beats an earlier value")
    func clearsCompete() async throws {
        let (_, phone, tablet, name) = try await twoDevicesEditingOneRecord(
            phone: ["note": .string("kept?")], tablet: ["note": nil])
        await syncUntilQuiet([phone, tablet])
        for app in [phone, tablet] {
            #expect(try app.stores.userCreated.record(named: name)?.fields["note"] == nil)
        }
    }

    @Test("a delete and a concurrent edit: the delete wins on every device, whichever syncs first")
    func deleteWinsOverEdit() async throws {
        for editorSyncsFirst in [false, true] {
            let (world, phone, tablet, name) = try await twoDevicesSharingOneRecord()
            try phone.delete(name)
            world.clock.advance(by: 5)
            try tablet.edit(name, setting: ["note": .string("edited after the delete")])
            await syncUntilQuiet(editorSyncsFirst ? [tablet, phone] : [phone, tablet])
            #expect(try phone.stores.userCreated.record(named: name) == nil)
            #expect(try tablet.stores.userCreated.record(named: name) == nil)
            #expect(try world.containerRecords(account: "alice").isEmpty)
        }
    }

    @Test("the conflict policy is replaceable")
    func replaceableResolver() async throws {
        struct LocalAlwaysWins: ConflictResolver {
            func resolve(local: StoredRecord, server: StoredRecord) -> StoredRecord {
                var merged = local
                for (key, version) in server.fieldVersions.versions where local.fieldVersions[key] == nil {
                    merged.fields[key] = server.fields[key]
                    merged.fieldVersions[key] = version
                }
                for key in local.fieldVersions.versions.keys {
                    if let server = server.fieldVersions[key], let mine = local.fieldVersions[key], server > mine {
                        merged.fieldVersions[key] = FieldVersion(time: server.time, device: server.device + "~")
                    }
                }
                return merged
            }
        }
        let world = try makeWorld("phone", "tablet")
        let phoneDevice = try world.device("phone")
        var environment = world.world.environment(for: phoneDevice)
        environment.resolver = LocalAlwaysWins()
        let phone = try LaunchSequence(device: phoneDevice, environment: environment).run()
        let tablet = try world.launch("tablet")
        let shared = try phone.checkIn(3, note: "phone's")
        await syncUntilQuiet([phone, tablet])
        try phone.edit(shared.name, setting: ["note": .string("phone insists")])
        world.clock.advance(by: 1)
        try tablet.edit(shared.name, setting: ["note": .string("tablet later")])
        await tablet.sync()
        await phone.sync()
        #expect(try world.containerRecords(account: "alice").first?["note"] == .string("phone insists"))
    }
}
