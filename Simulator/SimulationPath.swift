import PrivateCloudFaults
import PrivateSyncTesting

/// A path of the engine or of the world that a run may reach: a fault kind striking one kind of request, a crash
/// window, a fetch of more than one page, a send split over several requests, an account change inside a cycle, a
/// name used again. A sweep counts the seeds that reach each (``SimulationTally/pathSeeds``), so that a path the
/// generator never, or hardly ever, takes shows as a number, not as a silence: a bug on a path no seed reaches is a
/// bug no sweep can find (issue 24: a fetch that stopped after its first page was never even reached).
public struct SimulationPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The path's name, as reports print it and JSON keys it: `fault network-failure at modifyRecords`,
    /// `multi-page fetch`.
    public let name: String

    /// A path named `name`.
    ///
    /// - Parameter name: The name.
    public init(_ name: String) {
        self.name = name
    }

    public var description: String { name }

    public static func < (lhs: SimulationPath, rhs: SimulationPath) -> Bool { lhs.name < rhs.name }

    /// The requests of a cycle, by the names the engine's request log gives them, that a fault may strike.
    static let requests: [(name: String, call: ContainerCall)] = [
        ("userRecordID", .userRecordID), ("databaseChanges", .databaseChanges), ("saveZones", .saveZones),
        ("recordZoneChanges", .recordZoneChanges(hasToken: true)),
        ("modifyRecords", .modifyRecords(saves: 2, deletes: 1)),
    ]

    /// A fault of `kind` striking a request of `request`'s kind.
    ///
    /// - Parameters:
    ///   - kind: The fault's kind.
    ///   - request: The request's name (``requests``).
    /// - Returns: The path.
    static func fault(_ kind: FaultKind, at request: String) -> SimulationPath {
        SimulationPath("fault \(kind.rawValue) at \(request)")
    }

    /// A crash armed at `moment` of a cycle's requests that went off.
    static func crash(at moment: CrashingContainer.Moment) -> SimulationPath {
        SimulationPath("crash \(moment.rawValue)")
    }

    /// A crash of a cycle at one of its local commits (0-based), counted by windows of
    /// ``cycleCommitWindowWidth``: between two of its durable steps (the binding, the database token, the zone, each
    /// fetched page, each sent batch's results, the outcome), the store transaction killed before its commit.
    static func crash(atCycleCommit commit: Int) -> SimulationPath {
        let first = commit / cycleCommitWindowWidth * cycleCommitWindowWidth
        return SimulationPath("crash at commits \(first)-\(first + cycleCommitWindowWidth - 1) of a cycle")
    }

    /// How many of a cycle's first commits the simulator aims crashes at from the cycle's start, uniformly: its
    /// binding, the database's changes, the zone, the consent. The commits after a fetched page or a send's answer
    /// are aimed at from that answer (``crash(atCommit:after:)``): a cycle that fetches and sends commits 11 to 21
    /// times (30 seeds measured), so a crash drawn over all of them met a given page's commit in 1% of seeds.
    static let cycleCommitWindows = 8
    /// The width of a window of commits the coverage table counts as one path.
    static let cycleCommitWindowWidth = 4

    /// The answers a crash is aimed after.
    enum Answer: String, CaseIterable {
        /// A page of a change fetch, before the app applies it.
        case fetchedPage = "a fetched page"
        /// A modify request's answer, before the app records it.
        case sendAnswer = "a send's answer"
    }

    /// How many commits after an answer the simulator aims a crash at: the answer's own transaction (0) and the
    /// next two (a page's records and token, the send's results, the outcome).
    static let commitsAfterAnswer = 3

    /// A crash at the `commit`-th local commit (0-based) after an answer reached the app.
    static func crash(atCommit commit: Int, after answer: Answer) -> SimulationPath {
        SimulationPath("crash at commit \(commit) after \(answer.rawValue)")
    }

    /// A crash inside a local write: a store transaction killed before its commit.
    static let crashInsideLocalWrite = SimulationPath("crash inside a local write")
    /// A cycle whose change fetch took more than one page.
    static let multiPageFetch = SimulationPath("multi-page fetch")
    /// A cycle that sent its changes in more than one modify request.
    static let splitSend = SimulationPath("split send")
    /// An account change (sign-in, sign-out, a status change) landing between two requests of a cycle.
    static let accountChangeMidCycle = SimulationPath("account change mid-cycle")
    /// A record created again under the name of one the same device deleted.
    static let nameCreatedAgain = SimulationPath("name created again")
    /// A name created on two devices of one account before either synced.
    static let nameCreatedTwice = SimulationPath("name created on two devices")
    /// An account round trip (sign out, start afresh, sign back in) with an edit in between.
    static let accountRoundTrip = SimulationPath("account round trip")
    /// A persistent low limit on items per request, refusing at least one request.
    static let lowLimitRefusal = SimulationPath("low-limit refusal")
    /// A fetch from a token the server expired.
    static let expiredTokenRefusal = SimulationPath("expired-token refusal")
    /// A device that drained its pending changes in the heal's scheduled cycles, before any forced sync.
    static let drainedWhenScheduled = SimulationPath("pending changes drained by scheduled cycles")
    /// A conflict whose merge would exceed CloudKit's record size limit, so the server's side was kept (behaviour 8).
    static let mergeOverLimit = SimulationPath("merge over the record size limit")
    /// A request of a cycle that reached the container after the device signed into another account, and was
    /// cancelled there (`operationCancelled`) rather than landing in the new account's database.
    static let requestOvertaken = SimulationPath("request overtaken by an account switch")
    /// A record created again under the name of one whose delete this device sent and has not fetched back: its
    /// next fetch brings the delete's echo to a store that holds the new record.
    static let createdAgainBeforeEcho = SimulationPath("name created again before its delete's echo")
    /// A record deleted and made again under its name before any sync, while a request of this device that created
    /// it may have reached the server unrecorded (a creation in flight) and another device deleted the old one
    /// (``Simulation/deleteAndMakeAgain(_:)``).
    static let madeAgainOverACreationInFlight = SimulationPath("name made again over a creation in flight")

    /// Every path a run can take that a sweep should reach: each fault kind the simulator injects at each request
    /// it can strike, each crash window, and the paths above. A sweep reports each, reached or not.
    public static let all: [SimulationPath] = {
        var paths: [SimulationPath] = []
        for kind in CountingFaults.baseRates.keys.sorted() {
            for request in requests where kind.applies(to: request.call) {
                paths.append(fault(kind, at: request.name))
            }
        }
        paths += CrashingContainer.Moment.allCases.map { crash(at: $0) }
        paths += stride(from: 0, to: cycleCommitWindows, by: cycleCommitWindowWidth).map { crash(atCycleCommit: $0) }
        for answer in Answer.allCases {
            paths += (0..<commitsAfterAnswer).map { crash(atCommit: $0, after: answer) }
        }
        paths += [
            crashInsideLocalWrite, multiPageFetch, splitSend, accountChangeMidCycle, nameCreatedAgain,
            nameCreatedTwice, accountRoundTrip, lowLimitRefusal, expiredTokenRefusal, drainedWhenScheduled,
            mergeOverLimit, requestOvertaken, createdAgainBeforeEcho, madeAgainOverACreationInFlight,
        ]
        return paths
    }()
}
