import PrivateSync
import SimulatedWorld

extension Simulation {
    /// Records one event of the timeline, at the current step and simulated time. The trace (and its digest) is
    /// left alone: the timeline is data beside it.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - device: The device concerned, or `nil` for the world.
    ///   - summary: What happened, in words.
    ///   - requests: For a sync, its container requests.
    func mark(_ kind: TimelineEvent.Kind, _ device: String?, _ summary: String, requests: [String] = []) {
        result.timeline.append(
            TimelineEvent(
                step: step, time: clock.now().timeIntervalSince(start), device: device, kind: kind, summary: summary,
                requests: requests))
    }

    /// Records a sync cycle with its requests, and a fault mark for each request an injected fault struck.
    ///
    /// - Parameters:
    ///   - device: The device that synced.
    ///   - report: What the cycle did, if it ran.
    ///   - summary: The cycle in words.
    func markSync(_ device: String, _ report: SyncReport?, _ summary: String) {
        let requests = report?.requests ?? []
        mark(.sync, device, summary, requests: requests.map(\.description))
        for request in requests {
            if let fault = request.fault { mark(.fault, device, "\(fault) struck \(request.operation.rawValue)") }
        }
    }

    /// Records the status a device shows, when it differs from the last one recorded for it (the band under its
    /// lane changes only then).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - status: What its settings screen shows.
    func sampleStatus(_ device: String, _ status: SyncStatus) {
        var reason: String?
        switch status.state {
        case .paused(let pause): reason = pause.rawValue
        case .on(.waiting(let wait, _)): reason = wait.rawValue
        default: reason = nil
        }
        let sample = TimelineEvent.Status(
            band: HTMLText.statusClass(status), description: status.description, reason: reason,
            pendingChanges: status.pendingChanges)
        if let last = result.timeline.last(where: { $0.kind == .status && $0.device == device }),
            last.status == sample
        {
            return
        }
        result.timeline.append(
            TimelineEvent(
                step: step, time: clock.now().timeIntervalSince(start), device: device, kind: .status,
                summary: status.description, status: sample))
    }
}
