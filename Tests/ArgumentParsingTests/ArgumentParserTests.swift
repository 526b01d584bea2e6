import Testing

@testable import ArgumentParsing

/// The tool the tests parse: `tool make NAME --size N [--tag T ...] [--mode on|off] [--quiet]`, `tool run`, which
/// runs by itself or through `tool run merge FILE...`, and `tool copy SOURCE NAME --to T [--force]`, whose `NAME` and
/// `--to` are a group.
private struct Tool: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "tool", abstract: "A tool.", subcommands: [Make.self, Run.self, Copy.self])
    }
}

private struct Globals: ParsableArguments {
    @Option(valueName: "DIR", help: "Home.") var home: String?
}

private struct Make: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "make", abstract: "Make a thing.")
    }

    @Argument(valueName: "NAME", help: "The name.") var name: String
    @Option(valueName: "N", help: "The size.", parsing: .positive) var size: Int
    @Option(valueName: "T", help: "A tag.") var tag: [String]
    @Option(valueName: "on|off", help: "A mode.", parsing: .oneOf([("on", true), ("off", false)])) var mode: Bool?
    @Flag(help: "Say less.") var quiet: Bool
    @Flag(help: "Say it twice.") var sayTwice: Bool
}

private struct Run: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "run", abstract: "Run.", subcommands: [Merge.self], runsWithoutSubcommand: true)
    }

    @Option(valueName: "N", help: "How many.") var count: String?
    @Flag(help: "JSON.") var json: Bool
}

private struct Merge: ParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(commandName: "merge", abstract: "Merge.") }

    @Argument(valueName: "FILE", help: "A file.") var files: [String]
    @Flag(help: "JSON.") var json: Bool
}

/// Where `copy` puts its copy: an argument and an option declared once, for any command that names a target.
private struct Target: ParsableArguments {
    @Argument(valueName: "NAME", help: "The copy's name.") var name: String
    @Option(valueName: "T", help: "Where it goes.") var to: String
}

private struct Copy: ParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(commandName: "copy", abstract: "Copy.") }

    @Argument(valueName: "SOURCE", help: "What to copy.") var source: String
    @OptionGroup var target: Target
    @Flag(help: "Replace.") var force: Bool
}

extension ValueParser where Value == Int {
    /// A whole number above zero.
    fileprivate static var positive: ValueParser<Int> {
        ValueParser { text, name in
            guard let value = Int(text), value > 0 else { return .failure(ValueError("\(name) must be above 0")) }
            return .success(value)
        }
    }
}

@Suite("Argument parser")
struct ArgumentParserTests {
    private static var parser: ArgumentParser { ArgumentParser(root: Tool.self, global: Globals.self) }

    @Test("options, repeated options, flags, arguments and a global option anywhere, each value typed")
    func parsesEverything() throws {
        let parsed = try Self.parser.parse([
            "--home", "/h", "make", "x", "--size=3", "--tag", "a", "--quiet", "--tag", "b", "--mode", "off",
        ])
        #expect(parsed.path == ["make"])
        let make = try #require(try parsed.decodeCommand() as? Make)
        #expect(make.name == "x")
        #expect(make.size == 3)
        #expect(make.tag == ["a", "b"])
        #expect(make.mode == false)
        #expect(make.quiet)
        #expect(!make.sayTwice)
        #expect(try parsed.decode(Globals.self).home == "/h")
    }

    @Test("an option left out is nil, a repeatable one empty")
    func optionsLeftOut() throws {
        let make = try #require(try Self.parser.parse(["make", "x", "--size", "1"]).decodeCommand() as? Make)
        #expect(make.mode == nil)
        #expect(make.tag.isEmpty)
        #expect(try Self.parser.parse(["make", "x", "--size", "1"]).decode(Globals.self).home == nil)
    }

    @Test("a value its parser refuses is a value error naming the option, not a usage error")
    func refusedValue() throws {
        let parsed = try Self.parser.parse(["make", "x", "--size", "0"])
        let error = #expect(throws: ValueError.self) { try parsed.decodeCommand() }
        #expect(error?.message == "--size must be above 0")
    }

