import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where a component reads the time. Injected everywhere, so a simulation controls time and replays exactly.
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's clock.
public struct SystemClock: WallClock {
    /// The system's clock.
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to: for tests and simulation.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    /// Creates a clock.
    ///
    /// - Parameter start: The time it reads until moved. The default is a fixed date (2026-01-01T00:00:00Z), so
    ///   that runs are reproducible.
    public init(start: Date = Date(timeIntervalSinceReferenceDate: 788_918_400)) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward.
    ///
    /// - Parameter seconds: How far; negative values are ignored, since wall time in a simulation never goes back.
    public func advance(by seconds: Double) {
        current.withLock { $0 = $0.addingTimeInterval(max(0, seconds)) }
    }

    /// Sets the clock, if `date` is not earlier than the current time.
    public func advance(to date: Date) {
        current.withLock { if date > $0 { $0 = date } }
    }
}
