import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One device's clock in a ``TestWorld``: the world's clock plus an offset of this device's own, so a device can run
/// ahead or behind the others (skew) and jump, forward or back, on its own, as a real device's clock does when the
/// user or the network sets it. The containers always read the world's clock.
///
/// ```swift
/// world.clock(of: "tablet").setOffset(-300)  // the tablet runs five minutes behind
/// world.clock(of: "phone").jump(by: -3600)   // the phone's clock is set back an hour
/// ```
public final class DeviceClock: WallClock {
    /// The world's clock, which this one follows.
    public let base: ManualClock
    private let offsetSeconds = Mutex<Double>(0)

    /// Creates a clock that follows `base` with no offset.
    ///
    /// - Parameter base: The world's clock.
    public init(following base: ManualClock) {
        self.base = base
    }

    /// The world's time plus this device's offset.
    public func now() -> Date {
        base.now().addingTimeInterval(offset)
    }

    /// How far this device's clock is from the world's, in seconds (negative: behind).
    public var offset: Double {
        offsetSeconds.withLock { $0 }
    }

    /// Sets how far this device's clock is from the world's: a skew that stays while the world's clock advances.
    ///
    /// - Parameter seconds: The offset; negative puts the device behind.
    public func setOffset(_ seconds: Double) {
        offsetSeconds.withLock { $0 = seconds }
    }

    /// Moves this device's clock alone, forward or back (a negative value jumps backward), keeping it there.
    ///
    /// - Parameter seconds: How far.
    public func jump(by seconds: Double) {
        offsetSeconds.withLock { $0 += seconds }
    }
}
