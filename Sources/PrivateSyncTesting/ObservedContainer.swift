public import PrivateCloud
public import PrivateCloudFaults
import Synchronization

/// A container that counts what passes through it: calls by kind, and the saves and deletes the container
/// accepted. What a test (or the simulator) checks an engine's own counters against.
public final class ObservedContainer: InterceptingContainer {
    /// What has passed through so far.
    public struct Tally: Sendable, Hashable {
        /// Calls made, by kind.
        public var calls: [InterceptedCall.Kind: Int] = [:]
        /// Saves the container accepted.
        public var acceptedSaves = 0
        /// Deletes the container accepted.
        public var acceptedDeletes = 0
        /// Records the container returned from change fetches.
        public var fetchedModifications = 0
        /// Deletions the container returned from change fetches.
        public var fetchedDeletions = 0
        /// Items in each modify request, in order.
        public var requestSizes: [Int] = []
        /// Errors the container threw, by code.
        public var errors: [CloudError.Code: Int] = [:]

        /// Every call, of any kind.
        public var totalCalls: Int { calls.values.reduce(0, +) }

        /// Nothing yet.
        public init() {}

    }

    /// The container observed.
    public let base: any PrivateContainer
    private let tallyState = Mutex(Tally())

    /// Wraps a container.
    public init(base: any PrivateContainer) {
        self.base = base
    }

    /// What has passed through so far.
    public var tally: Tally { tallyState.withLock { $0 } }

    public var identifier: ContainerIdentifier { base.identifier }

    /// Every call: counted, made, and its reply or error tallied.
    public func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        tallyState.withLock {
            $0.calls[call.kind, default: 0] += 1
            if case .modifyRecords(let saving, let deleting, _, _) = call {
                $0.requestSizes.append(saving.count + deleting.count)
            }
        }
        let reply: InterceptedCall.Reply
        do {
            reply = try await base.perform(call)
        } catch {
            tallyState.withLock { $0.errors[error.code, default: 0] += 1 }
            throw error
        }
        tallyState.withLock {
            switch reply {
            case .modified(let result):
                $0.acceptedSaves += result.saveResults.values.filter(\.isSuccess).count
                $0.acceptedDeletes += result.deleteResults.values.filter(\.isSuccess).count
                for case .failure(let error) in result.saveResults.values { $0.errors[error.code, default: 0] += 1 }
                for case .failure(let error) in result.deleteResults.values { $0.errors[error.code, default: 0] += 1 }
            case .zoneChanges(let page):
                $0.fetchedModifications += page.modifications.count
                $0.fetchedDeletions += page.deletions.count
            default:
                break
            }
        }
        return reply
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
