import PrivateSyncTesting
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The zone goes between two requests of one cycle: sync pauses, and nothing on the device is lost.
@Suite("Sync engine: a zone that vanishes during a cycle")
struct SyncEngineVanishingZoneTests {
    @Test("a zone that vanishes between reading database changes and fetching pauses sync and deletes nothing local")
    func zoneVanishingBeforeAFetchDeletesNothing() async throws {
        let (_, phone, container) = try InterferingContainer.launchPhone()
        for mood in 1...3 { try phone.checkIn(Int64(mood)) }
        await phone.sync()
        let base = container.base
        container.beforeZoneFetch.withLock { $0 = { try? await base.deleteZones([InterferingContainer.engineZone]) } }
        #expect(await phone.sync(force: true)?.outcome == .paused(.userDeletedZone))
        #expect(try phone.stores.userCreated.count() == 3)
        await phone.sync(force: true)
        #expect(try phone.stores.userCreated.count() == 3)
        #expect(try phone.status().state == .paused(.userDeletedZone))
    }

    @Test("a zone that vanishes before a send pauses sync and keeps the edited record")
    func zoneVanishingBeforeASendKeepsEdits() async throws {
        let (_, phone, container) = try InterferingContainer.launchPhone()
        var names: [String] = []
        for mood in 1...3 { names.append(try phone.checkIn(Int64(mood)).name) }
        await phone.sync()
        try phone.edit(names[0], setting: ["note": .string("precious edit")])
        let base = container.base
        container.beforeModify.withLock { $0 = { try? await base.deleteZones([InterferingContainer.engineZone]) } }
        let report = try #require(await phone.engine?.sendChanges(force: true))
        #expect(report.outcome == .paused(.userDeletedZone))
        #expect(try phone.stores.userCreated.record(named: names[0])?.fields["note"] == .string("precious edit"))
    }
}
