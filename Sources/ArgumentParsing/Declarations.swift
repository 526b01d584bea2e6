/// The arguments, options and flags a type declares, in the order it declares them.
struct Declarations {
    /// Positional arguments, in order.
    var arguments: [ArgumentSpec] = []
    /// Options that take a value.
    var options: [OptionSpec] = []
    /// Flags: options without a value.
    var flags: [FlagSpec] = []

    /// The declarations of a type.
    init(of type: any ParsableArguments.Type) {
        for (label, member) in Self.members(of: type.init()) {
            switch member.declaration(label: label) {
            case .argument(let spec): arguments.append(spec)
            case .option(let spec): options.append(spec)
            case .flag(let spec): flags.append(spec)
            }
        }
    }

    /// The declared members of an instance, with their properties' names.
    static func members(of instance: any ParsableArguments) -> [(label: String, member: any DeclaredMember)] {
        Mirror(reflecting: instance).children.compactMap { child in
            guard let label = child.label, let member = child.value as? any DeclaredMember else { return nil }
            return (label, member)
        }
    }

    /// The name of an option or flag declared by a property: its name without a property wrapper's leading `_`, in
    /// kebab case (`retryAfter` is `retry-after`).
    static func optionName(label: String) -> String {
        var name = ""
        for character in label.drop(while: { $0 == "_" }) {
            if character.isUppercase {
                name += "-" + character.lowercased()
            } else {
                name.append(character)
            }
        }
        return name
    }
}

/// A declared argument, option or flag: what it says about itself, and where its value goes.
protocol DeclaredMember {
    /// What the member declares, for parsing and help.
    ///
    /// - Parameter label: The name of the property that declares it.
    func declaration(label: String) -> Declaration

    /// Takes the member's values from the command line and keeps the typed value.
    ///
    /// - Parameters:
    ///   - values: The values given, in order (for a flag, one element when it is on).
    ///   - name: How messages name the member: `--count`, or `NAME` for an argument.
    /// - Throws: ``ValueError`` when its parser refuses a value.
    func take(_ values: [String], as name: String) throws(ValueError)
}

/// What a member declares.
enum Declaration {
    case argument(ArgumentSpec)
    case option(OptionSpec)
    case flag(FlagSpec)
}

/// Where a declared member keeps its value once the command line is decoded.
final class ValueBox<Value> {
    var value: Value?
}
