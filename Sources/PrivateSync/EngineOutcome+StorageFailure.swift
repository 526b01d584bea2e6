import PrivateSyncFileSystem

extension EngineOutcome {
    /// The wait a failed write of the device's own files means: the disk full, or a file locked by another process
    /// past the wait; `nil` for any other failure (damage, a bug), which is no reason to wait.
    ///
    /// - Parameter error: The write's error, or an error wrapping it.
    package init?(storageFailure error: any Error) {
        if isDiskFull(error) {
            self = .diskFull
        } else if isBusy(error) {
            self = .fileBusy
        } else {
            return nil
        }
    }
}
