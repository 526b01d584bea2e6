import Foundation

/// `struct CKError`, synthesized from `CKErrorDomain` and `CKErrorCode` (H17.4 CKError.h; docs: Error, Hashable,
/// Sendable). Only the members the bridge reads.
public struct CKError: Error, Sendable {
    /// H17.4 `typedef NS_ENUM(NSInteger, CKErrorCode)`: raw values 1–36 (the bridge reads `rawValue` only).
    public enum Code: Int, Sendable {
        case internalError = 1
        case partialFailure = 2
        case serverRecordChanged = 14
        case accountTemporarilyUnavailable = 36
    }

    /// `_BridgedStoredNSError.code` (swiftlang/swift `stdlib/public/Darwin/Foundation/NSError.swift`).
    public var code: Code { fatalError("stand-in") }
    /// NSError's `localizedDescription`.
    public var localizedDescription: String { fatalError("stand-in") }
    /// SI26 ≈36,000.
    public var partialErrorsByItemID: [AnyHashable: any Error]? { fatalError("stand-in") }
    /// SI26 ≈36,000.
    public var ancestorRecord: CKRecord? { fatalError("stand-in") }
    /// SI26 ≈36,000.
    public var serverRecord: CKRecord? { fatalError("stand-in") }
    /// SI26 ≈36,000.
    public var clientRecord: CKRecord? { fatalError("stand-in") }
    /// SI26 ≈36,000.
    public var retryAfterSeconds: Double? { fatalError("stand-in") }
}
