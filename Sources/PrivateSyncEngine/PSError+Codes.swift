extension PSError {
    /// `PSError.Code.internalError`, so that `catch PSError.internalError` matches as `catch CKError.internalError` does.
    public static var internalError: Code { .internalError }
    /// `PSError.Code.partialFailure`, so that `catch PSError.partialFailure` matches as `catch CKError.partialFailure` does.
    public static var partialFailure: Code { .partialFailure }
    /// `PSError.Code.networkUnavailable`, so that `catch PSError.networkUnavailable` matches as `catch CKError.networkUnavailable` does.
    public static var networkUnavailable: Code { .networkUnavailable }
    /// `PSError.Code.networkFailure`, so that `catch PSError.networkFailure` matches as `catch CKError.networkFailure` does.
    public static var networkFailure: Code { .networkFailure }
    /// `PSError.Code.badContainer`, so that `catch PSError.badContainer` matches as `catch CKError.badContainer` does.
    public static var badContainer: Code { .badContainer }
    /// `PSError.Code.serviceUnavailable`, so that `catch PSError.serviceUnavailable` matches as `catch CKError.serviceUnavailable` does.
    public static var serviceUnavailable: Code { .serviceUnavailable }
    /// `PSError.Code.requestRateLimited`, so that `catch PSError.requestRateLimited` matches as `catch CKError.requestRateLimited` does.
    public static var requestRateLimited: Code { .requestRateLimited }
    /// `PSError.Code.missingEntitlement`, so that `catch PSError.missingEntitlement` matches as `catch CKError.missingEntitlement` does.
    public static var missingEntitlement: Code { .missingEntitlement }
    /// `PSError.Code.notAuthenticated`, so that `catch PSError.notAuthenticated` matches as `catch CKError.notAuthenticated` does.
    public static var notAuthenticated: Code { .notAuthenticated }
    /// `PSError.Code.permissionFailure`, so that `catch PSError.permissionFailure` matches as `catch CKError.permissionFailure` does.
    public static var permissionFailure: Code { .permissionFailure }
    /// `PSError.Code.unknownItem`, so that `catch PSError.unknownItem` matches as `catch CKError.unknownItem` does.
    public static var unknownItem: Code { .unknownItem }
    /// `PSError.Code.invalidArguments`, so that `catch PSError.invalidArguments` matches as `catch CKError.invalidArguments` does.
    public static var invalidArguments: Code { .invalidArguments }
    /// `PSError.Code.resultsTruncated`, so that `catch PSError.resultsTruncated` matches as `catch CKError.resultsTruncated` does.
    public static var resultsTruncated: Code { .resultsTruncated }
    /// `PSError.Code.serverRecordChanged`, so that `catch PSError.serverRecordChanged` matches as `catch CKError.serverRecordChanged` does.
    public static var serverRecordChanged: Code { .serverRecordChanged }
    /// `PSError.Code.serverRejectedRequest`, so that `catch PSError.serverRejectedRequest` matches as `catch CKError.serverRejectedRequest` does.
    public static var serverRejectedRequest: Code { .serverRejectedRequest }
    /// `PSError.Code.assetFileNotFound`, so that `catch PSError.assetFileNotFound` matches as `catch CKError.assetFileNotFound` does.
    public static var assetFileNotFound: Code { .assetFileNotFound }
    /// `PSError.Code.assetFileModified`, so that `catch PSError.assetFileModified` matches as `catch CKError.assetFileModified` does.
    public static var assetFileModified: Code { .assetFileModified }
    /// `PSError.Code.incompatibleVersion`, so that `catch PSError.incompatibleVersion` matches as `catch CKError.incompatibleVersion` does.
    public static var incompatibleVersion: Code { .incompatibleVersion }
    /// `PSError.Code.constraintViolation`, so that `catch PSError.constraintViolation` matches as `catch CKError.constraintViolation` does.
    public static var constraintViolation: Code { .constraintViolation }
    /// `PSError.Code.operationCancelled`, so that `catch PSError.operationCancelled` matches as `catch CKError.operationCancelled` does.
    public static var operationCancelled: Code { .operationCancelled }
    /// `PSError.Code.changeTokenExpired`, so that `catch PSError.changeTokenExpired` matches as `catch CKError.changeTokenExpired` does.
    public static var changeTokenExpired: Code { .changeTokenExpired }
    /// `PSError.Code.batchRequestFailed`, so that `catch PSError.batchRequestFailed` matches as `catch CKError.batchRequestFailed` does.
    public static var batchRequestFailed: Code { .batchRequestFailed }
    /// `PSError.Code.zoneBusy`, so that `catch PSError.zoneBusy` matches as `catch CKError.zoneBusy` does.
    public static var zoneBusy: Code { .zoneBusy }
    /// `PSError.Code.badDatabase`, so that `catch PSError.badDatabase` matches as `catch CKError.badDatabase` does.
    public static var badDatabase: Code { .badDatabase }
    /// `PSError.Code.quotaExceeded`, so that `catch PSError.quotaExceeded` matches as `catch CKError.quotaExceeded` does.
    public static var quotaExceeded: Code { .quotaExceeded }
    /// `PSError.Code.zoneNotFound`, so that `catch PSError.zoneNotFound` matches as `catch CKError.zoneNotFound` does.
    public static var zoneNotFound: Code { .zoneNotFound }
    /// `PSError.Code.limitExceeded`, so that `catch PSError.limitExceeded` matches as `catch CKError.limitExceeded` does.
    public static var limitExceeded: Code { .limitExceeded }
    /// `PSError.Code.userDeletedZone`, so that `catch PSError.userDeletedZone` matches as `catch CKError.userDeletedZone` does.
    public static var userDeletedZone: Code { .userDeletedZone }
    /// `PSError.Code.tooManyParticipants`, so that `catch PSError.tooManyParticipants` matches as `catch CKError.tooManyParticipants` does.
    public static var tooManyParticipants: Code { .tooManyParticipants }
    /// `PSError.Code.alreadyShared`, so that `catch PSError.alreadyShared` matches as `catch CKError.alreadyShared` does.
    public static var alreadyShared: Code { .alreadyShared }
    /// `PSError.Code.referenceViolation`, so that `catch PSError.referenceViolation` matches as `catch CKError.referenceViolation` does.
    public static var referenceViolation: Code { .referenceViolation }
    /// `PSError.Code.managedAccountRestricted`, so that `catch PSError.managedAccountRestricted` matches as `catch CKError.managedAccountRestricted` does.
    public static var managedAccountRestricted: Code { .managedAccountRestricted }
    /// `PSError.Code.participantMayNeedVerification`, so that `catch PSError.participantMayNeedVerification` matches as `catch CKError.participantMayNeedVerification` does.
    public static var participantMayNeedVerification: Code { .participantMayNeedVerification }
    /// `PSError.Code.serverResponseLost`, so that `catch PSError.serverResponseLost` matches as `catch CKError.serverResponseLost` does.
    public static var serverResponseLost: Code { .serverResponseLost }
    /// `PSError.Code.assetNotAvailable`, so that `catch PSError.assetNotAvailable` matches as `catch CKError.assetNotAvailable` does.
    public static var assetNotAvailable: Code { .assetNotAvailable }
    /// `PSError.Code.accountTemporarilyUnavailable`, so that `catch PSError.accountTemporarilyUnavailable` matches as `catch CKError.accountTemporarilyUnavailable` does.
    public static var accountTemporarilyUnavailable: Code { .accountTemporarilyUnavailable }
}

/// Whether an error is a ``PSError`` with this code: what lets `catch PSError.zoneNotFound` and
/// `case PSError.Code.zoneNotFound` match an error, as CloudKit's error codes do.
///
/// - Parameters:
///   - match: The code.
///   - error: The error.
/// - Returns: Whether `error` is a ``PSError`` with code `match`.
public func ~= (match: PSError.Code, error: any Error) -> Bool {
    (error as? PSError)?.code == match
}
