/// The progress line of a long sweep on a terminal: seeds done, failures, rate and time left, on standard error,
/// rewritten in place. The wall clock is read here, in the CLI, never in the simulation (whose runs stay seeded);
/// the figures are for the eye only.
struct SweepProgress {
    private let total: Int
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant?
    private let enabled: Bool

    /// Creates the line; it draws nothing unless `enabled` (standard error a terminal, no `--json`, many seeds).
    ///
    /// - Parameters:
    ///   - total: Seeds in this sweep (this shard's).
    ///   - enabled: Whether to draw.
    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
        started = clock.now
    }

    /// Redraws the line after a seed, at most five times a second (and always after the last seed).
    ///
    /// - Parameters:
    ///   - done: Seeds done so far.
    ///   - failures: Failing seeds so far.
    mutating func update(done: Int, failures: Int) {
        guard enabled else { return }
        let now = clock.now
        if let lastDrawn, done < total, now - lastDrawn < .milliseconds(200) { return }
        lastDrawn = now
        let elapsed = max(Self.seconds(now - started), 0.001)
        let rate = Double(done) / elapsed
        let left = rate > 0 ? Double(total - done) / rate : 0
        let rateText = rate >= 10 ? "\(Int(rate))" : "\(Double(Int(rate * 10)) / 10)"
        Terminal.errorText(
            "\r\u{1B}[K  \(done)/\(total) seeds, \(failures) failing, \(rateText) seeds/s, "
                + "\(done < total ? Self.duration(left) + " left" : "done in " + Self.duration(elapsed))")
    }

    /// Ends the line (a newline), if one was drawn.
    func finish() {
        if enabled && lastDrawn != nil { Terminal.errorText("\n") }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// `42s`, `3m10s`, `1h02m`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m\(two(total % 60))s" }
        return "\(total / 3600)h\(two(total / 60 % 60))m"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
