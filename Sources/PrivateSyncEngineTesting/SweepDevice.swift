#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One launch of one device of a ``DelegateSweep``: what a team's app is built from.
public struct SweepDevice: Sendable {
    /// The device's name (`device-0`, …), stable across its launches.
    public let name: String
    /// This launch's folder: what the app persists lives here. A crash keeps it as it was at that instant, and the
    /// next launch gets a copy of it; the app may write anything there, and nothing else.
    public let folder: URL
    /// The private database as this device reaches it: through the sweep's faults and crash points, routed to the
    /// account signed in.
    public let database: PSDatabase
    /// The sweep's scheduler: give it to the engine's configuration (`configuration.scheduler = device.scheduler`).
    public let scheduler: PSSyncScheduler
    /// Whether the engine should sync by itself (drawn per device by the seed).
    public let automaticallySync: Bool
    /// The sweep's clock: take the time a user edit is made at from it (`device.clock.now()`), never the system's.
    public let clock: ManualClock
    /// Ask it before each durable write of the app's own (``SweepCrashPoint/beforeDurableWrite()``): a run of the
    /// swarm may kill this launch there.
    public let crashPoint: SweepCrashPoint
}
