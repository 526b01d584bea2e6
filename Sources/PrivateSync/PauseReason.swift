public import PrivateCloud

/// Why sync that the user asked for cannot run. Each one sets the fallback flag and has its own settings copy.
public enum PauseReason: String, Sendable, Hashable, CaseIterable, Encodable, CustomStringConvertible {
    /// The app build lacks the iCloud entitlement for its container.
    case missingEntitlement
    /// No iCloud account is signed in.
    case noAccount
    /// iCloud is restricted on the device (parental controls, MDM).
    case accountRestricted
    /// The iCloud account is temporarily unavailable.
    case accountTemporarilyUnavailable
    /// Another iCloud account is signed in than the one this device's data syncs with.
    case accountChanged
    /// The cloud store could not be created at launch (the first trap).
    case storeCreationFailed
    /// The user deleted the app's data from iCloud settings.
    case userDeletedZone
    /// The user's iCloud storage is full.
    case quotaExceeded
    /// The account's container cannot be used: its storage is damaged or belongs to something else (this fake's
    /// file backend only; a real CloudKit server never reports it). Retrying cannot help; a forced sync tries again
    /// once the file is repaired.
    case containerUnusable

    public var description: String { rawValue }

    /// The sentence the settings screen shows.
    public var copy: String {
        switch self {
        case .missingEntitlement: "Sync is paused: this build cannot reach iCloud."
        case .noAccount: "Sync is paused: sign in to iCloud to sync."
        case .accountRestricted: "Sync is paused: iCloud is restricted on this device."
        case .accountTemporarilyUnavailable: "Sync is paused: your iCloud account is temporarily unavailable."
        case .accountChanged:
            "Sync is paused: a different iCloud account is signed in. Your data stays on this device until you choose."
        case .storeCreationFailed:
            "Sync is paused: the sync store could not be created. It will try again at next launch."
        case .userDeletedZone:
            "Sync is paused: this app's data was deleted from iCloud. Turn sync off and on to upload this device's data again."
        case .quotaExceeded: "Sync is paused: your iCloud storage is full."
        case .containerUnusable: "Sync is paused: the iCloud container cannot be read. Repair it, then sync again."
        }
    }
}

extension PauseReason {
    /// Whether the reason is the device's account (signed out, restricted, temporarily unavailable): a pause the
    /// app leaves by itself when the account comes back.
    public var isAccountReason: Bool {
        self == .noAccount || self == .accountRestricted || self == .accountTemporarilyUnavailable
    }

    /// The pause an account status calls for, or `nil` when sync may run: the one mapping that the launch, the
    /// status and the engine all use.
    ///
    /// - Parameter status: The device's account status.
    public init?(accountStatus status: AccountStatus) {
        switch status {
        case .available: return nil
        case .noAccount: self = .noAccount
        case .restricted: self = .accountRestricted
        case .temporarilyUnavailable, .couldNotDetermine: self = .accountTemporarilyUnavailable
        }
    }
}
