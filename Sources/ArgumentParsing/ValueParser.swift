/// How a declared argument or option turns its text into a typed value.
///
/// A parser with ``allowedValues`` takes one of a list: the parser refuses any other value as a usage error, and the
/// help lists them. Any other parser may refuse a value with a ``ValueError``.
package struct ValueParser<Value> {
    /// The only values accepted, if restricted.
    package let allowedValues: [String]?
    private let convert: (_ text: String, _ name: String) -> Result<Value, ValueError>

    /// Creates a parser.
    ///
    /// - Parameter convert: Turns a value into `Value`, given how messages name the option (`--count`) or argument
    ///   (`NAME`); a value it cannot take is a `.failure`.
    package init(_ convert: @escaping (_ text: String, _ name: String) -> Result<Value, ValueError>) {
        self.allowedValues = nil
        self.convert = convert
    }

    /// A parser that takes one of a list of values, each standing for a typed value.
    ///
    /// - Parameter choices: Each accepted text and its value, in the order help lists them.
    package static func oneOf(_ choices: [(text: String, value: Value)]) -> ValueParser {
        ValueParser(allowedValues: choices.map(\.text)) { text, name in
            guard let choice = choices.first(where: { $0.text == text }) else {
                return .failure(ValueError("'\(text)' is not a valid value for '\(name)'"))
            }
            return .success(choice.value)
        }
    }

    private init(
        allowedValues: [String]?, _ convert: @escaping (_ text: String, _ name: String) -> Result<Value, ValueError>
    ) {
        self.allowedValues = allowedValues
        self.convert = convert
    }

    /// The value of `text`.
    ///
    /// - Parameters:
    ///   - text: The value as given.
    ///   - name: How messages name the option or argument.
    /// - Throws: ``ValueError`` for a value the parser refuses.
    func parse(_ text: String, as name: String) throws(ValueError) -> Value {
        try convert(text, name).get()
    }
}

extension ValueParser where Value == String {
    /// The text as given.
    package static var string: ValueParser<String> { ValueParser { text, _ in .success(text) } }
}

extension ValueParser where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
    /// One of the type's cases, by its raw value, in the order of `allCases`.
    package static var cases: ValueParser<Value> { .oneOf(Value.allCases.map { ($0.rawValue, $0) }) }
}

/// A value that its declaration's ``ValueParser`` refuses: the command line fits the command, but a value is not one
/// the command can take.
package struct ValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one sentence, naming the option or argument.
    package let message: String

    /// Creates an error.
    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
