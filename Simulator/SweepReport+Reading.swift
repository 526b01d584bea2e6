import DeviceStore

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
        "persistentRefusals", "failures", "shard", "shards", "configuration",
    ]

    /// Reads the report's object.
    private static func read(_ reader: inout JSONReader) throws(JSONReadError) -> SweepReport {
        let top = "the top level"
        var seeds: Int?
        var steps: Int?
        var simulatedSeconds: Double?
        var faults: [String: Int]?
        var crashes: Int?
        var invariantChecks: Int?
        var interleavings: Int?
        var persistentRefusals: Int?
        var failures: [Failure]?
        var shard: Shard?
        var shards: Int?
        var configuration: Configuration?
        try reader.object(at: top, keys: keys) { key, reader throws(JSONReadError) in
            switch key {
            case "seeds": seeds = try reader.int(at: key)
            case "steps": steps = try reader.int(at: key)
            case "simulatedSeconds": simulatedSeconds = try reader.double(at: key)
            case "faults": faults = try readFaults(&reader)
            case "crashes": crashes = try reader.int(at: key)
            case "invariantChecks": invariantChecks = try reader.int(at: key)
            case "interleavings": interleavings = reader.consumeNull() ? nil : try reader.int(at: key)
            case "persistentRefusals": persistentRefusals = reader.consumeNull() ? nil : try reader.int(at: key)
            case "failures":
                failures = try reader.array(at: key) { index, reader throws(JSONReadError) in
                    try Failure.read(&reader, at: "failures[\(index)]")
                }
            case "shard": shard = reader.consumeNull() ? nil : try Shard.read(&reader)
            case "shards": shards = reader.consumeNull() ? nil : try reader.int(at: key)
            default: configuration = reader.consumeNull() ? nil : try Configuration.read(&reader)
            }
        }
        guard let seeds else { throw reader.missingKey("seeds", at: top) }
        guard let steps else { throw reader.missingKey("steps", at: top) }
        guard let simulatedSeconds else { throw reader.missingKey("simulatedSeconds", at: top) }
        guard let faults else { throw reader.missingKey("faults", at: top) }
        guard let crashes else { throw reader.missingKey("crashes", at: top) }
        guard let invariantChecks else { throw reader.missingKey("invariantChecks", at: top) }
        guard let failures else { throw reader.missingKey("failures", at: top) }
        return SweepReport(
            seeds: seeds, steps: steps, simulatedSeconds: simulatedSeconds, faults: faults, crashes: crashes,
            invariantChecks: invariantChecks, interleavings: interleavings, persistentRefusals: persistentRefusals,
            failures: failures, shard: shard, shards: shards, configuration: configuration)
    }

    /// Reads `faults`, an object of counts by kind's name: its keys are names, so the reader's fixed list of keys
    /// cannot check them, and a name given twice is refused here.
    private static func readFaults(_ reader: inout JSONReader) throws(JSONReadError) -> [String: Int] {
        var faults: [String: Int] = [:]
        var first = true
        try reader.beginObject(at: "faults")
        while let kind = try reader.nextKey(&first, at: "faults") {
            let count = try reader.int(at: "faults.\(kind)")
            guard faults.updateValue(count, forKey: kind) == nil else { throw reader.repeatedKey(kind, at: "faults") }
        }
        return faults
    }
}

extension SweepReport.Failure {
    /// Reads one failure at `place` (`failures[3]`).
    fileprivate static func read(_ reader: inout JSONReader, at place: String) throws(JSONReadError) -> Self {
        var seed: UInt64?
        var invariant: Int?
        var invariantName: String?
        var message: String?
        var step: Int?
        var lastSteps: [String]?
        var replay: String?
        let keys = ["seed", "invariant", "invariantName", "message", "step", "lastSteps", "replay"]
        try reader.object(at: place, keys: keys) { key, reader throws(JSONReadError) in
            switch key {
            case "seed": seed = try reader.uint64(at: "\(place).seed")
            case "invariant": invariant = try reader.int(at: "\(place).invariant")
            case "invariantName": invariantName = try reader.string(at: "\(place).invariantName")
            case "message": message = try reader.string(at: "\(place).message")
            case "step": step = try reader.int(at: "\(place).step")
            case "lastSteps": lastSteps = try reader.strings(at: "\(place).lastSteps")
            default: replay = try reader.string(at: "\(place).replay")
            }
        }
        guard let seed else { throw reader.missingKey("seed", at: place) }
        guard let invariant else { throw reader.missingKey("invariant", at: place) }
        guard let invariantName else { throw reader.missingKey("invariantName", at: place) }
        guard let message else { throw reader.missingKey("message", at: place) }
        guard let step else { throw reader.missingKey("step", at: place) }
        guard let lastSteps else { throw reader.missingKey("lastSteps", at: place) }
        guard let replay else { throw reader.missingKey("replay", at: place) }
        return Self(
            seed: seed, invariant: invariant, invariantName: invariantName, message: message, step: step,
            lastSteps: lastSteps, replay: replay)
    }
}

extension SweepReport.Shard {
    /// Reads `shard`.
    fileprivate static func read(_ reader: inout JSONReader) throws(JSONReadError) -> Self {
        var index: Int?
        var count: Int?
        try reader.object(at: "shard", keys: ["index", "count"]) { key, reader throws(JSONReadError) in
            switch key {
            case "index": index = try reader.int(at: "shard.index")
            default: count = try reader.int(at: "shard.count")
            }
        }
        guard let index else { throw reader.missingKey("index", at: "shard") }
        guard let count else { throw reader.missingKey("count", at: "shard") }
        return Self(index: index, count: count)
    }
}

extension SweepReport.Configuration {
    /// Reads `configuration`, whose optional values are written as `null`.
    fileprivate static func read(_ reader: inout JSONReader) throws(JSONReadError) -> Self {
        let place = "configuration"
        var sweepSeeds: Int?
        var seed: UInt64?
        var steps: Int?
        var devices: Int?
        var backend: String?
        let keys = ["sweepSeeds", "seed", "steps", "devices", "backend"]
        try reader.object(at: place, keys: keys) { key, reader throws(JSONReadError) in
            switch key {
            case "sweepSeeds": sweepSeeds = reader.consumeNull() ? nil : try reader.int(at: "\(place).sweepSeeds")
            case "seed": seed = reader.consumeNull() ? nil : try reader.uint64(at: "\(place).seed")
            case "steps": steps = try reader.int(at: "\(place).steps")
            case "devices": devices = reader.consumeNull() ? nil : try reader.int(at: "\(place).devices")
            default: backend = try reader.string(at: "\(place).backend")
            }
        }
        guard let steps else { throw reader.missingKey("steps", at: place) }
        guard let backend else { throw reader.missingKey("backend", at: place) }
        return Self(
            sweepSeeds: sweepSeeds, seed: seed, steps: steps, devices: devices, backend: backend)
    }
}
