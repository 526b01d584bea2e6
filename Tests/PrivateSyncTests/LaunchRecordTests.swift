import PrivateSyncTesting
import Testing

@testable import PrivateSync

@Suite("Launch record")
struct LaunchRecordTests {
    @Test(
        "a launch record reads back exactly as it was written, with and without a fallback",
        arguments: [false, true])
    func roundTrip(skipDirectoryFix: Bool) throws {
        let world = try TestWorld()
        try world.addDevice("phone", account: "alice", sync: true)
        let app = try world.launch("phone", options: .init(skipDirectoryFix: skipDirectoryFix))
        #expect((app.record.fallbackReason == nil) != skipDirectoryFix)
        #expect(try LaunchRecord.load(appGroup: app.device.appGroup.path) == app.record)
    }

    @Test("a damaged launch record is refused with the place of the problem")
    func damagedRecord() throws {
        #expect {
            try LaunchRecord.read(
                json: Array(#"{"launchedAt": 1, "syncWanted": true, "userCreatedStore": "icloud"}"#.utf8))
        } throws: { "\($0)".contains("userCreatedStore should be \"cloud\" or \"local\"") }
    }
}
