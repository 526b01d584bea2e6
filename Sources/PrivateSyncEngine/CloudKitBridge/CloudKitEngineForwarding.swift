#if canImport(CloudKit)
    import CloudKit

    /// The bridge's engine face: fetches, sends and cancels on the real engine, its errors as PrivateSync's.
    struct CloudKitEngineForwarding: ForwardedEngine {
        let engine: CKSyncEngine

        func fetchChanges(_ options: PSSyncEngine.FetchChangesOptions) async throws {
            do {
                try await engine.fetchChanges(options.cloudKitOptions(keeping: nil))
            } catch {
                throw PSError(cloudKit: error)
            }
        }

        func sendChanges(_ options: PSSyncEngine.SendChangesOptions) async throws {
            do {
                try await engine.sendChanges(options.cloudKitOptions)
            } catch {
                throw PSError(cloudKit: error)
            }
        }

        func cancelOperations() async {
            await engine.cancelOperations()
        }
    }
#endif
