/// A world that cannot be created, found, read or changed.
public typealias WorldError = CodedError<WorldErrorCode>

/// The kinds of ``WorldError``.
public enum WorldErrorCode: Int, Sendable, Hashable {
    /// `init` found something at the world's place already.
    case alreadyExists = 1
    /// No world at that place.
    case notFound = 2
    /// The world's files are damaged or of another kind; they were left unchanged.
    case damaged = 3
    /// A device of that name exists already.
    case deviceExists = 4
    /// No device of that name.
    case deviceNotFound = 5
    /// A name (device, account, container) is not valid.
    case invalidName = 6
    /// The schema is not valid.
    case invalidSchema = 7
    /// A file could not be read or written.
    case fileSystem = 8
}
