/// A command line, parsed: which command it chose, and its values as text, checked against the command's
/// declarations. ``decodeCommand()`` turns them into the command, its values typed.
package struct ParsedCommand {
    /// The names of the commands chosen, from the root's subcommand down (`["device", "add"]`).
    package var path: [String]
    /// The command chosen.
    package var command: any ParsableCommand.Type
    /// Positional arguments, in order.
    package var arguments: [String]
    /// Each option's values, in the order given (global options too).
    package var options: [String: [String]]
    /// The flags given.
    package var flags: Set<String>
    /// Whether `--help` (or `-h`) was given: the caller prints help for ``path`` and does nothing else.
    package var helpRequested: Bool

    /// The chosen command, its declared values taken from the line.
    ///
    /// - Throws: ``ValueError`` for the first value (in the order declared) that its parser refuses.
    package func decodeCommand() throws(ValueError) -> any ParsableCommand {
        try command.decode(from: self)
    }

    /// The values of a group of options declared apart from the command, such as the global options.
    ///
    /// - Throws: ``ValueError`` for the first value its parser refuses.
    package func decode<Group: ParsableArguments>(_ group: Group.Type) throws(ValueError) -> Group {
        try group.decode(from: self)
    }
}

/// A command line that does not fit its command: what is wrong, and for which command.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one sentence.
    package let message: String
    /// The command it concerns (`["device", "add"]`), for the usage line and the pointer to `--help`.
    package let path: [String]

    /// Creates an error.
    package init(_ message: String, path: [String]) {
        self.message = message
        self.path = path
    }

    package var description: String { message }
}
