import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSyncFileSystem
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CLI {
    /// The world, and the account's database, as another client sees it.
    func accountCloud(_ account: AccountID) throws -> (World, AccountCloud) {
        let world = try world()
        return (world, world.cloud(account: account))
    }

    /// Whether the account's database exists: with the file backend, an account nothing was ever written to has no
    /// file, and only `put` may create one, so that a command refused changes nothing.
    func hasDatabase(_ world: World, _ cloud: AccountCloud) -> Bool {
        world.memoryCloud != nil || FileSystem.exists(world.containerPath(account: cloud.account))
    }

    /// Refuses (66) a command that needs the account's database when it has none.
    func requireDatabase(_ world: World, _ cloud: AccountCloud, for what: String) throws(CLIError) {
        guard hasDatabase(world, cloud) else {
            throw CLIError(
                .noInput, "\(what): account \(cloud.account) has no container database (nothing was ever written to it)"
            )
        }
    }

    /// Runs a container call, reporting its CloudKit error with the exit code of what went wrong.
    func cloudCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CloudError where error.storageError == nil {
            let shown = "\(error.message) (\(error.code.name), \(error.code.rawValue))"
            switch error.code {
            case .unknownItem, .zoneNotFound, .userDeletedZone: throw CLIError(.noInput, shown)
            case .invalidArguments, .serverRecordChanged, .limitExceeded, .quotaExceeded:
                throw CLIError(.dataError, shown)
            default: throw CLIError(.internalError, shown)
            }
        }
    }
}
