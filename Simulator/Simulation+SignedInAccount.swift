import PrivateCloud

extension Simulation {
    // MARK: Invariant 14

    /// Invariant 14 on one request that succeeded at the server: it was made with an account signed in on the
    /// device; the records it saved were written under that account (or under none, to be stamped at their first
    /// send); and the server stamped every record it saved or returned with that account's user.
    ///
    /// The sign-out check of invariant 7 covers only what was written after a sign-out; this covers what was queued
    /// before it too: changes that wait for their account must never go out under another one, or with none.
    ///
    /// - Parameters:
    ///   - name: The device.
    ///   - account: Who was signed in on the device as the request reached the server.
    ///   - request: The request's name.
    ///   - saving: The records a modify request saved.
    ///   - stamped: The user the server stamped on each record it saved or returned.
    func checkSignedInAccount(
        device name: String, account: AccountID?, request: String, saving: [String],
        stamped: [(name: String, user: UserRecordID)]
    ) {
        guard let account else {
            return check(
                .signedInAccountOnly, false, "\(name): a \(request) request succeeded with no account signed in")
        }
        let foreign = saving.filter { record in written[record]?.account.map { $0 != account } ?? false }
        check(
            .signedInAccountOnly, foreign.isEmpty,
            "\(name) sent \(foreign.count) record(s) written under another account while \(account) was signed in (\(foreign.prefix(3).joined(separator: ", ")))"
        )
        let user = account.userRecordID
        let misrouted = stamped.filter { $0.user != user }
        check(
            .signedInAccountOnly, misrouted.isEmpty,
            "\(name): a \(request) request made while \(account) was signed in reached another account (\(misrouted.prefix(3).map { "\($0.name) by \($0.user.recordName)" }.joined(separator: ", ")))"
        )
    }
}
