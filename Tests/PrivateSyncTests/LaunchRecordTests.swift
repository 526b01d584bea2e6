import DeviceStore
import PrivateCloud
import PrivateSyncTesting
import Testing

@testable import PrivateSync
@testable import PrivateSyncJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Launch record")
struct LaunchRecordTests {
    @Test(
        "a launch record reads back exactly as it was written, with and without a fallback",
        arguments: [false, true])
    func roundTrip(skipDirectoryFix: Bool) throws {
        let world = try makeWorld("phone")
        let app = try world.launch("phone", options: .init(skipDirectoryFix: skipDirectoryFix))
        #expect((app.record.fallbackReason == nil) != skipDirectoryFix)
        #expect(try LaunchRecord.load(appGroup: app.device.appGroup.path) == app.record)
    }

    @Test("a damaged launch record is refused with the place of the problem")
    func damagedRecord() throws {
        let error = #expect(throws: JSONReadError.self) {
            try LaunchRecord.read(
                json: Array(#"{"launchedAt": 1, "syncWanted": true, "userCreatedStore": "icloud"}"#.utf8))
        }
        #expect(error?.description.contains("userCreatedStore should be \"cloud\" or \"local\"") == true)
    }

    static let everyStep: [LaunchStep] = [
        .readSyncPreference(on: true), .skippedDirectoryFix, .applicationSupport(existed: true),
        .skippedEntitlementCheck,
        .checkedEntitlement(try! ContainerIdentifier("iCloud.com.example.me"), allowed: false),
        .checkedAccount(.restricted, fallsBack: true), .openedLocalOnlyStore,
        .openedUserCreatedStore(cloud: try! ContainerIdentifier("iCloud.com.example.me")),
        .openedUserCreatedStore(cloud: nil), .cloudStoreFailed("Cocoa error 512"), .openedBothStoresLocally,
        .startedEngine, .noContainer, .earlierBuild("opened the container and started the engine"),
    ]

    @Test("every kind of launch step is kept typed, and reads back as it was written")
    func everyStepReadsBack() throws {
        let record = LaunchRecord(
            launchedAt: Date(timeIntervalSinceReferenceDate: 0), syncWanted: true, userCreatedStore: .local,
            containerIdentifier: "iCloud.com.example.me", fallbackReason: nil, fallbackDetail: nil,
            skippedDirectoryFix: true, skippedEntitlementCheck: true, steps: Self.everyStep)
        #expect(try LaunchRecord.read(json: try JSONFileWriter.bytes(of: record)) == record)
    }

    @Test("a launch step the file does not describe fully is refused, naming its place")
    func unknownStepIsRefused() throws {
        let json = #"""
            {"launchedAt": 1, "syncWanted": true, "userCreatedStore": "local",
             "containerIdentifier": "iCloud.com.example.me", "skippedDirectoryFix": false,
             "skippedEntitlementCheck": false, "steps": [{"step": "startedEngine"}, {"step": "checkedAccount"}]}
            """#
        let error = #expect(throws: JSONReadError.self) { try LaunchRecord.read(json: Array(json.utf8)) }
        #expect(error?.description.contains("steps[1]") == true, "\(String(describing: error))")
    }

    @Test("a launch record an earlier build wrote, its steps in words, still reads, the words kept")
    func earlierBuildsRecordReads() throws {
        let json = #"""
            {"launchedAt": 1, "syncWanted": true, "userCreatedStore": "cloud",
             "containerIdentifier": "iCloud.com.example.me", "skippedDirectoryFix": false,
             "skippedEntitlementCheck": false,
             "steps": ["read the sync preference: on", "opened the container and started the engine"]}
            """#
        let record = try LaunchRecord.read(json: Array(json.utf8))
        #expect(
            record.steps == [
                .earlierBuild("read the sync preference: on"),
                .earlierBuild("opened the container and started the engine"),
            ])
        #expect(try LaunchRecord.read(json: try JSONFileWriter.bytes(of: record)) == record)
    }
}
