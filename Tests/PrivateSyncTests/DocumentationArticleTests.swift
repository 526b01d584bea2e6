// The code of the DocC articles (Sources/PrivateSync/PrivateSync.docc), kept here so that it compiles and passes,
// with `import PrivateSync` alone, as the articles say it is enough.
import Foundation
import PrivateSync
import Testing

@Suite("The DocC articles' code")
struct DocumentationArticleTests {
    @Test("Getting started: split the schema, launch a device, write, sync, read the status")
    func gettingStarted() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-docc-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let schema = try Schema(
            name: "Journal",
            recordTypes: [
                RecordTypeSchema(name: "Entry", fields: [FieldSchema(name: "title", type: .string)]),
                RecordTypeSchema(name: "ReadingStats", fields: [FieldSchema(name: "minutes", type: .int64)]),
            ])
        let partition = try SyncPartition(schema: schema, userCreated: ["Entry"], localOnly: ["ReadingStats"])

        let identifier = try ContainerIdentifier("iCloud.com.example.journal")
        let alice = try AccountID("alice")
        let device = try SimulatedDevice.install(
            at: folder + "/phone", name: "phone", account: alice,
            build: .build(version: 1, withCloudKitFor: identifier), syncPreference: true)
        let environment = LaunchEnvironment(
            partition: partition, containerIdentifier: identifier,
            opener: TrappingContainerOpener.memory(cloud: MemoryCloud(), session: AccountSession(account: alice)))
        let app = try LaunchSequence(device: device, environment: environment).run()

        let entry = try app.add("Entry", fields: ["title": .string("First day")])
        let report = await app.sync()
        let status = try app.status()
        #expect(report?.outcome == .succeeded)
        #expect(try app.find(entry.name) != nil)
        #expect(status.state == .on(.upToDate))
        #expect(status.copy == "Sync is on. Everything you wrote is in your iCloud.")

        // The two traps: the fix of the second, as the article shows it.
        #expect(device.entitlements.missingEntitlement(for: identifier) == nil)
        // The status model: the article's switch compiles over every state.
        let shown: String =
            switch status.state {
            case .off: "off"
            case .on(.waiting(let reason, let nextAttempt)): "waiting \(reason) \(String(describing: nextAttempt))"
            case .on: "on, \(status.pendingChanges) pending"
            case .paused(let reason): reason.copy
            }
        #expect(shown == "on, 0 pending")
    }
}
