import PrivateSyncTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Launch sequence and the first-launch traps")
struct LaunchSequenceTests {
    // MARK: Trap 1: the missing directory

    @Test("trap 1 reproduced: a genuine first launch with sync wanted and no directory fix falls back to local")
    func trapOneReproduced() throws {
        let world = try makeWorld("phone")
        let first = try world.launch("phone", options: .init(skipDirectoryFix: true))
        let status = try first.status()
        #expect(status.state == .paused(.storeCreationFailed))
        #expect(status.fallbackOccurred)
        #expect(first.record.userCreatedStore == .local)
        #expect(first.engine == nil)
        let detail = try #require(first.record.fallbackDetail)
        #expect(detail.contains("NSCocoaErrorDomain") && detail.contains("Code=512"))
        #expect(detail.contains("The file couldn't be saved.") && detail.contains("Failed to create file"))
        #expect(status.copy == "Sync is paused: the sync store could not be created. It will try again at next launch.")
    }

    @Test("trap 1: the second launch syncs, even without the fix, because the local fallback created the folder")
    func trapOneSecondLaunch() throws {
        let world = try makeWorld("phone")
        _ = try world.launch("phone", options: .init(skipDirectoryFix: true))
        let second = try world.launch("phone", options: .init(skipDirectoryFix: true))
        #expect(try second.status().isOn)
        #expect(second.record.userCreatedStore == .cloud)
    }

    @Test("trap 1 fixed: with the directory created first, the genuine first launch syncs")
    func trapOneFixed() throws {
        let world = try makeWorld("phone")
        let first = try world.launch("phone")
        #expect(try first.status().isOn)
        #expect(!(try first.status().fallbackOccurred))
        #expect(first.engine != nil)
    }

    @Test("trap 1 never shows on an upgrade from an earlier install whose directory exists")
    func trapOneOnUpgrade() throws {
        let world = try TestWorld()
        let device = try world.addDevice("phone", account: "alice", sync: false)
        _ = try world.launch("phone")  // the earlier build ran, and created the folder
        try device.upgrade(to: .build(version: 2, withCloudKitFor: world.world.containerIdentifier))
        try device.setSyncPreference(true)
        let upgraded = try world.launch("phone", options: .init(skipDirectoryFix: true))
        #expect(try upgraded.status().isOn)
    }

    @Test("trap 1 comes back after a reinstall, which is a genuine first launch again")
    func trapOneAfterReinstall() throws {
        let world = try TestWorld()
        let device = try world.addDevice("phone", account: "alice", sync: true)
        _ = try world.launch("phone")
        try device.reinstall(syncPreference: true)
        let again = try world.launch("phone", options: .init(skipDirectoryFix: true))
        #expect(try again.status().state == .paused(.storeCreationFailed))
    }

    @Test("with sync off, a first launch without the fix is quietly fine: a local store creates its folder")
    func localStoresRecover() throws {
        let world = try TestWorld()
        try world.addDevice("phone", account: "alice", sync: false)
        let app = try world.launch("phone", options: .init(skipDirectoryFix: true))
        #expect(try app.status().state == .off)
        #expect(try world.device("phone").appGroup.hasApplicationSupport)
    }

    // MARK: Trap 2: the missing entitlement

    @Test("trap 2 reproduced: without the entitlement and with the check skipped, launch reaches CloudKit and traps")
    func trapTwoReproduced() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            let world = try! TestWorld()
            try! world.addDevice("phone", account: "alice", sync: true, entitlement: false)
            _ = try! world.launch("phone", options: .init(skipEntitlementCheck: true))
        }
        let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(standardError.contains("Significant issue"))
    }

    @Test("trap 2 fixed: the check falls back before any container code runs")
    func trapTwoFixed() throws {
        let world = try TestWorld()
        try world.addDevice("phone", account: "alice", sync: true, entitlement: false)
        let (app, opener) = try launchCounting(world, "phone")
        #expect(opener.count == 0, "the container opener must not be called at all")
        let status = try app.status()
        #expect(status.state == .paused(.missingEntitlement))
        #expect(status.fallbackOccurred)
        #expect(status.copy == "Sync is paused: this build cannot reach iCloud.")
    }

    @Test("trap 2 fixed on a second launch and after an upgrade to a build without the entitlement")
    func trapTwoLaterLaunches() throws {
        let world = try TestWorld()
        let device = try world.addDevice("phone", account: "alice", sync: true)
        let (first, firstOpener) = try launchCounting(world, "phone")
        #expect(try first.status().isOn && firstOpener.count == 1)
        try device.upgrade(to: .build(version: 2, withCloudKitFor: nil))
        for _ in 0..<2 {
            let (app, opener) = try launchCounting(world, "phone")
            #expect(opener.count == 0)
            #expect(try app.status().state == .paused(.missingEntitlement))
        }
    }

    @Test(
        "the check reads the account status: each unusable status pauses with its own reason and opens nothing",
        arguments: [
            (AccountStatus.noAccount, PauseReason.noAccount), (.restricted, .accountRestricted),
            (.temporarilyUnavailable, .accountTemporarilyUnavailable),
        ])
    func accountStatusIsChecked(status: AccountStatus, reason: PauseReason) throws {
        let world = try TestWorld()
        let device = try world.addDevice("phone", account: "alice", sync: true)
        if status == .noAccount { try device.signOut() } else { try device.setAccountStatus(status) }
        let (app, opener) = try launchCounting(world, "phone")
        #expect(opener.count == 0)
        #expect(try app.status().state == .paused(reason))
        #expect(app.record.userCreatedStore == .local)
    }

    @Test("the launch record says what each step did, and a later command resumes within it")
    func launchRecordAndResume() throws {
        let world = try makeWorld("phone")
        let neverLaunched = #expect(throws: LaunchError.self) { try world.world.resume("phone") }
        #expect(neverLaunched?.code == .neverLaunched)
        let app = try world.launch("phone")
        #expect(app.record.steps.first == .readSyncPreference(on: true))
        #expect(app.record.steps.contains(.applicationSupport(existed: false)))
        let resumed = try world.world.resume("phone")
        #expect(resumed.record == app.record)
        #expect(resumed.engine != nil)
    }

    @Test("turning the switch on reconfigures the store to cloud; off makes it local again")
    func switchReconfigures() throws {
        let world = try TestWorld()
        try world.addDevice("phone", account: "alice", sync: false)
        let off = try world.launch("phone")
        #expect(try off.status().state == .off && off.engine == nil)
        let on = try off.setSyncEnabled(true)
        #expect(on.record.userCreatedStore == .cloud && on.engine != nil)
        let offAgain = try on.setSyncEnabled(false)
        #expect(offAgain.record.userCreatedStore == .local && offAgain.container == nil)
        #expect(try !world.device("phone").syncPreference())
    }
}
