import Foundation
import Testing

/// The status between `launch` and the first cycle (issue 25): on, and saying the first sync has not run, never
/// "downloading" when nothing runs.
@Suite("CLI: status before the first sync")
struct CLIFirstSyncStatusTests {
    static let notRunCopy = "Sync is on: the first sync has not run yet; nothing is downloaded until it does."

    @Test("launch, then sync status: the first sync has not run, in the text and in the JSON")
    func launchThenStatus() throws {
        let cli = try CLIRunner.world(launching: "phone")
        let text = try cli.ok("sync", "status", "--device", "phone").standardOutput
        #expect(text == "phone: sync is on (notYetSynced, 0 pending)\n  \(Self.notRunCopy)\n", "\(text)")
        #expect(!text.contains("downloading"))
        let json = try cli.ok("sync", "status", "--device", "phone", "--json").json
        #expect(json["state"] as? String == "on", "\(json)")
        #expect(json["detail"] as? String == "notYetSynced", "\(json)")
        #expect(json["copy"] as? String == Self.notRunCopy, "\(json)")
        #expect(json["fallbackOccurred"] as? Bool == false, "\(json)")
        #expect(json["pendingChanges"] as? Int == 0, "\(json)")
        #expect(json["reason"] is NSNull && json["nextAttempt"] is NSNull, "\(json)")
    }

    @Test("launch --json reports the same status, and a change written before the first sync waits for it")
    func launchJSONAndPending() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "phone", "--account", "alice", "--sync", "on")
        let launched = try cli.ok("launch", "--device", "phone", "--json").json["status"] as? [String: Any]
        #expect(launched?["detail"] as? String == "notYetSynced", "\(launched ?? [:])")
        try cli.ok("record", "add", "CheckIn", "--device", "phone", "--field", "mood=3", "--field", "date=2026-11-29")
        let json = try cli.ok("sync", "status", "--device", "phone", "--json").json
        #expect(json["detail"] as? String == "notYetSynced", "\(json)")
        #expect(json["pendingChanges"] as? Int == 1, "\(json)")
        #expect(
            json["copy"] as? String
                == "Sync is on: the first sync has not run yet; until it does, nothing is downloaded and 1 change "
                + "waits to upload.", "\(json)")
    }

    @Test("after the first cycle the status no longer says the first sync has not run")
    func afterTheFirstCycle() throws {
        let cli = try CLIRunner.world(launching: "phone")
        let synced = try cli.ok("sync", "now", "--device", "phone").standardOutput
        #expect(synced.contains("phone: sync is on (upToDate, 0 pending)"), "\(synced)")
        let json = try cli.ok("sync", "status", "--device", "phone", "--json").json
        #expect(json["detail"] as? String == "upToDate", "\(json)")
        #expect(!(json["copy"] as? String ?? "").contains("has not run"), "\(json)")
        // A relaunch keeps it: the store stays bound to the account it synced with.
        let relaunched = try cli.ok("launch", "--device", "phone", "--json").json["status"] as? [String: Any]
        #expect(relaunched?["detail"] as? String == "upToDate", "\(relaunched ?? [:])")
    }
}
