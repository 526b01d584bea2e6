import Synchronization

/// Faults scripted in order: each strikes the next call it applies to, as many times as asked.
public final class ScriptedFaults: FaultSource {
    private struct Entry {
        var fault: Fault
        var account: AccountID?
        var device: String?
        var remaining: Int
        var skip: Int

        /// Whether the entry is aimed at `call` made by `target`.
        func matches(_ call: ContainerCall, _ target: CallTarget) -> Bool {
            fault.kind.applies(to: call) && (account == nil || account == target.account)
                && (device == nil || device == target.device)
                && (fault.record.map { target.recordNames.contains($0) } ?? true)
        }
    }

    private let entries: Mutex<[Entry]> = Mutex([])

    /// Creates an empty script.
    public init() {}

    /// Adds a fault to the script.
    ///
    /// - Parameters:
    ///   - fault: The fault; its ``Fault/record``, when set, limits it to calls naming that record.
    ///   - account: Only calls for this account, or any when `nil`.
    ///   - device: Only calls from this device, or any when `nil`.
    ///   - count: How many calls it strikes.
    ///   - after: How many calls it applies to that it lets through first.
    public func add(_ fault: Fault, account: AccountID? = nil, device: String? = nil, count: Int = 1, after: Int = 0) {
        entries.withLock {
            $0.append(
                Entry(fault: fault, account: account, device: device, remaining: max(1, count), skip: max(0, after)))
        }
    }

    /// Removes every scripted fault.
    public func clear() {
        entries.withLock { $0.removeAll() }
    }

    /// How many strikes remain in the script.
    public var remaining: Int { entries.withLock { $0.reduce(0) { $0 + $1.remaining } } }

    public func nextFault(for call: ContainerCall, account: AccountID?) -> Fault? {
        nextFault(for: call, target: CallTarget(account: account))
    }

    public func nextFault(for call: ContainerCall, target: CallTarget) -> Fault? {
        entries.withLock { entries in
            for index in entries.indices where entries[index].matches(call, target) {
                // A fault still letting calls through counts this one and leaves it to the faults after it.
                if entries[index].skip > 0 {
                    entries[index].skip -= 1
                    continue
                }
                let fault = entries[index].fault
                entries[index].remaining -= 1
                if entries[index].remaining == 0 { entries.remove(at: index) }
                return fault
            }
            return nil
        }
    }
}

/// Faults drawn from a seeded generator: each kind strikes a call it applies to with its own probability, and a
/// strike may start a burst in which the same fault strikes the next calls too.
public final class RandomFaults: FaultSource {
    private struct State {
        var generator: SplitMix64
        var burst: (fault: Fault, remaining: Int)?
        var enabled = true
    }

    private let state: Mutex<State>
    private let rates: [(FaultKind, Double)]
    private let burstProbability: Double
    private let maximumBurst: Int

    /// Creates a source.
    ///
    /// - Parameters:
    ///   - seed: The generator's seed.
    ///   - rates: Each kind's probability of striking a call it applies to.
    ///   - burstProbability: The probability that a strike starts a burst.
    ///   - maximumBurst: The longest burst, in calls.
    public init(seed: UInt64, rates: [FaultKind: Double], burstProbability: Double = 0.2, maximumBurst: Int = 5) {
        state = Mutex(State(generator: SplitMix64(seed: seed)))
        self.rates = rates.sorted { $0.key < $1.key }
        self.burstProbability = burstProbability
        self.maximumBurst = maximumBurst
    }

    /// Turns the source on or off (a simulation's heal phase turns it off).
    public func setEnabled(_ enabled: Bool) {
        state.withLock {
            $0.enabled = enabled
            if !enabled { $0.burst = nil }
        }
    }

    public func nextFault(for call: ContainerCall, account: AccountID?) -> Fault? {
        state.withLock { state in
            guard state.enabled else { return nil }
            if let burst = state.burst, burst.fault.kind.applies(to: call) {
                state.burst = burst.remaining > 1 ? (burst.fault, burst.remaining - 1) : nil
                return burst.fault
            }
            for (kind, rate) in rates where kind.applies(to: call) && state.generator.chance(rate) {
                let retryAfter = kind.hasRetryAfter ? Double(1 + state.generator.next() % 120) : nil
                let fault = Fault(kind, retryAfter: retryAfter)
                if maximumBurst > 1, state.generator.chance(burstProbability) {
                    state.burst = (fault, 1 + Int(state.generator.next() % UInt64(maximumBurst - 1)))
                }
                return fault
            }
            return nil
        }
    }
}
