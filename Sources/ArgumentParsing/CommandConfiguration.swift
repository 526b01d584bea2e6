/// What a command says about itself, beyond its arguments and options: its name, what it does, examples, and its
/// subcommands.
package struct CommandConfiguration {
    /// The command's name, as typed.
    package var commandName: String
    /// One line saying what the command does.
    package var abstract: String
    /// More about it, for `--help`.
    package var discussion: String?
    /// Example invocations, for `--help`.
    package var examples: [String]
    /// Subcommands; a command with subcommands needs one, unless it ``runsWithoutSubcommand``.
    package var subcommands: [any ParsableCommand.Type]
    /// Whether the command runs by itself as well as through its subcommands (`simulate` and `simulate merge`).
    /// Its own options and flags must then come after its name and before no subcommand.
    package var runsWithoutSubcommand: Bool

    /// Creates a configuration.
    package init(
        commandName: String, abstract: String, discussion: String? = nil, examples: [String] = [],
        subcommands: [any ParsableCommand.Type] = [], runsWithoutSubcommand: Bool = false
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.examples = examples
        self.subcommands = subcommands
        self.runsWithoutSubcommand = runsWithoutSubcommand
    }

    /// The subcommand of that name.
    func subcommand(_ name: String) -> (any ParsableCommand.Type)? {
        subcommands.first { $0.configuration.commandName == name }
    }
}
