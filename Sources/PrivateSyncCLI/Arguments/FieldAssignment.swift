import DeviceStore
import PrivateSyncFileSystem

/// One `--field` argument, split at its first `=`, with its value read: `@@…` as `@…`, and `@FILE` as the file's
/// contents.
///
/// A command reads these before it opens the world: a value file may be any file, a database of the world included
/// (a hostile `--field note=@…/UserCreated.store`), and a descriptor of a database file closed while a connection
/// of this process has it open drops the connection's locks (see `Connection+FileAccess.swift`). Read first, no file
/// of the world is open yet.
struct FieldAssignment: Sendable {
    /// What precedes the `=`: a field key, or `KEY:TYPE` for a container write.
    let left: String
    /// The value.
    let text: String

    /// The key, without a `:TYPE`.
    var key: String { String(left.prefix(while: { $0 != ":" })) }

    /// Splits each argument and reads its value.
    ///
    /// - Parameters:
    ///   - arguments: The `--field` arguments, in order.
    ///   - form: The forms the option takes, for the message of an argument without `=` (`KEY=VALUE`).
    /// - Returns: One assignment per argument, in order.
    /// - Throws: ``CLIError`` 65 for an argument without a key, or a value file too large or not UTF-8; 66 for a
    ///   value file that does not exist.
    static func read(_ arguments: [String], form: String = "KEY=VALUE") throws(CLIError) -> [FieldAssignment] {
        var assignments: [FieldAssignment] = []
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw CLIError(.dataError, "--field needs \(form); got '\(TextEscaping.escape(argument.prefix(60)))'")
            }
            let left = String(argument[..<equals])
            var text = String(argument[argument.index(after: equals)...])
            if text.hasPrefix("@@") {
                text.removeFirst()
            } else if text.hasPrefix("@") {
                text = try FieldParsing.readFile(String(text.dropFirst()), for: String(left.prefix { $0 != ":" }))
            }
            assignments.append(FieldAssignment(left: left, text: text))
        }
        return assignments
    }

    /// Reads the `--field` arguments of a write to a container (`cloud record put` and `edit`), which may give a
    /// value's type, and refuses the reserved keys unless `--allow-reserved` was given (``checkReserved(_:allowed:)``).
    ///
    /// - Parameters:
    ///   - arguments: The `--field` arguments, in order.
    ///   - allowReserved: Whether `--allow-reserved` was given.
    /// - Returns: One assignment per argument, in order.
    /// - Throws: ``CLIError`` as ``read(_:form:)`` and ``checkReserved(_:allowed:)`` throw.
    static func readForContainer(_ arguments: [String], allowReserved: Bool) throws(CLIError) -> [FieldAssignment] {
        let assignments = try read(arguments, form: "KEY=VALUE or KEY:TYPE=VALUE")
        try checkReserved(assignments, allowed: allowReserved)
        return assignments
    }

    /// Refuses a write of the keys the app's sync keeps for itself (`syncFieldVersions`, `syncCreatedAt`) unless the
    /// caller asked to write them: imitating a hostile or broken client is what `--allow-reserved` is for, and a
    /// test that means to write a record as another app does should not write them by accident.
    ///
    /// - Parameters:
    ///   - assignments: The assignments.
    ///   - allowed: Whether `--allow-reserved` was given.
    /// - Throws: ``CLIError`` 65 naming the key and the flag.
    static func checkReserved(_ assignments: [FieldAssignment], allowed: Bool) throws(CLIError) {
        guard !allowed, let reserved = assignments.first(where: { Schema.reservedFieldNames.contains($0.key) }) else {
            return
        }
        throw CLIError(
            .dataError,
            "\(reserved.key) is the app's own sync bookkeeping; write it only to imitate another client, with "
                + "--allow-reserved")
    }
}
