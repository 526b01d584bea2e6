import PrivateCloud
import PrivateSyncFileSystem
import Testing

@testable import DeviceSimulation
@testable import DeviceStore
@testable import PrivateSyncJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Simulated device")
struct SimulatedDeviceTests {
    static func install(_ folder: TemporaryDirectory, sync: Bool? = true) throws -> SimulatedDevice {
        try SimulatedDevice.install(
            at: folder.path + "/phone", name: "phone", account: try AccountID("alice"),
            build: .build(version: 1, withCloudKitFor: try ContainerIdentifier("iCloud.com.example.me")),
            syncPreference: sync)
    }

    @Test("a fresh install has Library, Caches and Preferences, and no Application Support")
    func freshInstallLayout() throws {
        let folder = TemporaryDirectory()
        let device = try Self.install(folder)
        #expect(try FileSystem.contents(ofDirectory: device.appGroup.path) == ["Library"])
        #expect(try FileSystem.contents(ofDirectory: device.appGroup.library) == ["Caches", "Preferences"])
        #expect(!device.appGroup.hasApplicationSupport)
    }

    @Test("the account, the build and the preference are on disk for the next process")
    func stateIsOnDisk() throws {
        let folder = TemporaryDirectory()
        let device = try Self.install(folder, sync: true)
        try device.setAccountStatus(.restricted)
        let again = try SimulatedDevice.open(at: device.root)
        #expect(again.profile.account == "alice")
        #expect(again.session.status == .restricted)
        #expect(try again.syncPreference())
        #expect(again.entitlements.permits(try ContainerIdentifier("iCloud.com.example.me")))
        try again.signOut()
        #expect(try SimulatedDevice.open(at: device.root).session.account == nil)
    }

    @Test("a reinstall wipes the app's folder back to a fresh install; an upgrade keeps it")
    func reinstallAndUpgrade() throws {
        let folder = TemporaryDirectory()
        let device = try Self.install(folder)
        try device.appGroup.createApplicationSupport()
        try device.upgrade(to: .build(version: 2, withCloudKitFor: nil))
        #expect(device.appGroup.hasApplicationSupport)
        #expect(try SimulatedDevice.open(at: device.root).profile.build.version == 2)
        try device.reinstall(syncPreference: nil)
        #expect(!device.appGroup.hasApplicationSupport)
        #expect(try !device.syncPreference())
        #expect(try SimulatedDevice.open(at: device.root).profile.account == "alice", "the OS keeps the iCloud sign-in")
    }

    @Test(
        "device names are checked",
        arguments: ["", "../escape", "a/b", ".hidden", "-flag", "naïve", String(repeating: "d", count: 65)])
    func invalidDeviceNames(name: String) {
        let folder = TemporaryDirectory()
        let error = #expect(throws: DeviceError.self) {
            try SimulatedDevice.install(
                at: folder.path + "/x", name: name, account: nil, build: .build(version: 1, withCloudKitFor: nil),
                syncPreference: nil)
        }
        #expect(error?.code == .invalidName)
        #expect(!FileSystem.exists(folder.path + "/x"))
    }
}

@Suite("Device files")
struct DeviceFileTests {
    @Test(
        "a device profile reads back exactly as JSONEncoder wrote it",
        arguments: [
            DeviceProfile(
                name: "phone", account: "alice", accountStatus: "available",
                build: .build(version: 3, withCloudKitFor: try! ContainerIdentifier("iCloud.com.example.me"))),
            DeviceProfile(
                name: "tablet", account: nil, accountStatus: "noAccount",
                build: .build(version: 1, withCloudKitFor: nil)),
        ])
    func profileRoundTrip(profile: DeviceProfile) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        #expect(try DeviceProfile.read(json: Array(try encoder.encode(profile))) == profile)
    }

    @Test("a damaged device profile is refused with the place of the problem")
    func damagedProfile() {
        let error = #expect(throws: (any Error).self) {
            try DeviceProfile.read(
                json: Array(#"{"name": "x", "accountStatus": "available", "build": {"version": "1"}}"#.utf8))
        }
        #expect(error.map { "\($0)" }?.contains("build.version") == true)
    }
}
