import Testing

@testable import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The behaviour every container backend must share, run against each of them.
@Suite("Container conformance")
struct ContainerConformance {}

extension ContainerConformance {
    @Suite("Accounts")
    struct Accounts {
        @Test("account status is reported as the session says", arguments: Backend.allCases, AccountStatus.allCases)
        func accountStatusFollowsTheSession(backend: Backend, status: AccountStatus) async {
            let device = ContainerHarness(backend).device("alice", status: status)
            #expect(await device.container.accountStatus() == status)
        }

        @Test(
            "every call fails with the status's error when the account is not available",
            arguments: Backend.allCases,
            [
                (AccountStatus.noAccount, CloudError.Code.notAuthenticated),
                (.restricted, .notAuthenticated),
                (.couldNotDetermine, .notAuthenticated),
                (.temporarilyUnavailable, .accountTemporarilyUnavailable),
            ])
        func callsFailWithoutAnAvailableAccount(backend: Backend, statusAndCode: (AccountStatus, CloudError.Code)) async
        {
            let device = ContainerHarness(backend).device("alice", status: statusAndCode.0)
            let container = device.container
            let expected = statusAndCode.1
            #expect(await cloudErrorCode { _ = try await container.userRecordID() } == expected)
            #expect(await cloudErrorCode { _ = try await container.allZones() } == expected)
            #expect(
                await cloudErrorCode { _ = try await container.saveZones([RecordZone(zoneID: syncZone)]) } == expected)
            #expect(
                await cloudErrorCode { _ = try await container.modifyRecords(saving: [makeRecord("a")], deleting: []) }
                    == expected)
            #expect(
                await cloudErrorCode { _ = try await container.records(for: [makeRecord("a").recordID]) } == expected)
            #expect(
                await cloudErrorCode {
                    _ = try await container.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
                } == expected)
            #expect(
                await cloudErrorCode { _ = try await container.databaseChanges(since: nil, resultsLimit: nil) }
                    == expected)
        }

        @Test("a signed-out device gets notAuthenticated", arguments: Backend.allCases)
        func signedOutDeviceIsNotAuthenticated(backend: Backend) async {
            let device = ContainerHarness(backend).device(nil)
            #expect(await device.container.accountStatus() == .noAccount)
            #expect(await cloudErrorCode { _ = try await device.container.allZones() } == .notAuthenticated)
        }

        @Test("the user record ID is stable for an account and differs between accounts", arguments: Backend.allCases)
        func userRecordIDIdentifiesTheAccount(backend: Backend) async throws {
            let harness = ContainerHarness(backend)
            let alice1 = try await harness.device("alice").container.userRecordID()
            let alice2 = try await harness.device("alice").container.userRecordID()
            let bob = try await harness.device("bob").container.userRecordID()
            #expect(alice1 == alice2)
            #expect(alice1 != bob)
            #expect(alice1.recordName.hasPrefix("_") && alice1.recordName.count == 33)
        }

        @Test("one account's records are invisible to another", arguments: Backend.allCases)
        func accountsAreIsolated(backend: Backend) async throws {
            let harness = ContainerHarness(backend)
            let (alice, bob) = harness.containers("alice", "bob")
            _ = try await alice.saveZones([RecordZone(zoneID: syncZone)])
            try await saveAll([makeRecord("secret", fields: ["note": .string("alice only")])], to: alice)
            #expect(
                await cloudErrorCode {
                    _ = try await bob.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
                } == .zoneNotFound)
            _ = try await bob.saveZones([RecordZone(zoneID: syncZone)])
            let changes = try await bob.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
            #expect(changes.modifications.isEmpty)
            let fetched = try await bob.records(for: [makeRecord("secret").recordID])
            #expect(fetched[makeRecord("secret").recordID]?.cloudCode == .unknownItem)
        }

        @Test("calls follow the session when the device switches accounts", arguments: Backend.allCases)
        func callsFollowAnAccountSwitch(backend: Backend) async throws {
            let harness = ContainerHarness(backend)
            let device = harness.device("alice")
            _ = try await device.container.saveZones([RecordZone(zoneID: syncZone)])
            try await saveAll([makeRecord("a")], to: device.container)
            device.session.signIn(try AccountID("bob"))
            #expect(try await device.container.userRecordID() == AccountID("bob").userRecordID)
            let asBob = try await device.container.records(for: [makeRecord("a").recordID])
            #expect(asBob[makeRecord("a").recordID]?.cloudCode == .zoneNotFound)
            device.session.signIn(try AccountID("alice"))
            #expect(try await device.container.record(for: makeRecord("a").recordID).recordType == "Note")
        }
    }

    @Suite("Zones")
    struct Zones {
        @Test("the default zone always exists and has no capabilities", arguments: Backend.allCases)
        func defaultZoneExists(backend: Backend) async throws {
            let zones = try await ContainerHarness(backend).device("alice").container.allZones()
            #expect(zones.map(\.zoneID) == [.default])
            #expect(zones.first?.capabilities == [])
        }

        @Test(
            "a custom zone can fetch changes and commit atomically; saving it again is harmless",
            arguments: Backend.allCases)
        func customZoneCapabilities(backend: Backend) async throws {
            let container = ContainerHarness(backend).device("alice").container
            let saved = try await container.saveZones([RecordZone(zoneID: syncZone)])
            #expect(saved.first?.capabilities == [.fetchChanges, .atomic])
            _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
            #expect(try await container.allZones().map(\.zoneID) == [.default, syncZone])
        }

        @Test(
            "zone names are validated as CloudKit does",
            arguments: ["", "_private", String(repeating: "z", count: 256), "Zöne", "tab\tzone"])
        func invalidZoneNamesAreRefused(name: String) {
            #expect(throws: CloudError.self) { try ZoneID(name) }
        }

        @Test("a zone name of 255 ASCII characters is valid")
        func longestZoneNameIsValid() throws {
            #expect(try ZoneID(String(repeating: "z", count: 255)).zoneName.count == 255)
        }

        @Test("at most 1000 custom zones", arguments: Backend.allCases)
        func zoneLimit(backend: Backend) async throws {
            let container = ContainerHarness(backend).device("alice").container
            let zones = try (0..<1000).map { RecordZone(zoneID: try ZoneID("zone\($0)")) }
            #expect(try await container.saveZones(zones).count == 1000)
            let error = await cloudErrorCode {
                _ = try await container.saveZones([RecordZone(zoneID: try! ZoneID("one-more"))])
            }
            #expect(error == .limitExceeded)
            #expect(try await container.allZones().count == 1001)
        }

        @Test("deleting a zone deletes its records; later calls see zoneNotFound", arguments: Backend.allCases)
        func deletingAZone(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            try await saveAll([makeRecord("a")], to: container)
            try await container.deleteZones([syncZone])
            #expect(
                await cloudErrorCode { _ = try await container.record(for: makeRecord("a").recordID) } == .zoneNotFound)
            #expect(await cloudErrorCode { try await container.deleteZones([syncZone]) } == .zoneNotFound)
            _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
            #expect(
                await cloudErrorCode { _ = try await container.record(for: makeRecord("a").recordID) } == .unknownItem)
        }

        @Test("the default zone cannot be deleted or created", arguments: Backend.allCases)
        func defaultZoneIsPermanent(backend: Backend) async {
            let container = ContainerHarness(backend).device("alice").container
            #expect(await cloudErrorCode { try await container.deleteZones([.default]) } == .invalidArguments)
            #expect(
                await cloudErrorCode { _ = try await container.saveZones([RecordZone(zoneID: .default)]) }
                    == .invalidArguments)
        }

        @Test(
            "a zone the user deleted in iCloud settings gives userDeletedZone until it is created again",
            arguments: Backend.allCases)
        func userDeletedZone(backend: Backend) async throws {
            let (harness, container) = try await ContainerHarness.withSyncZone(backend)
            try await saveAll([makeRecord("a")], to: container)
            try await container.deleteZoneFromICloudSettings(syncZone)
            let other = harness.device("alice").container
            #expect(
                await cloudErrorCode {
                    _ = try await other.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
                } == .userDeletedZone)
            let result = try await other.modifyRecords(saving: [makeRecord("b")], deleting: [])
            #expect(result.saveResults[makeRecord("b").recordID]?.cloudCode == .userDeletedZone)
            _ = try await other.saveZones([RecordZone(zoneID: syncZone)])
            let changes = try await other.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
            #expect(changes.modifications.isEmpty, "the user's deletion removed every record")
        }

        /// The statuses that stop an app's calls on this device, but not the user's actions on Apple's servers.
        static let blockingStatuses: [AccountStatus] = [.temporarilyUnavailable, .restricted, .couldNotDetermine]

        @Test(
            "the user deletes the app's data in iCloud settings whatever this device's account status",
            arguments: Backend.allCases, blockingStatuses)
        func settingsDeletionIgnoresTheDeviceStatus(backend: Backend, status: AccountStatus) async throws {
            let (harness, container) = try await ContainerHarness.withSyncZone(backend)
            try await saveAll([makeRecord("a")], to: container)
            let blocked = harness.device("alice", status: status).container
            // Without the settings path this failed like an app call (seeds 733 and 7053 of the 10,000-seed sweep:
            // a user-deleted-zone fault counted while the zone stayed, and the oracle saw its records "come back").
            try await blocked.deleteZoneFromICloudSettings(syncZone)
            #expect(await zoneChangesCode(container) == .userDeletedZone)
            #expect(
                await cloudErrorCode { try await harness.device(nil).container.deleteZoneFromICloudSettings(syncZone) }
                    == .notAuthenticated, "with no account signed in there is nobody's data to delete")
        }
    }
}
