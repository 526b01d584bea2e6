@_spi(Reflection) import Swift

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
        for (label, member) in Self.members(of: type).members {
            switch member.declaration(label: label) {
            case .argument(let spec): arguments.append(spec)
            case .option(let spec): options.append(spec)
            case .flag(let spec): flags.append(spec)
            }
        }
    }

    /// A fresh instance of a type and its declared members, with their properties' names.
    ///
    /// The members register themselves as the instance is made (``MemberRegistration``), and their properties' names
    /// are read from the type's field records, matched by type in declaration order. `Mirror` and a cast of each
    /// property to `any DeclaredMember` found the same, but each first use of a type scans every protocol conformance
    /// in the binary: 3.3M of the 10.2M instructions of `sync status` (callgrind). A type whose fields do not match
    /// its registered members one for one (none of the CLI's) is read through `Mirror` as before.
    ///
    /// - Parameter type: The type that declares the members.
    /// - Returns: The instance, whose members' values ``DeclaredMember/take(_:as:)`` fills in, and its members.
    static func members<Arguments: ParsableArguments>(
        of type: Arguments.Type
    ) -> (instance: Arguments, members: [(label: String, member: any DeclaredMember)]) {
        let (instance, registered) = MemberRegistration.collect { type.init() }
        let labelled = labels(of: type, registered: registered) ?? mirroredProperties(of: instance)
        return (instance, labelled.flatMap { $0.property.declaredMembers(label: $0.label) })
    }

    /// The registered properties paired with the names of the fields that hold them, or `nil` when the type's fields
    /// do not hold exactly those properties, in that order.
    private static func labels(
        of type: Any.Type, registered: [any DeclaredProperty]
    ) -> [(label: String, property: any DeclaredProperty)]? {
        var members: [(label: String, property: any DeclaredProperty)] = []
        members.reserveCapacity(registered.count)
        let isStruct = _forEachField(of: type) { name, _, fieldType, _ in
            if members.count < registered.count,
                ObjectIdentifier(fieldType) == ObjectIdentifier(Swift.type(of: registered[members.count]))
            {
                members.append((String(cString: name), registered[members.count]))
            }
            return true
        }
        guard isStruct, members.count == registered.count else { return nil }
        return members
    }

    /// The declared properties of an instance, with their names, found through `Mirror`.
    private static func mirroredProperties(
        of instance: Any
    ) -> [(label: String, property: any DeclaredProperty)] {
        Mirror(reflecting: instance).children.compactMap { child in
            guard let label = child.label, let property = child.value as? any DeclaredProperty else { return nil }
            return (label, property)
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

/// A property that declares members of a command: an argument, option or flag (a ``DeclaredMember``), or a group of
/// them (an ``OptionGroup``).
protocol DeclaredProperty {
    /// The members the property declares, in order.
    ///
    /// - Parameter label: The name of the property.
    /// - Returns: Each member with the name of the property that declares it: this one's for a member, the group's
    ///   own properties' for a group.
    func declaredMembers(label: String) -> [(label: String, member: any DeclaredMember)]
}

/// A declared argument, option or flag: what it says about itself, and where its value goes.
protocol DeclaredMember: DeclaredProperty {
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

extension DeclaredMember {
    func declaredMembers(label: String) -> [(label: String, member: any DeclaredMember)] {
        [(label, self)]
    }
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
