import Foundation
import Testing

/// Bad inputs, each answered with its documented exit code and a message naming what is wrong, and none of them
/// changing a byte of the world.
@Suite("CLI: bad input")
struct CLIBadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let code: Int32
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let longName = String(repeating: "n", count: 256)
    static let bigFile: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-1mb-\(getpid()).txt").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: UInt8(ascii: "x"), count: 1_100_000))
        return path
    }()

    static func writeTemporary(_ name: String, _ text: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-\(getpid())-\(name)").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    static let badSchema = writeTemporary(
        "both.json",
        #"{"name": "x", "types": [{"name": "A", "fields": []}], "partition": {"userCreated": ["A"], "localOnly": ["A"]}}"#
    )
    static let notJSON = writeTemporary("not.json", "types: [CheckIn]\n")
    static let legacyShard = writeTemporary(
        "legacy.json",
        #"{"seeds": 1, "steps": 2, "simulatedSeconds": 3, "faults": {}, "crashes": 0, "invariantChecks": 4, "failures": []}"#
    )

    /// `record add TYPE --device phone`, then `rest`.
    static func add(_ type: String, _ rest: String...) -> [String] {
        ["record", "add", type, "--device", "phone"] + rest
    }

    /// `record add CheckIn --device phone`, then `rest`, then a valid mood and date (`--field mood=1 --field date=now`).
    static func addCheckIn(_ rest: String...) -> [String] {
        ["record", "add", "CheckIn", "--device", "phone"] + rest + ["--field", "mood=1", "--field", "date=now"]
    }

    /// `fault inject KIND`, then `rest`.
    static func inject(_ kind: String, _ rest: String...) -> [String] {
        ["fault", "inject", kind] + rest
    }

    /// `cloud record put --account alice --type TYPE`, then `rest`.
    static func put(_ type: String, _ rest: String...) -> [String] {
        ["cloud", "record", "put", "--account", "alice", "--type", type] + rest
    }

    static let cases: [Case] = [
        // Usage (64): the command line does not fit.
        Case(arguments: ["frobnicate"], code: 64, message: "unknown command 'frobnicate'"),
        Case(
            arguments: ["sync", "now", "--device", "phone", "--send-only", "--fetch-only"], code: 64,
            message: "cannot be given together"),
        Case(
            arguments: ["sync", "now", "--device", "phone", "--verbose", "x"], code: 64, message: "unexpected argument"),
        Case(arguments: ["sync", "reset"], code: 64, message: "--device"),
        Case(arguments: ["sync", "reset", "--device", "ghost"], code: 66, message: "ghost"),
        Case(arguments: ["sync", "reset", "--device", "a/b"], code: 65, message: "a/b"),
        Case(arguments: ["audit", "--convergence", "extra"], code: 64, message: "unexpected argument"),
        Case(arguments: ["audit", "--convergence", "--convergence"], code: 64, message: "convergence"),
        Case(arguments: ["inspect", "--device", "ghost", "--json"], code: 66, message: "ghost"),
        Case(arguments: ["device"], code: 64, message: "needs a command"),
        Case(arguments: ["device", "add"], code: 64, message: "missing NAME"),
        Case(arguments: ["device", "add", "x", "extra"], code: 64, message: "unexpected argument 'extra'"),
        Case(
            arguments: ["device", "add", "x", "--sync", "maybe"], code: 64,
            message: "'maybe' is not a valid value for '--sync'"),
        Case(arguments: ["device", "add", "x", "--account"], code: 64, message: "needs a value"),
        Case(arguments: ["device", "add", "x", "--colour", "red"], code: 64, message: "unknown option '--colour'"),
        Case(arguments: ["device", "add", "x", "--no-entitlement=yes"], code: 64, message: "does not take a value"),
        Case(arguments: ["sync", "now"], code: 64, message: "missing option '--device NAME'"),
        Case(
            arguments: ["sync", "status", "--device", "phone", "--device", "tablet"], code: 64,
            message: "more than once"),
        Case(arguments: inject("gremlins"), code: 64, message: "'gremlins' is not a valid KIND"),
        Case(
            arguments: ["account", "status", "--device", "phone", "--set", "happy"], code: 64,
            message: "not a valid value"),
        Case(arguments: ["-x"], code: 64, message: "unknown option '-x'"),
        // Bad data (65).
        Case(arguments: ["device", "add", "a/b"], code: 65, message: "invalid device name"),
        Case(arguments: ["device", "add", ".."], code: 65, message: "must start with an ASCII letter or digit"),
        Case(arguments: ["device", "add", "_under"], code: 65, message: "invalid device name"),
        Case(arguments: ["device", "add", longName], code: 65, message: "at most 64"),
        Case(arguments: ["device", "add", "téléphone"], code: 65, message: "only ASCII"),
        Case(arguments: ["device", "add", "phone"], code: 65, message: "already exists"),
        Case(arguments: ["device", "add", "x", "--account", "a/b"], code: 65, message: "invalid account"),
        Case(arguments: ["device", "add", "x", "--account", "alïce"], code: 65, message: "non-ASCII"),
        Case(arguments: ["account", "sign-in", "../bob", "--device", "phone"], code: 65, message: "invalid account"),
        Case(arguments: add("Steps"), code: 65, message: "unknown record type 'Steps'"),
        Case(arguments: add("CheckIn", "--field", "mood=3"), code: 65, message: "needs a value for date"),
        Case(
            arguments: add("CheckIn", "--field", "mood=three", "--field", "date=now"), code: 65,
            message: "not a 64-bit integer"),
        Case(
            arguments: add("CheckIn", "--field", "mood=3", "--field", "date=yesterday"), code: 65, message: "not a date"
        ),
        Case(
            arguments: add("CheckIn", "--field", "mood=3", "--field", "date=now", "--field", "colour=red"), code: 65,
            message: "has no field 'colour'"),
        Case(arguments: add("CheckIn", "--field", "mood"), code: 65, message: "needs KEY=VALUE"),
        Case(
            arguments: add("CheckIn", "--field", "mood=1", "--field", "mood=2", "--field", "date=now"), code: 65,
            message: "given twice"),
        Case(
            arguments: add("CheckIn", "--field", "mood=3", "--field", "date=now", "--field", "note=@\(bigFile)"),
            code: 65, message: "CloudKit allows 1048576"),
        Case(
            arguments: add(
                "Baseline", "--field", "metric=m", "--field", "value=nan", "--field", "computedAt=now", "--field",
                "windowDays=1"), code: 65, message: "not a finite number"),
        Case(
            arguments: add("Goal", "--field", "title=t", "--field", "progress=1", "--field", "achieved=perhaps"),
            code: 65, message: "not true or false"),
        Case(
            arguments: ["record", "list", "--device", "phone", "--type", "Nope"], code: 65,
            message: "unknown record type"),
        Case(arguments: ["record", "edit", "--device", "phone"], code: 64, message: "missing NAME"),
        Case(
            arguments: ["record", "delete", "_private", "--device", "phone"], code: 65,
            message: "starts with an underscore"),
        Case(arguments: ["record", "delete", longName, "--device", "phone"], code: 65, message: "at most 255"),
        Case(arguments: ["record", "delete", "rëcord", "--device", "phone"], code: 65, message: "non-ASCII"),
        Case(arguments: inject("network-failure", "--count", "0"), code: 65, message: "--count must be"),
        Case(arguments: inject("network-failure", "--count", "many"), code: 65, message: "--count must be"),
        Case(arguments: inject("rate-limited", "--retry-after", "-5"), code: 65, message: "--retry-after must be"),
        Case(arguments: inject("rate-limited", "--retry-after", "soon"), code: 65, message: "--retry-after must be"),
        Case(
            arguments: ["account", "status", "--device", "ghost", "--set", "restricted"], code: 66,
            message: "no device named ghost"),
        Case(arguments: ["init", "--container", "com.example.me"], code: 65, message: "must start with 'iCloud.'"),
        Case(arguments: ["init", "--schema", badSchema], code: 65, message: "is in both lists"),
        Case(arguments: ["init", "--schema", notJSON], code: 65, message: "schema"),
        Case(arguments: ["simulate", "--seeds", "lots"], code: 65, message: "--seeds must be"),
        Case(arguments: ["simulate", "--seeds", "10", "--shard", "5/2"], code: 65, message: "--shard must be I/N"),
        Case(arguments: ["simulate", "--devices", "9"], code: 65, message: "--devices must be"),
        Case(arguments: ["simulate", "--seed", "1", "--seeds", "2"], code: 64, message: "not both"),
        Case(arguments: ["simulate", "--trace"], code: 64, message: "--trace replays one run"),
        Case(arguments: ["simulate", "--backend", "cloud"], code: 64, message: "not a valid value"),
        Case(arguments: ["simulate", "--seeds", "4", "--shard", "0/0"], code: 65, message: "--shard must be I/N"),
        Case(arguments: ["simulate", "--seeds", "4", "--shard", "-1/3"], code: 65, message: "--shard must be I/N"),
        Case(arguments: ["simulate", "--seeds", "4", "--shard=-1/3"], code: 65, message: "--shard must be I/N"),
        Case(arguments: ["simulate", "--seeds", "1", "--shard", "00/01"], code: 65, message: "got '00/01'"),
        Case(arguments: ["simulate", "--seeds", "1", "--shard", "+0/1"], code: 65, message: "got '+0/1'"),
        Case(arguments: ["simulate", "--seeds", "4", "--shard", "-x"], code: 64, message: "needs a value"),
        Case(arguments: ["simulate", "--seeds", "4", "--shard", "--json"], code: 64, message: "needs a value"),
        Case(arguments: ["simulate", "--seeds", "4", "--shard", "env"], code: 65, message: "PRIVATESYNC_SHARD_INDEX"),
        Case(arguments: ["simulate", "merge"], code: 64, message: "missing FILE"),
        Case(arguments: ["simulate", "--seeds", "4", "merge", notJSON], code: 64, message: "cannot come before"),
        Case(arguments: ["simulate", "merge", "/nonexistent/shard.json"], code: 66, message: "no shard report"),
        Case(arguments: ["simulate", "merge", notJSON], code: 65, message: "is not the JSON of"),
        Case(arguments: ["simulate", "merge", "/tmp"], code: 65, message: "is a folder"),
        Case(arguments: ["simulate", "merge", legacyShard], code: 65, message: "names no shard"),
        Case(arguments: ["simulate", "--seed", "1", "--timeline", ""], code: 64, message: "needs a file name"),
        Case(arguments: ["simulate", "--seed", "1", "--timeline", "/tmp"], code: 65, message: "names a folder"),
        Case(
            arguments: ["simulate", "--seed", "1", "--timeline", "/nonexistent/t.html"], code: 66,
            message: "does not exist"),
        Case(arguments: ["simulate", "--seeds", "2", "--timeline", ""], code: 64, message: "needs a folder name"),
        Case(arguments: ["simulate", "--seeds", "2", "--timeline", notJSON], code: 65, message: "is a file"),
        Case(
            arguments: ["simulate", "--seeds", "2", "--timeline", "/nonexistent/pages"], code: 66,
            message: "does not exist"),
        Case(arguments: ["inspect"], code: 64, message: "missing option '--device NAME'"),
        Case(arguments: ["inspect", "--html", ""], code: 64, message: "needs a file name"),
        Case(arguments: ["inspect", "--html", "/tmp"], code: 65, message: "names a folder"),
        Case(arguments: ["inspect", "--html", "/nonexistent/w.html"], code: 66, message: "does not exist"),
        Case(arguments: ["inspect", "--html", "w.html", "--device", "phone"], code: 64, message: "without --device"),
        Case(arguments: ["inspect", "--html", "w.html", "--json"], code: 64, message: "not both"),
        Case(
            arguments: add(
                "Note", "--field", "title=t", "--field", "body=b", "--field", "date=now", "--field", "tags=[]",
                "--field", "colour=x"), code: 65, message: "has no field 'colour'"),
        Case(
            arguments: add("WeightEntry", "--field", "date=now", "--field", "kilograms=heavy"), code: 65,
            message: "WeightEntry.kilograms holds double values"),
        Case(arguments: ["record", "edit", "NAME", "--device", "phone"], code: 66, message: "no record named"),
        Case(arguments: ["init", "--schema", "/no/such/schema.json"], code: 66, message: "does not exist"),
        // Missing things (66).
        Case(arguments: ["sync", "status", "--device", "ghost"], code: 66, message: "no device named ghost"),
        Case(arguments: ["sync", "status", "--device", "tablet"], code: 66, message: "never been launched"),
        Case(
            arguments: ["record", "delete", "NO-SUCH-RECORD", "--device", "phone"], code: 66,
            message: "no record named NO-SUCH-RECORD"),
        Case(
            arguments: ["record", "edit", "NO-SUCH-RECORD", "--device", "phone", "--field", "mood=1"], code: 66,
            message: "no record named"),
        Case(
            arguments: add("CheckIn", "--field", "mood=3", "--field", "date=now", "--field", "note=@/no/such/file"),
            code: 66, message: "cannot read the value of 'note'"),
        // Chosen record names (record add --name).
        Case(arguments: addCheckIn("--name", "_x"), code: 65, message: "starts with an underscore"),
        Case(arguments: addCheckIn("--name", ""), code: 65, message: "must not be empty"),
        Case(arguments: addCheckIn("--name", longName), code: 65, message: "at most 255"),
        Case(arguments: addCheckIn("--name", "c1"), code: 65, message: "a record named \"c1\" already exists"),
        Case(arguments: add("CheckIn", "--name"), code: 64, message: "needs a value"),
        // Bulk adds (record add --count).
        Case(
            arguments: addCheckIn("--count", "0"), code: 65, message: "--count must be a whole number from 1 to 10000"),
        Case(
            arguments: addCheckIn("--count", "10001"), code: 65,
            message: "--count must be a whole number from 1 to 10000"),
        Case(arguments: addCheckIn("--count", "x"), code: 65, message: "--count must be a whole number"),
        Case(
            arguments: addCheckIn("--count", "2", "--name", "n"), code: 64,
            message: "it takes neither --name nor --json"),
        // Writes by other clients (cloud ...).
        Case(
            arguments: ["cloud", "record", "put", "--type", "Note"], code: 64, message: "missing option '--account ID'"),
        Case(arguments: ["cloud", "record", "put", "--account", "alice"], code: 64, message: "missing option '--type"),
        Case(arguments: ["cloud", "zone", "list"], code: 64, message: "missing option '--account ID'"),
        Case(arguments: ["cloud", "zone", "delete", "--account", "alice"], code: 64, message: "missing ZONE"),
        Case(arguments: ["cloud", "record", "edit", "--account", "alice"], code: 64, message: "missing NAME"),
        Case(
            arguments: ["cloud", "record", "edit", "c1", "--account", "alice"], code: 64, message: "nothing to change"),
        Case(
            arguments: ["cloud", "record", "put", "--account", "a/b", "--type", "Note"], code: 65,
            message: "invalid account"),
        Case(arguments: put("9Note"), code: 65, message: "must start with an ASCII letter"),
        Case(arguments: put("Note", "--name", "_n"), code: 65, message: "starts with an underscore"),
        Case(arguments: put("Note", "--zone", "_bad"), code: 65, message: "invalid zone name"),
        Case(arguments: put("Note", "--field", "9k=1"), code: 65, message: "invalid field"),
        Case(arguments: put("Note", "--field", "k:colour=1"), code: 65, message: "unknown field type 'colour'"),
        Case(arguments: put("Note", "--field", "k:int64=x"), code: 65, message: "not a 64-bit integer"),
        Case(arguments: put("Note", "--field", "k=1", "--field", "k=2"), code: 65, message: "given twice"),
        Case(arguments: put("Note", "--field", "k"), code: 65, message: "needs KEY=VALUE or KEY:TYPE=VALUE"),
        Case(arguments: put("CheckIn", "--name", "c1"), code: 65, message: "already exists"),
        Case(arguments: put("CheckIn", "--field", "mood:string=x"), code: 65, message: "holds int64 values"),
        Case(
            arguments: ["cloud", "record", "edit", "c1", "--account", "alice", "--stale", "--field", "mood=x"],
            code: 65, message: "not a 64-bit integer"),
        Case(
            arguments: ["cloud", "zone", "delete", "_defaultZone", "--account", "alice"], code: 65,
            message: "cannot be deleted"),
        Case(
            arguments: ["cloud", "record", "edit", "NOPE", "--account", "alice", "--field", "mood=1"], code: 66,
            message: "does not exist"),
        Case(
            arguments: ["cloud", "record", "edit", "c1", "--account", "bob", "--field", "mood=1"], code: 66,
            message: "has no container database"),
        Case(arguments: ["cloud", "record", "delete", "NOPE", "--account", "alice"], code: 66, message: "unknownItem"),
        Case(arguments: ["cloud", "record", "delete", "c1", "--account", "bob"], code: 66, message: "no container"),
        Case(
            arguments: ["cloud", "record", "delete", "c1", "--account", "alice", "--zone", "Missing"], code: 66,
            message: "zoneNotFound"),
        Case(
            arguments: ["cloud", "record", "list", "--account", "alice", "--zone", "Missing"], code: 66,
            message: "zoneNotFound"),
        Case(
            arguments: ["cloud", "zone", "delete", "Missing", "--account", "alice"], code: 66, message: "zoneNotFound"),
        Case(arguments: ["cloud", "zone", "delete", "Missing", "--account", "bob"], code: 66, message: "no container"),
        // Aimed faults (fault inject --device/--record/--after).
        Case(arguments: inject("network-failure", "--after", "-1"), code: 65, message: "--after must be"),
        Case(arguments: inject("network-failure", "--after", "many"), code: 65, message: "--after must be"),
        Case(arguments: inject("network-failure", "--after", "1000001"), code: 65, message: "--after must be"),
        Case(arguments: inject("network-failure", "--count", "1000001"), code: 65, message: "--count must be"),
        Case(arguments: inject("partial-failure", "--record", "_x"), code: 65, message: "starts with an underscore"),
        Case(arguments: inject("partial-failure", "--record", ""), code: 65, message: "must not be empty"),
        Case(arguments: inject("zone-not-found", "--device", "a/b"), code: 65, message: "invalid device name"),
        Case(arguments: inject("zone-not-found", "--device", "ghost"), code: 66, message: "no device named ghost"),
        Case(arguments: inject("delayed-delivery", "--after"), code: 64, message: "needs a value"),
    ]

    @Test("each bad input gets its exit code and a precise message, and the world is unchanged", arguments: cases)
    func badInput(_ testCase: Case) throws {
        let cli = try CLIRunner.world(launching: "phone")
        try cli.ok("device", "add", "tablet", "--account", "alice", "--sync", "on")
        try cli.addCheckIn(mood: 1, on: "phone", "--name", "c1")
        try cli.ok("sync", "now", "--device", "phone")
        let before = try cli.worldDigest()
        let run = try cli.run(testCase.arguments)
        #expect(run.status == testCase.code, "stderr: \(run.standardError)")
        #expect(run.standardError.contains(testCase.message), "stderr: \(run.standardError)")
        #expect(run.standardError.hasPrefix("error: "))
        #expect(try cli.worldDigest() == before, "the world changed")
    }

    @Test("a file name thousands of characters long is cut to its first 200 in the refusal")
    func longSchemaNameIsCut() throws {
        // `./` repeated: a path that names the real (bad) schema file and is far longer than any message should be.
        let folder = FileManager.default.temporaryDirectory.path
        let name = URL(fileURLWithPath: Self.badSchema).lastPathComponent
        let long = folder + String(repeating: "/.", count: 1_800) + "/" + name
        #expect(FileManager.default.fileExists(atPath: long))
        let missing = folder + String(repeating: "/.", count: 1_800) + "/no-such-schema.json"
        for (path, code, words) in [(long, Int32(65), "is in both lists"), (missing, 66, "does not exist")] {
            let run = try CLIRunner.fresh().run(["init", "--schema", path])
            #expect(run.status == code, "\(run.standardError.prefix(300))")
            #expect(run.standardError.contains(words), "\(run.standardError.prefix(300))")
            #expect(run.standardError.contains(path.prefix(200) + "..."), "\(run.standardError.prefix(300))")
            #expect(run.standardError.count < 600, "\(run.standardError.count) characters")
        }
    }

    @Test("a world that does not exist is reported with 66, and nothing is created")
    func missingWorld() throws {
        let cli = CLIRunner.fresh()
        let run = try cli.run(["device", "list"])
        #expect(run.status == 66)
        #expect(run.standardError.contains("no world at"))
        #expect(!FileManager.default.fileExists(atPath: cli.home))
    }
}