    @Test("a flag's name is its property's in kebab case")
    func kebabCaseNames() throws {
        let make = try #require(
            try Self.parser.parse(["make", "x", "--size", "1", "--say-twice"]).decodeCommand() as? Make)
        #expect(make.sayTwice)
        #expect(Declarations.optionName(label: "_retryAfter") == "retry-after")
    }

    @Test("-- ends options, so a value may start with a dash")
    func doubleDashEndsOptions() throws {
        #expect(try Self.parser.parse(["make", "--size", "1", "--", "-weird"]).arguments == ["-weird"])
        #expect(
            try Self.parser.parse(["make", "-5", "--size", "-1"]).arguments == ["-5"], "negative numbers are values")
    }

    @Test("a value that starts with a dash and a digit is the option's value, so that its parser can name the range")
    func dashDigitIsAValue() throws {
        #expect(try Self.parser.parse(["make", "x", "--size", "-1/3"]).options["size"] == ["-1/3"])
        #expect(try Self.parser.parse(["make", "x", "--size", "-0x5"]).options["size"] == ["-0x5"])
        let error = #expect(throws: ValueError.self) {
            try Self.parser.parse(["make", "x", "--size", "-1/3"]).decodeCommand()
        }
        #expect(error?.message == "--size must be above 0")
    }

    static let optionLike: [(String, Bool)] = [
        ("--quiet", true), ("--", true), ("--5", true), ("-h", true), ("-x1", true), ("-", false), ("", false),
        ("x", false), ("-5", false), ("-1/3", false), ("-0.5", false), ("-.5", false), ("-1e3", false),
        ("-12abc", false),
    ]

    @Test(
        "after an option that takes a value, only --NAME, -- or a dash then a non-digit is another option",
        arguments: optionLike)
    func looksLikeOption(_ token: String, _ isOption: Bool) {
        #expect(ArgumentParser.looksLikeOption(token) == isOption)
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
        let error = #expect(throws: UsageError.self) { try Self.parser.parse(arguments) }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test("help lists arguments, options with their values, flags and the global options")
    func helpText() {
        let help = HelpFormatter(parser: Self.parser).help(["make"])
        #expect(help.hasPrefix("OVERVIEW: Make a thing."))
        #expect(help.contains("USAGE: tool make NAME --size N [--tag T ...] [--mode on|off] [--quiet] [--say-twice]"))
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

    @Test(
        "a group's argument and option take their places in the command at the group's place, named as the group names them"
    )
    func optionGroup() throws {
        let copy = try #require(
            try Self.parser.parse(["copy", "a", "--force", "b", "--to", "t"]).decodeCommand() as? Copy)
        #expect(copy.source == "a")
        #expect(copy.target.name == "b")
        #expect(copy.target.to == "t")
        #expect(copy.force)
        #expect(HelpFormatter(parser: Self.parser).usage(["copy"]) == "tool copy SOURCE NAME --to T [--force]")
        let missing = #expect(throws: UsageError.self) { try Self.parser.parse(["copy", "a", "b"]) }
        #expect(missing?.message.contains("missing option '--to T'") == true, "\(String(describing: missing))")
        let extra = #expect(throws: UsageError.self) { try Self.parser.parse(["copy", "a", "b", "c", "--to", "t"]) }
        #expect(extra?.message.contains("unexpected argument 'c'") == true, "\(String(describing: extra))")
    }

    @Test("a command that runs by itself also takes its subcommands, whose last argument may repeat")
    func commandWithOptionalSubcommandAndVariadicArgument() throws {
        let alone = try Self.parser.parse(["run", "--count", "3", "--json"])
        #expect(alone.path == ["run"])
        #expect((try alone.decodeCommand() as? Run)?.count == "3")
        let parsed = try Self.parser.parse(["--home", "/h", "run", "merge", "a.json", "b.json", "--json", "c.json"])
        #expect(parsed.path == ["run", "merge"])
        let merge = try #require(try parsed.decodeCommand() as? Merge)
        #expect(merge.files == ["a.json", "b.json", "c.json"])
        #expect(merge.json)
        #expect(throws: UsageError.self) { try Self.parser.parse(["run", "merge"]) }
        #expect(throws: UsageError.self) { try Self.parser.parse(["run", "--count", "3", "merge", "a.json"]) }
        #expect(throws: UsageError.self) { try Self.parser.parse(["run", "stray"]) }
        #expect(HelpFormatter(parser: Self.parser).usage(["run", "merge"]) == "tool run merge FILE... [--json]")
        #expect(HelpFormatter(parser: Self.parser).usage(["run"]).hasPrefix("tool run [<command>]"))
    }
}
