import PrivateCloud
import Synchronization
import Testing

@testable import Simulator

/// What the scheduler runs in the middle of a device's request runs as another process would: outside that request.
@Suite("Simulator: actions in the middle of a request")
struct InterruptedRequestTests {
    @Test("another account's device, run in the middle of alice's request, is not cancelled as an account change")
    func nestedActionDoesNotInheritTheRequestsAccount() async throws {
        let cloud = MemoryCloud()
        let identifier = try ContainerIdentifier("iCloud.com.example.me")
        let alice = MemoryContainer(
            cloud: cloud, identifier: identifier, session: AccountSession(account: try AccountID("alice")))
        let bob = MemoryContainer(
            cloud: cloud, identifier: identifier, session: AccountSession(account: try AccountID("bob")))
        let aliceUser = try await alice.userRecordID()
        let bobUser = try await bob.userRecordID()
        // Inside alice's request, bob's call without the wrapper is cancelled: the check the test relies on holds.
        let inherited = await AccountSession.$requestedFor.withValue(aliceUser) {
            await cloudErrorCode { () async throws(CloudError) in _ = try await bob.userRecordID() }
        }
        #expect(inherited == .operationCancelled)
        let answered = Mutex<UserRecordID?>(nil)
        await AccountSession.$requestedFor.withValue(aliceUser) {
            await Simulation.outsideTheInterruptedRequest {
                let user = try? await bob.userRecordID()
                answered.withLock { $0 = user }
            }
        }
        #expect(answered.withLock { $0 } == bobUser)
    }

    /// The code of the CloudError `body` throws, or `nil` when it throws nothing.
    private func cloudErrorCode(_ body: () async throws(CloudError) -> Void) async -> CloudError.Code? {
        do {
            try await body()
            return nil
        } catch {
            return error.code
        }
    }
}
