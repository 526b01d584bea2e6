import ArgumentParsing
import PrivateSyncFileSystem
import Simulator

/// The shard a sweep runs: `--shard I/N`, or `--shard env`, read from the environment that a CI matrix or a
/// Kubernetes Indexed Job sets (docs/scale.md).
enum ShardArgument: Sendable, Hashable {
    /// Shard `index` (0-based) of `count`.
    case fixed(index: Int, count: Int)
    /// The shard the environment names.
    case environment

    /// `I/N` or `env`.
    static var parser: ValueParser<ShardArgument> {
        ValueParser { text, _ in
            guard let shard = parse(text) else {
                return .failure(
                    ValueError(
                        "--shard must be I/N with 0 <= I < N <= \(SweepReport.Shard.counts.upperBound), such as 3/8, or 'env'; got '\(TextEscaping.escape(text.prefix(40)))'"
                    ))
            }
            return .success(shard)
        }
    }

    /// Reads `--shard`'s value: `env`, or `I/N` with both numbers canonical (``wholeNumber(_:)``), N at most
    /// 1,000,000 and I below N.
    ///
    /// - Parameter text: The value as given.
    /// - Returns: The shard, or `nil` for any other text.
    static func parse(_ text: String) -> ShardArgument? {
        if text == "env" { return .environment }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = wholeNumber(parts[0]), let count = wholeNumber(parts[1]),
            SweepReport.Shard.counts.contains(count), (0..<count).contains(index)
        else { return nil }
        return .fixed(index: index, count: count)
    }

    /// A whole number in its one canonical decimal form: digits only, no sign, no leading zero but in `0` itself.
    /// `Int(_:)` also takes `+3` and `007`, and a shard named two ways could be run twice under two names.
    ///
    /// - Parameter text: The text.
    /// - Returns: The number, or `nil` for any other text (or a number too large for `Int`).
    static func wholeNumber(_ text: Substring) -> Int? {
        guard let first = text.utf8.first, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            first != UInt8(ascii: "0") || text.utf8.count == 1
        else { return nil }
        return Int(text)
    }

    /// The variable that holds the shard's index (0-based), set from a GitHub Actions matrix.
    static let indexVariable = "PRIVATESYNC_SHARD_INDEX"
    /// The variable that holds the shard count.
    static let countVariable = "PRIVATESYNC_SHARD_COUNT"
    /// The index a Kubernetes Indexed Job gives each of its pods, read when ``indexVariable`` is not set.
    static let kubernetesIndexVariable = "JOB_COMPLETION_INDEX"

    /// The shard's index and the shard count, read from the environment for `env`.
    ///
    /// - Parameter environment: The process's environment.
    /// - Returns: The shard's index and the shard count.
    /// - Throws: ``CLIError`` 65 for `env` when the variables are missing or malformed.
    func resolve(environment: [String: String]) throws(CLIError) -> (index: Int, count: Int) {
        switch self {
        case .fixed(let index, let count):
            return (index, count)
        case .environment:
            let indexName = environment[Self.indexVariable] != nil ? Self.indexVariable : Self.kubernetesIndexVariable
            guard let indexText = environment[indexName] else {
                throw CLIError(
                    .dataError,
                    "--shard env needs the shard's index in $\(Self.indexVariable) (or $\(Self.kubernetesIndexVariable), "
                        + "as a Kubernetes Indexed Job sets it); neither is set")
            }
            guard let countText = environment[Self.countVariable] else {
                throw CLIError(.dataError, "--shard env needs the shard count in $\(Self.countVariable); it is not set")
            }
            guard let count = Self.wholeNumber(countText[...]), SweepReport.Shard.counts.contains(count) else {
                throw CLIError(
                    .dataError,
                    "$\(Self.countVariable) must be a whole number from 1 to \(SweepReport.Shard.counts.upperBound); got '\(TextEscaping.escape(countText.prefix(40)))'"
                )
            }
            guard let index = Self.wholeNumber(indexText[...]), (0..<count).contains(index) else {
                throw CLIError(
                    .dataError,
                    "$\(indexName) must be a whole number from 0 to \(count - 1) ($\(Self.countVariable) is \(count)); "
                        + "got '\(TextEscaping.escape(indexText.prefix(40)))'")
            }
            return (index, count)
        }
    }
}
