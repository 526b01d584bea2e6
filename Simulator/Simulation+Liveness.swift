import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Simulation {
    // MARK: Invariant 13

    /// How many rounds of scheduled cycles the heal allows every device to drain its pending changes in. A device
    /// needs one cycle after its retry wait, a few more when a conflict's merge must be sent back or a small
    /// server limit splits its send over pages of requests; the bound is generous so that only an engine that stops
    /// asking to run, or asks for ever, fails it.
    static let livenessRounds = 24

    /// Invariant 13: once faults stop, every device whose status is on drains its pending changes within
    /// ``livenessRounds`` rounds of the cycles its engine schedules (`nextRunDate()`), the clock moved to the
    /// earliest date any engine asks for; nothing is forced.
    func checkLiveness() async {
        let pendingBefore = Set(
            devices.filter { ($0.app.flatMap(pendingChangeCount) ?? 0) > 0 }.map(\.name))
        var rounds = 0
        while rounds < Self.livenessRounds, result.failure == nil {
            let waits = devices.compactMap { device -> Double? in
                guard let next = nextRunDate(device) else { return nil }
                return max(0, next.timeIntervalSince(device.clock.now()))
            }
            guard let wait = waits.min() else { break }
            rounds += 1
            step += 1
            clock.advance(by: min(wait, 86_400))
            await syncDue()
        }
        for device in devices where result.failure == nil {
            guard let app = device.app, let status = try? status(of: app), status.isOn,
                let pending = pendingChangeCount(app)
            else { continue }
            check(
                .liveness, pending == 0,
                "\(device.name): \(pending) change(s) still pending after \(rounds) round(s) of scheduled cycles with no faults, status \(status), next run \(nextRunDate(device).map { "in \(Int($0.timeIntervalSince(device.clock.now())))s" } ?? "never")"
            )
            if pending == 0, pendingBefore.contains(device.name) { reached.insert(.drainedWhenScheduled) }
        }
    }
}
