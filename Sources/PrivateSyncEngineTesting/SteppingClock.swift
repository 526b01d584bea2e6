import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A server's clock for tests: each reading is a step later than the last, and never earlier than a base clock.
///
/// A real server stamps every save with a later modification date; delegates rely on it (Apple's sample keeps the
/// record with the later `modificationDate`). A manual clock read twice gives one time for two saves, which no
/// server does; the system clock makes a test depend on the time it runs. This clock follows the test's manual
/// clock and adds a millisecond at each reading, so every run stamps the same dates.
public final class SteppingClock: WallClock {
    private let base: any WallClock
    private let step: Double
    private let last = Mutex<Date?>(nil)

    /// Creates a clock.
    ///
    /// - Parameters:
    ///   - base: The clock it never falls behind (the test's manual clock).
    ///   - step: Seconds between two readings; a millisecond by default.
    public init(following base: any WallClock, step: Double = 0.001) {
        self.base = base
        self.step = step
    }

    /// The next time: a step after the last reading, or the base clock's time if that is later.
    ///
    /// - Returns: The time.
    public func now() -> Date {
        let floor = base.now()
        return last.withLock { last in
            let next = last.map { max($0.addingTimeInterval(step), floor) } ?? floor
            last = next
            return next
        }
    }
}
