#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SweepReport {
    /// Reads a report as `simulate --json` prints it, with its synthesized `Decodable` conformance: a report is read
    /// only by `simulate merge`, once per shard, never on a command's fast path (the files read on every command
    /// use `JSONReader` instead, see docs/benchmarks.md).
    ///
    /// - Parameters:
    ///   - json: The report's bytes.
    ///   - file: The file it came from, as messages show it.
    /// - Throws: ``SweepMergeError`` `notAShardReport`, the decoding error as its cause, when the bytes are not a
    ///   report.
    public init(json: [UInt8], file: String) throws(SweepMergeError) {
        do {
            self = try JSONDecoder().decode(SweepReport.self, from: Data(json))
        } catch {
            throw SweepMergeError(.notAShardReport, "\(file) is not a sweep report", underlying: error)
        }
    }
}
