/// A positional argument, declared as a property; every one is required:
///
/// ```swift
/// @Argument(valueName: "NAME", help: "The device.") var name: String
/// ```
///
/// An array property is variadic (one or more values), and must be the command's last argument.
@propertyWrapper
package struct Argument<Value>: DeclaredMember {
    private let valueName: String
    private let help: String
    private let isVariadic: Bool
    private let allowedValues: [String]?
    private let convert: (_ values: [String], _ name: String) throws(ValueError) -> Value
    private let box = ValueBox<Value>()

    /// The value given; read only once the command line is decoded.
    package var wrappedValue: Value {
        guard let value = box.value else { fatalError("\(valueName) was read before it was parsed") }
        return value
    }

    /// A required argument.
    package init(valueName: String, help: String, parsing parser: ValueParser<Value>) {
        self.valueName = valueName
        self.help = help
        self.isVariadic = false
        self.allowedValues = parser.allowedValues
        self.convert = { (values, name) throws(ValueError) in try parser.parse(values.first ?? "", as: name) }
        MemberRegistration.register(self)
    }

    /// A variadic argument: one or more values.
    package init<Element>(valueName: String, help: String, parsing parser: ValueParser<Element>)
    where Value == [Element] {
        self.valueName = valueName
        self.help = help
        self.isVariadic = true
        self.allowedValues = parser.allowedValues
        self.convert = { (values, name) throws(ValueError) in
            var parsed: [Element] = []
            for text in values { parsed.append(try parser.parse(text, as: name)) }
            return parsed
        }
        MemberRegistration.register(self)
    }

    func declaration(label: String) -> Declaration {
        .argument(ArgumentSpec(valueName: valueName, help: help, allowedValues: allowedValues, isVariadic: isVariadic))
    }

    func take(_ values: [String], as name: String) throws(ValueError) {
        box.value = try convert(values, name)
    }
}

extension Argument where Value == String {
    /// A required argument whose value is its text.
    package init(valueName: String, help: String) {
        self.init(valueName: valueName, help: help, parsing: .string)
    }
}

extension Argument where Value == [String] {
    /// A variadic argument whose values are their text.
    package init(valueName: String, help: String) {
        self.init(valueName: valueName, help: help, parsing: ValueParser<String>.string)
    }
}
