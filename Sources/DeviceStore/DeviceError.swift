/// A simulated device that cannot be created, found, read or changed.
public typealias DeviceError = CodedError<DeviceErrorCode>

/// The kinds of ``DeviceError``.
public enum DeviceErrorCode: Int, Sendable, Hashable {
    /// The device name is not valid.
    case invalidName = 1
    /// A device of that name exists already.
    case alreadyExists = 2
    /// No device at that place.
    case notFound = 3
    /// The device's files are damaged (unreadable JSON); they were left unchanged.
    case damaged = 4
    /// A file could not be read or written.
    case fileSystem = 5
    /// The change needs an iCloud account signed in, and none is.
    case noAccount = 6
}
