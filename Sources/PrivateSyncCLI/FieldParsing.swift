import DeviceStore
import FileSystem
import FoundationEssentials
import PrivateCloud
import PrivateSync

/// Reads `--field KEY=VALUE` arguments by the record type's schema.
enum FieldParsing {
    /// Parses field assignments for a record type.
    ///
    /// - Parameters:
    ///   - assignments: The `KEY=VALUE` arguments, in order.
    ///   - type: The record type.
    ///   - now: What `now` means for a date.
    /// - Returns: The field values.
    /// - Throws: ``CLIError`` 65 naming the field and what is wrong with its value; 66 for an `@FILE` that is missing.
    static func parse(
        _ assignments: [String], for type: RecordTypeSchema, now: Date
    ) throws(CLIError) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw CLIError(.dataError, "--field needs KEY=VALUE; got '\(assignment.prefix(60))'")
            }
            let key = String(assignment[..<equals])
            var text = String(assignment[assignment.index(after: equals)...])
            guard let field = type.field(named: key) else {
                let known = type.fields.map(\.name).joined(separator: ", ")
                throw CLIError(.dataError, "a \(type.name) has no field '\(key.prefix(60))' (its fields: \(known))")
            }
            if text.hasPrefix("@@") {
                text.removeFirst()
            } else if text.hasPrefix("@") {
                text = try readFile(String(text.dropFirst()), for: key)
            }
            if case .list(let element) = field.type {
                var elements: [FieldValue]
                if case .list(let existing)? = fields[key] { elements = existing } else { elements = [] }
                if text != "[]" { elements.append(try value(text, as: element, key: key, type: type.name, now: now)) }
                fields[key] = .list(elements)
            } else {
                guard fields[key] == nil else { throw CLIError(.dataError, "field '\(key)' was given twice") }
                fields[key] = try value(text, as: field.type, key: key, type: type.name, now: now)
            }
        }
        return fields
    }

    private static func readFile(_ path: String, for key: String) throws(CLIError) -> String {
        do {
            return String(decoding: try FileSystem.read(path), as: UTF8.self)
        } catch {
            throw CLIError(
                error.isNotFound ? .noInput : .ioError, "cannot read the value of '\(key)' from \(path): \(error)")
        }
    }

    private static func value(
        _ text: String, as fieldType: FieldType, key: String, type: String, now: Date
    ) throws(CLIError)
        -> FieldValue
    {
        func refuse(_ expected: String) -> CLIError {
            CLIError(
                .dataError, "\(type).\(key) holds \(fieldType.name) values; '\(text.prefix(60))' is not \(expected)")

        }
        switch fieldType {
        case .string:
            return .string(text)
        case .int64:
            guard let number = Int64(text) else { throw refuse("a 64-bit integer") }
            return .int64(number)
        case .double:
            guard let number = Double(text), number.isFinite else { throw refuse("a finite number") }
            return .double(number)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw refuse("true or false")
            }
        case .date:
            if text == "now" { return .date(now) }
            if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) {
                return .date(date)
            }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return .date(date) }
            if let date = try? Date.ISO8601FormatStyle().year().month().day().parse(text) { return .date(date) }
            throw refuse("a date (ISO 8601, such as 2026-11-29T08:30:00Z or 2026-11-29, or 'now')")
        case .bytes:
            guard let data = Data(base64Encoded: text) else { throw refuse("base64") }
            return .bytes(data)
        case .reference:
            guard CloudKitNames.problem(withRecordName: text) == nil else { throw refuse("a record name") }
            return .reference(
                RecordReference(
                    recordID: RecordID(uncheckedName: text, zoneID: ZoneID(uncheckedName: SyncEngine.defaultZoneName))))
        case .location:
            let parts = text.split(separator: ",").map { Double($0.filter { $0 != " " }) }
            guard parts.count == 2, let latitude = parts[0], let longitude = parts[1] else {
                throw refuse("'latitude,longitude'")
            }
            let location = Location(latitude: latitude, longitude: longitude)
            if let problem = FieldValue.location(location).problem {
                throw CLIError(.dataError, "\(type).\(key): \(problem)")
            }
            return .location(location)
        case .list:
            throw refuse("a single value")
        }
    }
}
