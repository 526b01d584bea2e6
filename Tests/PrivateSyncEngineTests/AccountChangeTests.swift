import PrivateSyncEngineTesting
import Synchronization
import Testing

/// Account changes: one `accountChange` for the net transition, the pending changes and tokens forgotten, nothing
/// made for one account landing in another's database.
@Suite("Account changes")
struct AccountChangeTests {
    @Test("a first launch with an account signed in is a sign-in; without one, nothing")
    func firstLaunch() async throws {
        let cloud = try SyncEngineTestCloud()
        let signedIn = try EngineHarness(cloud: cloud, device: "phone", account: "alice")
        try await signedIn.engine.fetchChanges()
        #expect(signedIn.delegate.events.first(where: { $0.hasPrefix("accountChange") }) == "accountChange(signIn)")
        let signedOut = try EngineHarness(cloud: cloud, device: "tablet", account: nil)
        #expect(await errorCode { try await signedOut.engine.fetchChanges() } == .notAuthenticated)
        #expect(signedOut.delegate.events.isEmpty)
    }

    @Test("a sign-out and a sign-in to another account while idle are one switch, and clear what was pending")
    func netTransitionIsOneSwitch() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try await EngineHarness.sent(["a": "1"], on: cloud)
        phone.write(["b": "2"])
        phone.device.signOut()
        try phone.device.signIn("bob")
        phone.delegate.clearEvents()
        try await phone.engine.fetchChanges()
        #expect(phone.delegate.events.filter { $0.hasPrefix("accountChange") } == ["accountChange(switchAccounts)"])
        #expect(phone.engine.state.pendingRecordZoneChanges.isEmpty)
        #expect(phone.engine.state.pendingDatabaseChanges.isEmpty)
        #expect(try cloud.notes(of: "bob").isEmpty)
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
    }

    @Test("signing out and back into the same account while idle is no change")
    func backToTheSameAccount() async throws {
        let phone = try await EngineHarness.sent(["a": "1"], on: SyncEngineTestCloud())
        phone.write(["b": "2"])
        phone.device.signOut()
        try phone.device.signIn("alice")
        phone.delegate.clearEvents()
        try await phone.engine.sendChanges()
        #expect(!phone.delegate.events.contains { $0.hasPrefix("accountChange") })
        #expect(try phone.cloud.notes(of: "alice") == ["a": "1", "b": "2"])
    }

    @Test("a sign-out is posted once, and every later call fails with notAuthenticated")
    func signOut() async throws {
        let phone = try await EngineHarness.sent(["a": "1"], on: SyncEngineTestCloud())
        phone.device.signOut()
        phone.delegate.clearEvents()
        for _ in 0..<2 {
            #expect(await errorCode { try await phone.engine.fetchChanges() } == .notAuthenticated)
        }
        #expect(phone.delegate.events == ["accountChange(signOut)", "stateUpdate"])
    }

    @Test("a request made for one account and overtaken by a switch is cancelled: nothing lands in the other")
    func switchMidSend() async throws {
        let cloud = try SyncEngineTestCloud()
        let phone = try await EngineHarness.sent(["a": "1"], on: cloud)
        phone.write(["secret": "alice's"])
        let device = phone.device
        phone.delegate.onEvent.withLock { hook in
            hook = { event, _ in
                // The user switches accounts after the send began, before its batch goes up.
                if case .willSendChanges = event { try? device.signIn("bob") }
            }
        }
        #expect(await errorCode { try await phone.engine.sendChanges() } == .operationCancelled)
        #expect(try cloud.notes(of: "bob").isEmpty)
        phone.delegate.onEvent.withLock { $0 = nil }
        try await phone.engine.sendChanges()
        #expect(phone.delegate.events.contains("accountChange(switchAccounts)"))
        #expect(try cloud.notes(of: "bob").isEmpty)
        #expect(try cloud.notes(of: "alice") == ["a": "1"])
    }
}
