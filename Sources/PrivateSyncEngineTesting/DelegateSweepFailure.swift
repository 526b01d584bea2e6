import PrivateSyncHTML

/// A seed of a ``DelegateSweep`` that broke an invariant: which, where, and how to see it again.
public struct DelegateSweepFailure: Sendable, CustomStringConvertible {
    /// What a sweep checks after each run.
    public enum Invariant: String, Sendable, CaseIterable, CustomStringConvertible {
        /// After faults stop and every device syncs, each device's snapshot equals its account's on the server.
        case convergence
        /// Every write the app acknowledged is on the server at the end, unless a rule removed it (a later write or
        /// delete of the item, a deletion of the zone by the app or the user, an account change before it went up).
        case noLostWrites
        /// What the user deleted from iCloud settings (a zone purged) does not come back, unless written again or
        /// held by a device the user answered; nor what an app deleted, for an app that waits for the user after it
        /// (``SweptApp/waitsForTheUserAfterAnAppsDeletion``).
        case purgedStaysDeleted
        /// Nothing written under one account reaches another account's database.
        case privacy
        /// One `did…` per `will…` of each engine.
        case eventsPaired
        /// Once faults stop, every engine has nothing left pending within the heal's rounds, and a round after
        /// everyone synced finds nothing to do: nothing pending, no record written again.
        case quiescence
        /// No engine reported a misuse (an engine awaited from inside its own delegate's `handleEvent`, a released
        /// delegate, a foreign state).
        case noMisuse
        /// After a crash, the engine restored holds the pending changes of the last state its delegate was given.
        case stateRestored
        /// The app's status (``SweptApp/status()``) never reads on while nothing can sync, never pauses without a
        /// cause that holds, never reads up to date while the device shows a change of its user that has not gone up,
        /// and reads on and up to date once everything has synced (paused for the account when signed out).
        case honestStatus
        /// The app threw where it should not (its factory, an action).
        case appFailed

        /// The invariant's name.
        public var description: String { rawValue }
    }

    /// The seed.
    public let seed: UInt64
    /// The invariant broken.
    public let invariant: Invariant
    /// What was wrong, in words.
    public let message: String
    /// The run's timeline, a line per step and event, up to the failure.
    public let timeline: [String]

    /// The call that replays the seed.
    public var replay: String { "try await sweep.run(seed: \(seed))" }

    /// The seed, the invariant, the message and the replay call.
    public var description: String {
        "seed \(seed) broke \(invariant): \(message)\n  replay: \(replay)"
    }

    /// The timeline as a page to open in a browser: one row a step, the device and what happened.
    public var timelinePage: String {
        let rows = timeline.map { "<tr><td>\(HTMLText.escape($0))</td></tr>" }.joined(separator: "\n")
        return HTMLText.document(
            title: "Seed \(seed): \(invariant)",
            style: """
                body{font:14px system-ui;margin:2em}td{font:12px ui-monospace,monospace;padding:2px 6px}
                tr:nth-child(even){background:#f3f3f3}h1{font-size:18px}
                """,
            body: """
                <h1>Seed \(seed) broke \(invariant)</h1>
                <p>\(HTMLText.escape(message))</p>
                <p><code>\(HTMLText.escape(replay))</code></p>
                <table>
                \(rows)
                </table>
                """)
    }

}
