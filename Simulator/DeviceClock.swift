import PrivateCloud
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A device's own clock: the world's simulated time plus an offset of its own (a skew), which the simulation moves
/// now and then, backwards too, as real device clocks are set, corrected and drift.
///
/// Devices stamp field versions, creation and modification times, and retry schedules with it; the servers keep
/// the world's time.
final class DeviceClock: WallClock {
    private let base: ManualClock
    private let offset: Mutex<Double>

    /// Creates a clock.
    ///
    /// - Parameters:
    ///   - base: The world's time.
    ///   - offset: The device's skew, in seconds (negative: behind).
    init(base: ManualClock, offset: Double) {
        self.base = base
        self.offset = Mutex(offset)
    }

    func now() -> Date {
        base.now().addingTimeInterval(offset.withLock { $0 })
    }

    /// The device's skew, in seconds.
    var skew: Double { offset.withLock { $0 } }

    /// Moves the device's clock by `seconds` (negative: a backward jump).
    ///
    /// - Parameter seconds: How far.
    func jump(by seconds: Double) {
        offset.withLock { $0 += seconds }
    }
}
