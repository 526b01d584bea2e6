import DeviceStore
import PrivateSyncJSON

extension SweepReport {
    /// Reads a report as `simulate --json` prints it, with the package's `JSONReader`: a shard report comes from
    /// another machine and is not trusted, and `JSONDecoder` takes an object that gives a key twice (one of the two
    /// values silently), ignores a key it does not know, and says nothing of where the problem is. This reader
    /// refuses a repeated or unknown key, in any object, naming it and its place.
    ///
    /// It reads the shape only: whether the values are ones a run can write (counts 0 or more, known fault kinds and
    /// invariants) is checked by ``merge(_:)``, which also takes reports made in memory.
    ///
    /// - Parameters:
    ///   - json: The report's bytes.
    ///   - file: The file it came from, as messages show it.
    /// - Throws: ``SweepMergeError`` `notAShardReport`, with the reader's error (what is wrong, and where) as its
    ///   cause, when the bytes are not a report.
    public init(json: [UInt8], file: String) throws(SweepMergeError) {
        do {
            self = try JSONReader.read(json) { (reader: inout JSONReader) throws(JSONReadError) in
                try Self.read(&reader)
            }
        } catch {
            throw SweepMergeError(.notAShardReport, "\(file) is not a sweep report", underlying: error)
        }
    }

    /// The keys of a report, as the synthesized `Encodable` conformance writes them.
    private static let keys = [
        "seeds", "steps", "simulatedSeconds", "faults", "crashes", "invariantChecks", "interleavings",
        "persistentRefusals", "coverage", "failures", "shard", "shards", "configuration",
    ]

    /// Reads the report's object.
    private static func read(_ reader: inout JSONReader) throws(JSONReadError) -> SweepReport {
        // Placeholders, each replaced: `object` refuses an object without one of `required`.
        var report = SweepReport(
            seeds: 0, steps: 0, simulatedSeconds: 0, faults: [:], crashes: 0, invariantChecks: 0, failures: [],
            shard: nil, configuration: nil)
        let required = ["seeds", "steps", "simulatedSeconds", "faults", "crashes", "invariantChecks", "failures"]
        try reader.object(at: "the top level", keys: keys, required: required) { key, reader throws(JSONReadError) in
            switch key {
            case "seeds": report.seeds = try reader.int(at: key)
            case "steps": report.steps = try reader.int(at: key)
            case "simulatedSeconds": report.simulatedSeconds = try reader.double(at: key)
            case "faults": report.faults = try readCounts(&reader, at: key)
            case "coverage": report.coverage = reader.consumeNull() ? nil : try readCounts(&reader, at: key)
            case "crashes": report.crashes = try reader.int(at: key)
            case "invariantChecks": report.invariantChecks = try reader.int(at: key)
            case "interleavings": report.interleavings = reader.consumeNull() ? nil : try reader.int(at: key)
            case "persistentRefusals": report.persistentRefusals = reader.consumeNull() ? nil : try reader.int(at: key)
            case "failures":
                report.failures = try reader.array(at: key) { index, reader throws(JSONReadError) in
                    try Failure.read(&reader, at: "failures[\(index)]")
                }
            case "shard": report.shard = reader.consumeNull() ? nil : try Shard.read(&reader)
            case "shards": report.shards = reader.consumeNull() ? nil : try reader.int(at: key)
            default: report.configuration = reader.consumeNull() ? nil : try Configuration.read(&reader)
            }
        }
        return report
    }

    /// Reads `faults` or `coverage`, an object of counts by name (a fault kind's, a path's): its keys are names, so
    /// the reader's fixed list of keys cannot check them, and a name given twice is refused here.
    private static func readCounts(_ reader: inout JSONReader, at place: String) throws(JSONReadError) -> [String: Int]
    {
        var counts: [String: Int] = [:]
        var first = true
        try reader.beginObject(at: place)
        while let name = try reader.nextKey(&first, at: place) {
            let count = try reader.int(at: "\(place).\(name)")
            guard counts.updateValue(count, forKey: name) == nil else { throw reader.repeatedKey(name, at: place) }
        }
        return counts
    }
}

extension SweepReport.Failure {
    /// Reads one failure at `place` (`failures[3]`).
    fileprivate static func read(_ reader: inout JSONReader, at place: String) throws(JSONReadError) -> Self {
        let failure = try reader.objectOfRequiredKeys(
            at: place, keys: ["seed", "invariant", "invariantName", "message", "step", "lastSteps", "replay"],
            filling: Self(seed: 0, invariant: 0, invariantName: "", message: "", step: 0, lastSteps: [], replay: "")
        ) { key, reader, failure throws(JSONReadError) in
            let at = "\(place).\(key)"
            switch key {
            case "seed": failure.seed = try reader.uint64(at: at)
            case "invariant": failure.invariant = try reader.int(at: at)
            case "invariantName": failure.invariantName = try reader.string(at: at)
            case "message": failure.message = try reader.string(at: at)
            case "step": failure.step = try reader.int(at: at)
            case "lastSteps": failure.lastSteps = try reader.strings(at: at)
            default: failure.replay = try reader.string(at: at)
            }
        }
        return failure
    }
}

extension SweepReport.Shard {
    /// Reads `shard`.
    fileprivate static func read(_ reader: inout JSONReader) throws(JSONReadError) -> Self {
        let shard = try reader.objectOfRequiredKeys(
            at: "shard", keys: ["index", "count"], filling: Self(index: 0, count: 0)
        ) { key, reader, shard throws(JSONReadError) in
            switch key {
            case "index": shard.index = try reader.int(at: "shard.index")
            default: shard.count = try reader.int(at: "shard.count")
            }
        }
        return shard
    }
}

extension SweepReport.Configuration {
    /// Reads `configuration`, whose optional values are written as `null`.
    fileprivate static func read(_ reader: inout JSONReader) throws(JSONReadError) -> Self {
        let place = "configuration"
        // `object` refuses an object without one of `required`, so steps and backend are always read.
        var configuration = Self(sweepSeeds: nil, seed: nil, steps: 0, devices: nil, backend: "")
        let keys = ["sweepSeeds", "seed", "steps", "devices", "backend", "build"]
        let required = ["steps", "backend"]
        try reader.object(at: place, keys: keys, required: required) { key, reader throws(JSONReadError) in
            switch key {
            case "sweepSeeds":
                configuration.sweepSeeds = reader.consumeNull() ? nil : try reader.int(at: "\(place).sweepSeeds")
            case "seed": configuration.seed = reader.consumeNull() ? nil : try reader.uint64(at: "\(place).seed")
            case "steps": configuration.steps = try reader.int(at: "\(place).steps")
            case "devices":
                configuration.devices = reader.consumeNull() ? nil : try reader.int(at: "\(place).devices")
            case "build": configuration.build = try reader.string(at: "\(place).build")
            default: configuration.backend = try reader.string(at: "\(place).backend")
            }
        }
        return configuration
    }
}
