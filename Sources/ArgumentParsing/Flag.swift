/// A flag, `--name`, on when present, declared as a `Bool` property:
///
/// ```swift
/// @Flag(help: "Print JSON.") var json: Bool
/// ```
///
/// Its name is the property's, in kebab case, unless given.
@propertyWrapper
package struct Flag: DeclaredMember {
    private let name: String?
    private let help: String
    private let box = ValueBox<Bool>()

    /// Whether the flag was given; read only once the command line is decoded.
    package var wrappedValue: Bool {
        guard let value = box.value else { fatalError("--\(name ?? "flag") was read before it was parsed") }
        return value
    }

    /// A flag.
    package init(name: String? = nil, help: String) {
        self.name = name
        self.help = help
        MemberRegistration.register(self)
    }

    func declaration(label: String) -> Declaration {
        .flag(FlagSpec(name: name ?? Declarations.optionName(label: label), help: help))
    }

    func take(_ values: [String], as name: String) throws(ValueError) {
        box.value = !values.isEmpty
    }
}
