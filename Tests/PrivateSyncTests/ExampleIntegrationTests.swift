// The example of docs/testing.md, kept here so that it compiles and passes.
import PrivateSyncTesting
import Testing

@Suite("Example: a team's own integration test")
struct ExampleIntegrationTests {
    @Test("a check-in written offline reaches the other device; the baseline never leaves the phone")
    func checkInSyncsAndBaselineStaysHome() async throws {
        let world = try TestWorld()  // a temporary folder, the demo health schema, an in-memory iCloud
        try world.addDevice("phone", account: "alice", sync: true)
        try world.addDevice("tablet", account: "alice", sync: true)
        let phone = try world.launch("phone")
        let tablet = try world.launch("tablet")

        try world.inject(.networkUnavailable)  // the phone is offline for its next call
        let checkIn = try phone.add("CheckIn", fields: ["mood": .int64(4), "date": .date(world.clock.now())])
        try phone.add(
            "Baseline",
            fields: [
                "metric": .string("restingHeartRate"), "value": .double(58), "computedAt": .date(world.clock.now()),
                "windowDays": .int64(28),
            ])
        await phone.sync()
        #expect(
            try phone.status().state
                == .on(.waiting(reason: .offline, nextAttempt: world.clock.now().addingTimeInterval(2))))

        world.clock.advance(by: 2)  // the retry is due
        await phone.sync()
        await tablet.sync()
        #expect(try tablet.stores.userCreated.record(named: checkIn.name)?.fields["mood"] == .int64(4))
        #expect(try world.containerRecords(account: "alice").map(\.recordType) == ["CheckIn"])
        #expect(try world.audit(accounts: ["alice"]).isClean)
        #expect(try phone.status().state == .on(.upToDate))
    }
}
