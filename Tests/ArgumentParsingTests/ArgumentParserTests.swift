import Testing

@testable import ArgumentParsing

@Suite("Argument parser")
struct ArgumentParserTests {
    static let parser = ArgumentParser(
        root: CommandSpec(
            "tool", abstract: "A tool.",
            subcommands: [
                CommandSpec(
                    "make", abstract: "Make a thing.", arguments: [ArgumentSpec("NAME", help: "The name.")],
                    options: [
                        OptionSpec("size", valueName: "N", help: "The size.", isRequired: true),
                        OptionSpec("tag", valueName: "T", help: "A tag.", isRepeatable: true),
                        OptionSpec("mode", valueName: "on|off", help: "A mode.", allowedValues: ["on", "off"]),
                    ], flags: [FlagSpec("quiet", help: "Say less.")])
            ]),
        globalOptions: [OptionSpec("home", valueName: "DIR", help: "Home.")])

    @Test("options, repeated options, flags, arguments and a global option anywhere")
    func parsesEverything() throws {
        let parsed = try Self.parser.parse([
            "--home", "/h", "make", "x", "--size=3", "--tag", "a", "--quiet", "--tag", "b",
        ])
        #expect(parsed.path == ["make"])
        #expect(parsed.arguments == ["x"])
        #expect(parsed.option("size") == "3")
        #expect(parsed.options["tag"] == ["a", "b"])
        #expect(parsed.flag("quiet"))
        #expect(parsed.option("home") == "/h")
    }

    @Test("-- ends options, so a value may start with a dash")
    func doubleDashEndsOptions() throws {
        #expect(try Self.parser.parse(["make", "--size", "1", "--", "-weird"]).arguments == ["-weird"])
        #expect(
            try Self.parser.parse(["make", "-5", "--size", "-1"]).arguments == ["-5"], "negative numbers are values")
    }

    @Test("--help is honoured anywhere, even on an incomplete line")
    func helpAnywhere() throws {
        let parsed = try Self.parser.parse(["make", "--help"])
        #expect(parsed.helpRequested && parsed.path == ["make"])
    }

    @Test(
        "usage errors name what is wrong",
        arguments: [
            (["nope"], "unknown command 'nope'"), ([], "needs a command"), (["make", "--size", "1"], "missing NAME"),
            (["make", "x"], "missing option '--size N'"), (["make", "x", "--size"], "needs a value"),
            (["make", "x", "--size", "1", "--size", "2"], "more than once"),
            (["make", "x", "y", "--size", "1"], "unexpected argument 'y'"),
            (["make", "x", "--size", "1", "--mode", "auto"], "not a valid value"),
            (["make", "x", "--size", "1", "--what"], "unknown option '--what'"),
            (["make", "x", "--size", "1", "--quiet=yes"], "does not take a value"),
        ])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            try Self.parser.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.message.contains(message) == true
        }
    }

    @Test("help lists arguments, options with their values, flags and the global options")
    func helpText() {
        let help = HelpFormatter(parser: Self.parser).help(["make"])
        #expect(help.hasPrefix("OVERVIEW: Make a thing."))
        #expect(help.contains("USAGE: tool make NAME --size N [--tag T ...] [--mode on|off] [--quiet]"))
        #expect(help.contains("--home DIR"))
        #expect(help.contains("-h, --help"))
    }

    @Test("a flag given twice is refused, as an option given twice is")
    func flagTwice() {
        #expect(throws: UsageError.self) { try Self.parser.parse(["make", "x", "--size", "1", "--quiet", "--quiet"]) }
        #expect(throws: UsageError.self) { try Self.parser.parse(["make", "x", "--size", "1", "--size", "2"]) }
    }

    static let invalidUTF8: [[UInt8]] = [
        [0xFF], [0x61, 0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x61, 0x80, 0x62],
    ]

    @Test("an argument that is not valid UTF-8 is refused, naming its position", arguments: invalidUTF8)
    func invalidArgument(_ bytes: [UInt8]) throws {
        let error = try #require(throws: UsageError.self) {
            try CommandLineArguments.decode([Array("make".utf8), bytes])
        }
        #expect(error.message.contains("argument 2 is not valid UTF-8"))
    }

    @Test("valid UTF-8 arguments, including the empty one, decode unchanged")
    func validArguments() throws {
        let arguments = ["", "café", "☕️", "a\u{1B}b", "--x=y"]
        #expect(try CommandLineArguments.decode(arguments.map { Array($0.utf8) }) == arguments)
    }

    static let runner = ArgumentParser(
        root: CommandSpec(
            "tool", abstract: "A tool.",
            subcommands: [
                CommandSpec(
                    "run", abstract: "Run.", options: [OptionSpec("count", valueName: "N", help: "How many.")],
                    flags: [FlagSpec("json", help: "JSON.")],
                    subcommands: [
                        CommandSpec(
                            "merge", abstract: "Merge.",
                            arguments: [ArgumentSpec("FILE", help: "A file.", isVariadic: true)],
                            flags: [FlagSpec("json", help: "JSON.")])
                    ], runsWithoutSubcommand: true)
            ]),
        globalOptions: [OptionSpec("home", valueName: "DIR", help: "Home.")])

    @Test("a command that runs by itself also takes its subcommands, whose last argument may repeat")
    func commandWithOptionalSubcommandAndVariadicArgument() throws {
        let alone = try Self.runner.parse(["run", "--count", "3", "--json"])
        #expect(alone.path == ["run"])
        #expect(alone.option("count") == "3")
        let merge = try Self.runner.parse(["--home", "/h", "run", "merge", "a.json", "b.json", "--json", "c.json"])
        #expect(merge.path == ["run", "merge"])
        #expect(merge.arguments == ["a.json", "b.json", "c.json"])
        #expect(merge.flag("json"))
        #expect(throws: UsageError.self) { try Self.runner.parse(["run", "merge"]) }
        #expect(throws: UsageError.self) { try Self.runner.parse(["run", "--count", "3", "merge", "a.json"]) }
        #expect(throws: UsageError.self) { try Self.runner.parse(["run", "stray"]) }
        #expect(HelpFormatter(parser: Self.runner).usage(["run", "merge"]) == "tool run merge FILE... [--json]")
        #expect(HelpFormatter(parser: Self.runner).usage(["run"]).hasPrefix("tool run [<command>]"))
    }
}
