/// The kinds of ``DeviceError``. Numbered from 1 in the order declared; a new kind is added at the end, so a
/// number never changes.
public enum DeviceErrorCode: Int, Sendable, Hashable {
    /// The device name is not valid.
    case invalidName = 1
    /// A device of that name exists already.
    case alreadyExists
    /// No device at that place.
    case notFound
    /// The device's files are damaged (unreadable JSON); they were left unchanged.
    case damaged
    /// A file could not be read or written.
    case fileSystem
    /// The change needs an iCloud account signed in, and none is.
    case noAccount
    /// The app is running on the device in this process (it holds an `AppGroupLease`), and a reinstall would wait
    /// for itself: end it first, as iOS ends an app before reinstalling it.
    case appRunning
}

/// A simulated device that cannot be created, found, read or changed.
public typealias DeviceError = CodedError<DeviceErrorCode>
