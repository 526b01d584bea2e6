import ArgumentParsing
import PrivateSyncFileSystem

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
            if text == "env" { return .success(.environment) }
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
                count <= 1_000_000, (0..<count).contains(index)
            else {
                return .failure(
                    ValueError(
                        "--shard must be I/N with 0 <= I < N <= 1000000, such as 3/8, or 'env'; got '\(TextEscaping.escape(text.prefix(40)))'"
                    ))
            }
            return .success(.fixed(index: index, count: count))
        }
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
            guard let count = Int(countText), count >= 1, count <= 1_000_000 else {
                throw CLIError(
                    .dataError,
                    "$\(Self.countVariable) must be a whole number from 1 to 1000000; got '\(TextEscaping.escape(countText.prefix(40)))'"
                )
            }
            guard let index = Int(indexText), (0..<count).contains(index) else {
                throw CLIError(
                    .dataError,
                    "$\(indexName) must be a whole number from 0 to \(count - 1) ($\(Self.countVariable) is \(count)); "
                        + "got '\(TextEscaping.escape(indexText.prefix(40)))'")
            }
            return (index, count)
        }
    }
}
