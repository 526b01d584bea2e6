/// An option that takes a value, `--name VALUE` or `--name=VALUE`, declared as a property:
///
/// ```swift
/// @Option(valueName: "N", help: "How many.", parsing: .wholeNumber(in: 1...10)) var count: Int?
/// ```
///
/// A property of a non-optional type is a required option; an optional one may be left out; an array one may be
/// repeated. Its name is the property's, in kebab case, unless given.
@propertyWrapper
package struct Option<Value>: DeclaredMember {
    private let name: String?
    private let valueName: String
    private let help: String
    private let isRequired: Bool
    private let isRepeatable: Bool
    private let allowedValues: [String]?
    private let convert: (_ values: [String], _ name: String) throws(ValueError) -> Value
    private let box = ValueBox<Value>()

    /// The value given; read only once the command line is decoded.
    package var wrappedValue: Value {
        guard let value = box.value else { fatalError("--\(name ?? valueName) was read before it was parsed") }
        return value
    }

    private init(
        name: String?, valueName: String, help: String, isRequired: Bool, isRepeatable: Bool,
        allowedValues: [String]?, convert: @escaping (_ values: [String], _ name: String) throws(ValueError) -> Value
    ) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.isRequired = isRequired
        self.isRepeatable = isRepeatable
        self.allowedValues = allowedValues
        self.convert = convert
        MemberRegistration.register(self)
    }

    func declaration(label: String) -> Declaration {
        .option(
            OptionSpec(
                name: name ?? Declarations.optionName(label: label), valueName: valueName, help: help,
                isRequired: isRequired, isRepeatable: isRepeatable, allowedValues: allowedValues))
    }

    func take(_ values: [String], as name: String) throws(ValueError) {
        box.value = try convert(values, name)
    }
}

extension Option {
    /// A required option.
    package init(name: String? = nil, valueName: String, help: String, parsing parser: ValueParser<Value>) {
        self.init(
            name: name, valueName: valueName, help: help, isRequired: true, isRepeatable: false,
            allowedValues: parser.allowedValues
        ) { (values, name) throws(ValueError) in
            try parser.parse(values.last ?? "", as: name)
        }
    }

    /// An option that may be left out: `nil` then.
    package init<Wrapped>(name: String? = nil, valueName: String, help: String, parsing parser: ValueParser<Wrapped>)
    where Value == Wrapped? {
        self.init(
            name: name, valueName: valueName, help: help, isRequired: false, isRepeatable: false,
            allowedValues: parser.allowedValues
        ) { (values, name) throws(ValueError) in
            guard let text = values.last else { return nil }
            return try parser.parse(text, as: name)
        }
    }

    /// An option that may be given any number of times: its values in the order given.
    package init<Element>(name: String? = nil, valueName: String, help: String, parsing parser: ValueParser<Element>)
    where Value == [Element] {
        self.init(
            name: name, valueName: valueName, help: help, isRequired: false, isRepeatable: true,
            allowedValues: parser.allowedValues
        ) { (values, name) throws(ValueError) in
            var parsed: [Element] = []
            for text in values { parsed.append(try parser.parse(text, as: name)) }
            return parsed
        }
    }
}

extension Option where Value == String {
    /// A required option whose value is its text.
    package init(name: String? = nil, valueName: String, help: String) {
        self.init(name: name, valueName: valueName, help: help, parsing: .string)
    }
}

extension Option where Value == String? {
    /// An option whose value is its text, `nil` when left out.
    package init(name: String? = nil, valueName: String, help: String) {
        self.init(name: name, valueName: valueName, help: help, parsing: ValueParser<String>.string)
    }
}

extension Option where Value == [String] {
    /// An option that may be repeated, whose values are their text.
    package init(name: String? = nil, valueName: String, help: String) {
        self.init(name: name, valueName: valueName, help: help, parsing: ValueParser<String>.string)
    }
}
