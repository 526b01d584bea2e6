/// An error shaped like Cocoa's `NSError`: a domain, a code, a description and a failure reason.
///
/// It reproduces the error Core Data raised on Apple's stack when a CloudKit-mirrored store's folder did not exist:
/// domain `NSCocoaErrorDomain`, code 512 (`NSFileWriteUnknownError`), "The file couldn't be saved.", reason
/// "Failed to create file".
public struct CocoaStyleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error domain.
    public let domain: String
    /// The code within the domain.
    public let code: Int
    /// `NSLocalizedDescriptionKey`.
    public let localizedDescription: String
    /// `NSLocalizedFailureReasonErrorKey`.
    public let failureReason: String
    /// `NSFilePathErrorKey`.
    public let filePath: String

    /// The error a CloudKit-mirrored store raises when its folder is missing.
    ///
    /// - Parameter path: The store file that could not be created.
    public static func failedToCreateFile(_ path: String) -> CocoaStyleError {
        CocoaStyleError(
            domain: "NSCocoaErrorDomain", code: 512, localizedDescription: "The file couldn't be saved.",
            failureReason: "Failed to create file", filePath: path)
    }

    public var description: String {
        "Error Domain=\(domain) Code=\(code) \"\(localizedDescription)\" UserInfo={NSFilePath=\(filePath), "
            + "reason=\(failureReason)}"
    }
}
