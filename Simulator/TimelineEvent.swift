/// One thing that happened in a run, as the timeline page draws it: recorded by the simulation where it writes its
/// trace lines, as data (never parsed back from the trace), and kept out of the trace digest.
public struct TimelineEvent: Sendable, Hashable {
    /// What kind of thing happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The world was set up, or a device installed.
        case setup
        /// The user added a record (or many, in an import).
        case write
        /// The user edited a record.
        case edit
        /// The user deleted a record.
        case delete
        /// A sync cycle ran (its requests in ``TimelineEvent/requests``).
        case sync
        /// An injected fault struck a container call.
        case fault
        /// The app's process was killed.
        case crash
        /// The app was launched (a cold start or a relaunch).
        case launch
        /// The app was reinstalled or upgraded.
        case install
        /// The user flipped the sync switch.
        case toggle
        /// The account changed: signed in, out, or its status.
        case account
        /// The user deleted the app's data from iCloud.
        case deleteAppData
        /// Something the server or the world did (a limit, an expiry, the heal).
        case world
        /// The status a device's settings screen showed after a step (drawn as the band, not as a mark).
        case status
        /// The invariant that broke.
        case failure
        /// Nothing happened in the step (drawn by the page, never recorded).
        case idle
    }

    /// The status a device showed, for ``Kind/status`` events.
    public struct Status: Sendable, Hashable {
        /// `off`, `uptodate`, `syncing`, `waiting` or `paused` (as `HTMLText.statusClass`).
        public let band: String
        /// The status in words, such as `on (waiting, 2 pending)`.
        public let description: String
        /// The pause's or the wait's reason, if any.
        public let reason: String?
        /// Changes not yet accepted by iCloud.
        public let pendingChanges: Int

        /// Creates a status sample.
        public init(band: String, description: String, reason: String?, pendingChanges: Int) {
            self.band = band
            self.description = description
            self.reason = reason
            self.pendingChanges = pendingChanges
        }
    }

    /// The step (0 before the first, then 1, 2, ...; the heal's steps follow).
    public let step: Int
    /// Simulated seconds since the run started.
    public let time: Double
    /// The device concerned, or `nil` for the world, the server or the whole run.
    public let device: String?
    /// What happened.
    public let kind: Kind
    /// What happened, in words.
    public let summary: String
    /// For a sync: each container request of the cycle, in order.
    public var requests: [String]
    /// For a status sample: the status.
    public var status: Status?

    /// Creates an event.
    public init(
        step: Int, time: Double, device: String?, kind: Kind, summary: String, requests: [String] = [],
        status: Status? = nil
    ) {
        self.step = step
        self.time = time
        self.device = device
        self.kind = kind
        self.summary = summary
        self.requests = requests
        self.status = status
    }
}
