import PrivateSyncTesting
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The user deleted the app's data from iCloud settings: saves and deletes pause alike, the consent to upload again
/// survives a failure, and a deletion long since undone pauses no new device.
@Suite("Sync engine: a deletion of the app's iCloud data")
struct SyncEngineAppDataDeletionTests {
    @Test("the consent to upload again survives a failure after the deletion was read")
    func consentSurvivesAFailedDatabasePage() async throws {
        let (world, phone, container) = try InterferingContainer.launchPhone(databasePageSize: 1)
        for mood in 1...3 { try phone.checkIn(Int64(mood)) }
        await phone.sync()
        try world.inject(.userDeletedZone)
        try phone.checkIn(4)
        #expect(await phone.sync()?.outcome == .paused(.userDeletedZone))
        // A change after the deletion, so that the deletion is not the last page.
        _ = try await container.base.saveZones([RecordZone(zoneID: try ZoneID("Other"))])
        try phone.device.setSyncPreference(true)
        let device = try world.device("phone")
        let environment = world.world.environment(for: device) { base in
            InterferingContainer(base: base, databasePageSize: 1, failingDatabaseCall: 1)
        }
        let consenting = try LaunchSequence(device: device, environment: environment).run()
        try consenting.engine?.userTurnedSyncOn()
        let first = try #require(await consenting.sync())
        guard case .retrying(.networkFailure)? = first.outcome else {
            Issue.record("expected the page after the deletion to fail, got \(String(describing: first.outcome))")
            return
        }
        world.clock.advance(by: 3600)
        #expect(await consenting.sync()?.outcome == .succeeded)
        #expect(try world.containerRecords(account: "alice").count == 4)
        #expect(try consenting.status().isOn)
    }

    @Test("a deletion learned from a call's error counts every deletion since the token: one consent answers them all")
    func consentCoversEveryDeletionLearnedFromAnError() async throws {
        let world = try TestWorld()
        try world.addDevice("phone", account: "alice", sync: true)
        let (phone, container) = try InterferingContainer.launch(world, "phone")
        for mood in 1...3 { try phone.checkIn(Int64(mood)) }
        await phone.sync()
        // While a send is in flight (after its database changes were read), the user deletes the app's data twice
        // (another client creating the zone again in between): the device learns of it from the modify request's
        // error, not from database changes.
        let settings = try #require(container.base as? any ICloudSettingsControls)
        let base = container.base
        container.beforeModify.withLock { hook in
            hook = {
                let zone = InterferingContainer.engineZone
                try? await settings.deleteZoneFromICloudSettings(zone)
                _ = try? await base.saveZones([RecordZone(zoneID: zone)])
                try? await settings.deleteZoneFromICloudSettings(zone)
            }
        }
        try phone.checkIn(4)
        #expect(await phone.engine?.sendChanges().outcome == .paused(.userDeletedZone))
        // Turning sync on after seeing the pause answers every deletion made so far: the next cycle re-uploads
        // instead of pausing again for the second one (the 10,000-seed sweep, seed 369).
        let consenting = try phone.setSyncEnabled(false).setSyncEnabled(true)
        #expect(await consenting.sync()?.outcome == .succeeded)
        #expect(try consenting.status().isOn)
        #expect(try world.containerRecords(account: "alice").count == 4)
    }

    @Test("a deletion made while the cycle creates the zone pauses it before anything is uploaded into the new zone")
    func deletionBeforeTheZoneIsCreatedPauses() async throws {
        let world = try TestWorld()
        try world.addDevice("phone", account: "alice", sync: true)
        try world.addDevice("tablet", account: "alice", sync: true)
        let phone = try world.launch("phone")
        for mood in 1...3 { try phone.checkIn(Int64(mood)) }
        await phone.sync()
        let (tablet, container) = try InterferingContainer.launch(world, "tablet")
        try tablet.checkIn(4)
        // The tablet's first cycle has read the database's changes (no deletion yet) and is about to create the
        // zone when the user deletes the app's data: the save re-creates the zone they deleted (the 10,000-seed
        // sweep, seed 787).
        let settings = try #require(container.base as? any ICloudSettingsControls)
        container.beforeZoneSave.withLock { hook in
            hook = { try? await settings.deleteZoneFromICloudSettings(InterferingContainer.engineZone) }
        }
        #expect(await tablet.sync()?.outcome == .paused(.userDeletedZone))
        #expect(try world.containerRecords(account: "alice").isEmpty)
        #expect(try tablet.status().state == .paused(.userDeletedZone))
    }

    @Test("a delete into a zone the user deleted pauses, as a save does")
    func deletesIntoADeletedZonePause() async throws {
        let (world, phone, names) = try await syncedPhone(checkIns: 3)
        try phone.delete(names[0])
        try world.inject(.userDeletedZone)
        #expect(await phone.engine?.sendChanges().outcome == .paused(.userDeletedZone))
        #expect(try phone.status().state == .paused(.userDeletedZone))
    }

    @Test("a new device is not paused by a deletion in the account's history that was followed by a re-upload")
    func oldDeletionsDoNotPauseANewDevice() async throws {
        let (world, phone, _) = try await syncedPhone(checkIns: 3)
        try world.inject(.userDeletedZone)
        await phone.sync()
        let again = try phone.setSyncEnabled(false).setSyncEnabled(true)
        await again.sync()
        #expect(try world.containerRecords(account: "alice").count == 3)
        try world.addDevice("tablet", account: "alice", sync: true)
        let tablet = try world.launch("tablet")
        #expect(await tablet.sync()?.outcome == .succeeded)
        #expect(try tablet.stores.userCreated.count() == 3)
    }
}
