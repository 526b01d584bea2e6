import ContactsSample
import Foundation
import PrivateSyncEngineTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The engine over the file container: devices and processes sharing one folder, and a process killed mid-send.
@Suite("Engines over files, across processes")
final class FileBackendTests {
    let folder: ScratchFolder

    init() throws {
        folder = try ScratchFolder()
    }

    var root: String { folder.url.appending(path: "cloud").path }

    @Test("two devices with their own handles on one folder sync through the SQLite file")
    func twoHandlesOneFolder() async throws {
        let phone = try EngineHarness(cloud: SyncEngineTestCloud(storage: .files(at: root)), device: "phone")
        let laptop = try EngineHarness(cloud: SyncEngineTestCloud(storage: .files(at: root)), device: "laptop")
        phone.write(["a": "1", "b": "2"])
        try await phone.engine.sendChanges()
        try await laptop.engine.fetchChanges()
        #expect(laptop.delegate.notes == ["a": "1", "b": "2"])
        #expect(FileManager.default.fileExists(atPath: root + "/alice/iCloud.com.example.app.sqlite"))
    }

    @Test("three processes send at once into one file; every note each acknowledged is there")
    func processesSendAtOnce() async throws {
        let root = self.root
        async let first: Void = Self.sendInChildProcess(root: root, device: "p0")
        async let second: Void = Self.sendInChildProcess(root: root, device: "p1")
        async let third: Void = Self.sendInChildProcess(root: root, device: "p2")
        _ = await (first, second, third)
        let reader = try EngineHarness(cloud: SyncEngineTestCloud(storage: .files(at: root)), device: "reader")
        try await reader.engine.fetchChanges()
        var expected: [String: String] = [:]
        for device in ["p0", "p1", "p2"] {
            for index in 0..<20 { expected["\(device)-\(index)"] = "\(device) \(index)" }
        }
        #expect(reader.delegate.notes == expected)
    }

    static func sendInChildProcess(root: String, device: String) async {
        await #expect(processExitsWith: .success) { [root = root as String, device = device as String] in
            let phone = try! EngineHarness(cloud: SyncEngineTestCloud(storage: .files(at: root)), device: device)
            for batch in 0..<4 {
                phone.write(
                    Dictionary(
                        uniqueKeysWithValues: (batch * 5..<batch * 5 + 5).map { ("\(device)-\($0)", "\(device) \($0)") }
                    ))
                try! await phone.engine.sendChanges()
            }
        }
    }

    @Test("the sample killed after the server applied its send, relaunched, converges with nothing lost or doubled")
    func killedMidSend() async throws {
        let dataFile = folder.file("phone.json")
        await #expect(processExitsWith: .signal(SIGKILL)) { [root = root as String, path = dataFile.path as String] in
            let cloud = try! SyncEngineTestCloud(storage: .files(at: root))
            let session = AccountSession(account: try! AccountID("alice"))
            let database = PSDatabase(container: KillingContainer(base: cloud.baseContainer(session: session)))
            let phone = SyncedDatabase(database: database, dataURL: URL(filePath: path), automaticallySync: false)
            let contacts = (0..<5).map {
                Contact(id: "c\($0)", name: "Contact \($0)", userModificationDate: cloud.clock.now())
            }
            await phone.saveContacts(contacts)
            try? await phone.syncEngine.sendChanges()
        }
        let cloud = try SyncEngineTestCloud(storage: .files(at: root))
        #expect(try cloud.records(of: "alice").count == 5)
        let device = try cloud.device("phone", signedInTo: "alice")
        let phone = SyncedDatabase(database: device.database, dataURL: dataFile, automaticallySync: false)
        #expect(await phone.appData.contacts.count == 5)
        #expect(await phone.syncEngine.state.pendingRecordZoneChanges.count == 5)
        // The relaunched send meets the records it already sent: conflicts, merged, sent again.
        await #expect(throws: PSError.self) { try await phone.syncEngine.sendChanges() }
        try await phone.syncEngine.sendChanges()
        try await phone.syncEngine.expectNothingPending()
        let tablet = SyncedDatabase(
            database: try cloud.device("tablet", signedInTo: "alice").database, dataURL: folder.file("tablet.json"),
            automaticallySync: false)
        try await tablet.syncEngine.fetchChanges()
        #expect(await tablet.appData.contacts == phone.appData.contacts)
        #expect(try cloud.records(of: "alice").count == 5)
    }
}
