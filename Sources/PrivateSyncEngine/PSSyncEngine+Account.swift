import Synchronization

extension PSSyncEngine {
    /// The signed-in user, as ``usableAccount()`` reads it; when it cannot be read, `work` is scheduled again as
    /// a failure of it is.
    func usableAccount(retrying work: PSSyncScheduler.Work) async throws(PSError) -> UserRecordID {
        do {
            return try await usableAccount()
        } catch {
            scheduleRetry(work, after: error)
            throw error
        }
    }

    /// The signed-in user, after posting an `accountChange` if the account changed since the engine last looked.
    ///
    /// - Returns: The user every request of the operation is made for.
    /// - Throws: ``PSError`` `notAuthenticated` with no account signed in (or iCloud restricted, or the status
    ///   unknown), `accountTemporarilyUnavailable`, or the error of reading the user (the network).
    func usableAccount() async throws(PSError) -> UserRecordID {
        let container = database.container
        let status = await container.accountStatus()
        switch status {
        case .available:
            let user: UserRecordID
            do {
                user = try await container.userRecordID()
            } catch {
                throw PSError(error)
            }
            await noteAccount(user)
            return user
        case .noAccount:
            await noteAccount(nil)
            throw PSError(.notAuthenticated, "no iCloud account is signed in on this device")
        case .restricted, .couldNotDetermine, .temporarilyUnavailable:
            throw PSError(status.callError ?? CloudError(.notAuthenticated, "the iCloud account cannot be used"))
        }
    }

    /// Compares the signed-in user with the one the state belongs to; on a change, resets the state (no pending
    /// changes, no tokens) and posts one `accountChange` for the net transition, then a state update.
    ///
    /// The engine looks at the account when an operation begins, so changes while it was idle (or the app was not
    /// running) come as one event: a sign-out and a sign-in to another account are a switch; a sign-out and a
    /// sign-in to the same account are nothing. A first launch with an account signed in is a sign-in.
    func noteAccount(_ user: UserRecordID?) async {
        let name = user?.recordName
        let change = state.contents.withLock { contents -> Event.AccountChange.ChangeType? in
            if contents.userKnown && contents.currentUser == name { return nil }
            let previous = contents.userKnown ? contents.currentUser : nil
            let change: Event.AccountChange.ChangeType?
            switch (previous, name) {
            case (nil, nil): change = nil
            case (nil, let current?): change = .signIn(currentUser: PSRecord.ID(recordName: current))
            case (let previous?, nil): change = .signOut(previousUser: PSRecord.ID(recordName: previous))
            case (let previous?, let current?):
                change = .switchAccounts(
                    previousUser: PSRecord.ID(recordName: previous), currentUser: PSRecord.ID(recordName: current))
            }
            if change == nil {
                contents.userKnown = true
                contents.currentUser = name
                contents.isDirty = true
            } else {
                contents.reset(forUser: name)
            }
            return change
        }
        guard let change else { return }
        await deliver(.accountChange(Event.AccountChange(changeType: change)))
        await deliverStateUpdateIfNeeded()
    }

    /// Runs a request for `user`: if another account is signed in by the time it reaches the database, it fails with
    /// `operationCancelled`, as a device cancels what is in flight when its account changes, so nothing made for
    /// one account lands in another's database.
    func request<T: Sendable>(
        for user: UserRecordID, _ body: () async throws(CloudError) -> T
    ) async throws(CloudError) -> T {
        do {
            return try await AccountSession.$requestedFor.withValue(user) { try await body() }
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError(.internalError, "the request failed: \(error)")
        }
    }
}
