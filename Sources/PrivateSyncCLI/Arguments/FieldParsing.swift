import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads `--field KEY=VALUE` arguments by the record type's schema.
enum FieldParsing {
    /// Parses field assignments for a record type.
    ///
    /// - Parameters:
    ///   - assignments: The `KEY=VALUE` arguments, in order, their values read (``FieldAssignment``).
    ///   - type: The record type.
    ///   - now: What `now` means for a date.
    /// - Returns: The field values.
    /// - Throws: ``CLIError`` 65 naming the field and what is wrong with its value.
    static func parse(
        _ assignments: [FieldAssignment], for type: RecordTypeSchema, now: Date
    ) throws(CLIError) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for assignment in assignments {
            let key = assignment.left
            let text = assignment.text
            guard let field = type.field(named: key) else {
                let known = type.fields.map(\.name).joined(separator: ", ")
                throw CLIError(
                    .dataError,
                    "a \(type.name) has no field '\(TextEscaping.escape(key.prefix(60)))' (its fields: \(known))")
            }
            if case .list(let element) = field.type {
                var elements: [FieldValue]
                if case .list(let existing)? = fields[key] { elements = existing } else { elements = [] }
                if text != "[]" { elements.append(try value(text, as: element, key: key, type: type.name, now: now)) }
                fields[key] = .list(elements)
            } else {
                guard fields[key] == nil else {
                    throw CLIError(.dataError, "field '\(TextEscaping.escape(key))' was given twice")
                }
                fields[key] = try value(text, as: field.type, key: key, type: type.name, now: now)
            }
        }
        return fields
    }

    /// The value of `key` read from a file: at most one byte more than a record may hold, then refused, so that
    /// `@/dev/zero` or a huge file costs a megabyte of memory, not all of it.
    static func readFile(_ path: String, for key: String) throws(CLIError) -> String {
        let limit = CloudLimits.cloudKit.maximumRecordBytes
        let shown = TextEscaping.escape(path.prefix(200))
        let bytes = try BoundedFileRead.read(path, limit: limit) { code, reason in
            switch code {
            case .notFound: "cannot read the value of '\(key)' from \(shown): it does not exist"
            case .isFolder: "cannot read the value of '\(key)' from \(shown): it is a folder"
            case .tooLarge:
                "the value of '\(key)' in \(shown) is larger than a record may be; CloudKit allows \(limit) bytes per record"
            case .unreadable: "cannot read the value of '\(key)' from \(shown): \(reason)"
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError(.dataError, "the value of '\(key)' in \(shown) is not valid UTF-8 text")
        }
        return text
    }

    static func value(
        _ text: String, as fieldType: FieldType, key: String, type: String, now: Date
    ) throws(CLIError)
        -> FieldValue
    {
        func refuse(_ expected: String) -> CLIError {
            CLIError(
                .dataError,
                "\(type).\(key) holds \(fieldType.name) values; '\(TextEscaping.escape(text.prefix(60)))' is not \(expected)"
            )
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
            guard let date = DateArgument.parse(text, now: now) else {
                throw refuse("a date; accepted: \(DateArgument.acceptedForms)")
            }
            return .date(date)
        case .bytes:
            guard let bytes = Base64Argument.decode(text) else {
                throw refuse("canonical base64 (A-Z, a-z, 0-9, '+', '/'; '=' padding only at the end)")
            }
            return .bytes(Data(bytes))
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
