/// An error of one failure domain: a code saying what kind of failure it is, a message saying what was wrong and
/// where, and the error that caused it, when there is one.
///
/// Each domain is an enum of codes, and its error type is this one specialized to it, under the domain's name:
/// `typealias DeviceError = CodedError<DeviceErrorCode>`. So every domain's error has the same shape, one
/// implementation, and a type of its own to throw (`throws(DeviceError)`) and to catch (`catch let error as
/// DeviceError`).
///
/// The cause is kept as an error, not spelt into the message: ``underlying`` is what the layer below threw (a
/// `FileSystemError`, a SQLite error, another domain's error), and ``description`` adds its words after the message.
public struct CodedError<Domain: Hashable & Sendable>: Error, Sendable, CustomStringConvertible {
    /// The domain's codes.
    public typealias Code = Domain

    /// The kind of failure.
    public let code: Code
    /// What was wrong, and where, in words; without the cause's own words (see ``description``).
    public let message: String
    /// The error that caused this one, when there is one.
    public let underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What was wrong, and where.
    ///   - underlying: The error that caused it, if any.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// Creates an error that classifies another in this domain, adding no words of its own: its description is the
    /// cause's.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - underlying: The error that caused it, which says what was wrong.
    public init(_ code: Code, underlying: any Error) {
        self.init(code, "", underlying: underlying)
    }

    /// The message, then the cause's description after a colon; the cause's alone when the message is empty.
    public var description: String {
        guard let underlying else { return message }
        return message.isEmpty ? "\(underlying)" : "\(message): \(underlying)"
    }
}
