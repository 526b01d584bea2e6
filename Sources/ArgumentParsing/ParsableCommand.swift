/// A type whose stored properties are declared arguments, options and flags (``Argument``, ``Option``, ``Flag``), as
/// in swift-argument-parser: parsing, validation and help come from those declarations, and each value arrives in its
/// property, typed.
///
/// Declarations are found on a fresh instance, in the order they are written (each registers itself as it is made,
/// and its property's name is read from the type's field records); an option's or a flag's
/// name is its property's, in kebab case (`sendOnly` is `--send-only`), unless it names itself.
package protocol ParsableArguments {
    /// An instance with every declaration and no value yet; ``ArgumentParser`` fills the values in.
    init()

    /// Checks what the declarations alone cannot: options that exclude or need one another. Called once the values
    /// are in, before the command runs; the default accepts everything.
    ///
    /// - Throws: The caller's error for a combination the command refuses.
    func validate() throws
}

extension ParsableArguments {
    package func validate() throws {}
}

/// A command: its ``configuration`` (name, what it does, its subcommands) and its declared arguments, options and
/// flags.
package protocol ParsableCommand: ParsableArguments {
    /// The command's name, what it does, and its subcommands.
    static var configuration: CommandConfiguration { get }
}

extension ParsableArguments {
    /// An instance whose declared values are taken from a parsed command line, in the order they are declared.
    ///
    /// - Parameter parsed: The command line, already checked against the declarations.
    /// - Returns: The instance, every value in place.
    /// - Throws: ``ValueError`` for the first value its declaration's ``ValueParser`` refuses.
    static func decode(from parsed: ParsedCommand) throws(ValueError) -> Self {
        let (instance, members) = Declarations.members(of: Self.self)
        var position = 0
        for (label, member) in members {
            switch member.declaration(label: label) {
            case .argument(let spec):
                let values =
                    spec.isVariadic
                    ? Array(parsed.arguments.dropFirst(position))
                    : Array(parsed.arguments.dropFirst(position).prefix(1))
                position += values.count
                try member.take(values, as: spec.valueName)
            case .option(let spec):
                try member.take(parsed.options[spec.name] ?? [], as: "--\(spec.name)")
            case .flag(let spec):
                try member.take(parsed.flags.contains(spec.name) ? [spec.name] : [], as: "--\(spec.name)")
            }
        }
        return instance
    }
}
