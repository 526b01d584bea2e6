import Synchronization

/// The iCloud account a device is signed into, and its status: what every private-database call is routed by.
///
/// As with `CKContainer`, a container handle does not belong to one account: each call goes to the database of
/// whichever account is signed in at that moment. An app that keeps working through an account switch without
/// noticing writes into the new account; ``PrivateContainer/userRecordID()`` is how the sync engine notices.
public final class AccountSession: Sendable {
    private struct State {
        var account: AccountID?
        var status: AccountStatus
    }

    private let state: Mutex<State>

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - account: The signed-in account, or `nil` for none.
    ///   - status: The account status; with no account it reads `noAccount` whatever is given.
    public init(account: AccountID?, status: AccountStatus = .available) {
        state = Mutex(State(account: account, status: status))
    }

    /// The signed-in account and the status calls see now.
    public var current: (account: AccountID?, status: AccountStatus) {
        state.withLock { state in
            (state.account, state.account == nil ? .noAccount : state.status)
        }
    }

    /// The signed-in account, if any.
    public var account: AccountID? { current.account }

    /// The status calls see.
    public var status: AccountStatus { current.status }

    /// Signs into `account` (switching if another was signed in), with status `available`.
    public func signIn(_ account: AccountID) {
        state.withLock { $0 = State(account: account, status: .available) }
    }

    /// Signs out.
    public func signOut() {
        state.withLock { $0 = State(account: nil, status: .noAccount) }
    }

    /// Takes the account and status as read from the device's profile on disk, whatever this session held: after a
    /// change made under the profile's lock, which may carry another process's change too.
    ///
    /// - Parameters:
    ///   - account: The signed-in account, or `nil` for none.
    ///   - status: Its status.
    public func adopt(account: AccountID?, status: AccountStatus) {
        state.withLock { $0 = State(account: account, status: status) }
    }

    /// Changes the status of the signed-in account (restricted, temporarily unavailable, …).
    public func setStatus(_ status: AccountStatus) {
        state.withLock { $0.status = status }
    }

    /// The account the user's own actions in iCloud settings act on: the signed-in one, whatever its status.
    ///
    /// Deleting the app's data in Settings, or resetting encrypted data, happens on Apple's servers (from this
    /// device, another, or iCloud.com): a status that stops this device's app calls (temporarily unavailable,
    /// restricted) or a request in flight for another account does not stop the user.
    ///
    /// - Returns: The signed-in account.
    /// - Throws: ``CloudError`` `notAuthenticated` when no account is signed in.
    func settingsAccount() throws(CloudError) -> AccountID {
        guard let account else { throw AccountStatus.noAccount.callError! }
        return account
    }

    /// The account calls may use now, or the error they fail with.
    func callableAccount() throws(CloudError) -> AccountID {
        let (account, status) = current
        if let error = status.callError { throw error }
        guard let account else { throw AccountStatus.noAccount.callError! }
        if let expected = Self.requestedFor, expected != account.userRecordID {
            // Switching accounts on a device cancels what is in flight: a request made for one account never
            // lands in the next one's database.
            throw CloudError(
                .operationCancelled, "the request was made for another account than the one signed in now; cancelled")
        }
        return account
    }

    /// The user a request in flight was made for, when the caller says (the sync engine does, around every request
    /// that reads or writes a zone): if another account is signed in by the time the request reaches the database,
    /// it fails with `operationCancelled`, as a device cancels what is in flight when its account changes.
    @TaskLocal public static var requestedFor: UserRecordID?
}
