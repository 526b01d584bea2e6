import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FieldParsing {
    /// Parses `--field` arguments for a write straight into a container, which is schemaless.
    ///
    /// `KEY=VALUE` reads VALUE by the schema's type for a field the app's schema declares for the record type,
    /// and otherwise infers it: `true`/`false` a bool, a 64-bit integer an int64, another finite number a double,
    /// a date in one of the documented forms (not `now`) a date, anything else a string. `KEY:TYPE=VALUE` gives
    /// the type (`string`, `int64`, `double`, `bool`, `bytes`, `date`, `reference`, `location`, `list<T>`),
    /// declared or not; a list takes one `--field` per element, and `KEY:list<T>=[]` is an empty list.
    ///
    /// - Parameters:
    ///   - assignments: The `KEY=VALUE` or `KEY:TYPE=VALUE` arguments, in order, their values read
    ///     (``FieldAssignment``).
    ///   - declared: The record type as the app's schema declares it, if it does.
    ///   - typeName: The record type's name, for messages.
    ///   - now: What `now` means for a date.
    /// - Returns: The field values.
    /// - Throws: ``CLIError`` 65 naming the field and what is wrong.
    static func parseForContainer(
        _ assignments: [FieldAssignment], declared: RecordTypeSchema?, typeName: String, now: Date
    ) throws(CLIError) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for assignment in assignments {
            let left = assignment.left
            let text = assignment.text
            let key = assignment.key
            if let problem = CloudKitNames.problem(withIdentifier: key, kind: "field key") {
                throw CLIError(.dataError, "invalid field: \(problem)")
            }
            var given: FieldType?
            if key.count < left.count {
                let name = String(left.dropFirst(key.count + 1))
                guard let type = FieldType(name: name) else {
                    throw CLIError(
                        .dataError,
                        "unknown field type '\(TextEscaping.escape(name.prefix(40)))' for '\(key)' (types: string, int64, double, bool, bytes, date, reference, location, list<T>)"
                    )
                }
                given = type
            }
            let fieldType = given ?? declared?.field(named: key)?.type
            if case .list(let element)? = fieldType {
                var elements: [FieldValue]
                if case .list(let existing)? = fields[key] { elements = existing } else { elements = [] }
                if text != "[]" { elements.append(try value(text, as: element, key: key, type: typeName, now: now)) }
                fields[key] = .list(elements)
                continue
            }
            guard fields[key] == nil else {
                throw CLIError(.dataError, "field '\(TextEscaping.escape(key))' was given twice")
            }
            if let fieldType {
                fields[key] = try value(text, as: fieldType, key: key, type: typeName, now: now)
            } else {
                fields[key] = inferred(text, now: now)
            }
        }
        return fields
    }

    /// The value of an untyped field: a bool, an int64, a double, a date, or else a string.
    private static func inferred(_ text: String, now: Date) -> FieldValue {
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let number = Int64(text) { return .int64(number) }
        if let number = Double(text), number.isFinite, text.allSatisfy({ "0123456789.eE+-".contains($0) }) {
            return .double(number)
        }
        if text != "now", let date = DateArgument.parse(text, now: now) { return .date(date) }
        return .string(text)
    }
}
