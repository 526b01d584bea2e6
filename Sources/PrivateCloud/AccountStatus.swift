/// The device's iCloud account status, as `CKAccountStatus` reports it, number for number.
public enum AccountStatus: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The status could not be read.
    case couldNotDetermine = 0
    /// An account is signed in and may use iCloud.
    case available = 1
    /// iCloud is restricted on this device (parental controls, device management).
    case restricted = 2
    /// No iCloud account is signed in.
    case noAccount = 3
    /// An account is signed in but not usable yet (being set up or recovered).
    case temporarilyUnavailable = 4

    public var description: String { name }

    /// The name used in files and on the command line (`available`, `noAccount`, …).
    public var name: String {
        switch self {
        case .couldNotDetermine: "couldNotDetermine"
        case .available: "available"
        case .restricted: "restricted"
        case .noAccount: "noAccount"
        case .temporarilyUnavailable: "temporarilyUnavailable"
        }
    }

    /// Parses a name as ``name`` gives it.
    ///
    /// - Parameter name: `available`, `noAccount`, `restricted`, `temporarilyUnavailable` or `couldNotDetermine`.
    public init?(name: String) {
        guard let status = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = status
    }

    /// The error every private-database call fails with under this status, or `nil` when calls may proceed.
    ///
    /// `noAccount`, `restricted` and `couldNotDetermine` give `notAuthenticated` (9), as CloudKit does without a
    /// usable account; `temporarilyUnavailable` gives `accountTemporarilyUnavailable` (36).
    public var callError: CloudError? {
        switch self {
        case .available: nil
        case .temporarilyUnavailable:
            CloudError(.accountTemporarilyUnavailable, "the iCloud account is temporarily unavailable")
        case .noAccount: CloudError(.notAuthenticated, "no iCloud account is signed in on this device")
        case .restricted:
            CloudError(.notAuthenticated, "iCloud is restricted on this device (parental controls or MDM)")
        case .couldNotDetermine: CloudError(.notAuthenticated, "the iCloud account status could not be determined")
        }
    }
}
