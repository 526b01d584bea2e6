import PrivateCloud
import Synchronization

extension TestWorld {
    /// Every device's clock, made on first use: the world's clock with no offset until a test sets one.
    final class DeviceClocks: Sendable {
        private let base: ManualClock
        private let clocks = Mutex<[String: DeviceClock]>([:])

        /// Creates an empty set of clocks following `base`.
        ///
        /// - Parameter base: The world's clock.
        init(base: ManualClock) {
            self.base = base
        }

        /// The clock of `device`, made now if it has none yet.
        ///
        /// - Parameter device: The device's name.
        /// - Returns: Its clock.
        func clock(of device: String) -> DeviceClock {
            clocks.withLock { clocks in
                if let clock = clocks[device] { return clock }
                let clock = DeviceClock(following: base)
                clocks[device] = clock
                return clock
            }
        }
    }
}
