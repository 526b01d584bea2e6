public import PrivateCloud

extension World {
    /// `account`'s private database as another client sees it: writes straight into the container, through its
    /// semantics, as an older or newer build of the app, or another client, would.
    ///
    /// - Parameter account: The account.
    /// - Returns: A client of that account's database, meeting none of the world's faults.
    public func cloud(account: AccountID) -> AccountCloud {
        let session = AccountSession(account: account)
        let container: any PrivateContainer & ICloudSettingsControls
        if let memoryCloud {
            container = MemoryContainer(
                cloud: memoryCloud, identifier: containerIdentifier, session: session, clock: options.clock,
                deployed: deployedSchema)
        } else {
            container = FileContainer(
                cloudRoot: cloudRoot, identifier: containerIdentifier, session: session, clock: options.clock,
                durability: options.durability, verifyIntegrity: options.verifyIntegrity,
                verificationMemo: verificationMemo, deployed: deployedSchema)
        }
        return AccountCloud(account: account, container: container) { [self] in
            try containerRecords(account: account)
        }
    }
}
