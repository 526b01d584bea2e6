/// How long the engine waits after a transient failure: exponential backoff with a cap, and never less than the
/// server's `retryAfter`.
public struct RetryPolicy: Sendable, Hashable {
    /// The first wait, in seconds.
    public var initialDelay: Double
    /// The factor each further consecutive failure multiplies the wait by.
    public var multiplier: Double
    /// The longest wait, in seconds.
    public var maximumDelay: Double

    /// 2 s, doubling, at most 15 minutes.
    public static let standard = RetryPolicy(initialDelay: 2, multiplier: 2, maximumDelay: 900)

    /// Creates a policy.
    public init(initialDelay: Double, multiplier: Double, maximumDelay: Double) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
    }

    /// The wait before attempt `attempt` (1 for the first retry), given the server's hint.
    ///
    /// - Parameters:
    ///   - attempt: How many consecutive failures there have been, 1 or more.
    ///   - retryAfter: The server's `retryAfter`, if it gave one.
    /// - Returns: Seconds to wait.
    public func delay(attempt: Int, retryAfter: Double?) -> Double {
        var backoff = initialDelay
        for _ in 1..<max(1, attempt) where backoff < maximumDelay { backoff *= multiplier }
        return max(min(backoff, maximumDelay), retryAfter ?? 0)
    }
}
