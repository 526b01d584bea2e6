/// The kinds of ``WorldError``. Numbered from 1 in the order declared; a new kind is added at the end, so a
/// number never changes.
public enum WorldErrorCode: Int, Sendable, Hashable {
    /// `init` found something at the world's place already.
    case alreadyExists = 1
    /// No world at that place.
    case notFound
    /// The world's files are damaged or of another kind; they were left unchanged.
    case damaged
    /// A device of that name exists already.
    case deviceExists
    /// No device of that name.
    case deviceNotFound
    /// A name (device, account, container) is not valid.
    case invalidName
    /// The schema is not valid.
    case invalidSchema
    /// A file could not be read or written.
    case fileSystem
}

/// A world that cannot be created, found, read or changed.
public typealias WorldError = CodedError<WorldErrorCode>
