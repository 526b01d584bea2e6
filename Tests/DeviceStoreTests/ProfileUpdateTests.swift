import PrivateCloud
import PrivateSyncFileSystem
import Testing

@testable import DeviceSimulation
@testable import DeviceStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The locked read-modify-write of a device's profile, deterministically: what two racing processes would do, done
/// one after the other through two handles opened before either change.
@Suite("Profile updates")
struct ProfileUpdateTests {
    @Test("a change through a stale handle keeps the change another handle made since")
    func staleHandleKeepsTheOtherChange() throws {
        let folder = TemporaryDirectory()
        let identifier = try ContainerIdentifier("iCloud.com.example.me")
        let installed = try SimulatedDeviceTests.install(folder)
        // Two processes opened the device before either changed it.
        let first = try SimulatedDevice.open(at: installed.root)
        let second = try SimulatedDevice.open(at: installed.root)
        try first.signIn(try AccountID("bob"))
        try second.upgrade { .build(version: $0.version + 1, withCloudKitFor: nil) }
        let result = try SimulatedDevice.open(at: installed.root)
        #expect(result.profile.account == "bob", "the sign-in was lost")
        #expect(result.profile.build.version == 2)
        #expect(!result.entitlements.permits(identifier), "the upgrade was lost")
        // And the other way round: the stale first handle's status change keeps the second's upgrade.
        try first.setAccountStatus(.restricted)
        let again = try SimulatedDevice.open(at: installed.root)
        #expect(again.profile.build.version == 2, "the upgrade was lost")
        #expect(again.session.status == .restricted)
    }

    @Test("a status change after another handle signed out is refused and changes nothing")
    func statusAfterSignOutIsRefused() throws {
        let folder = TemporaryDirectory()
        let installed = try SimulatedDeviceTests.install(folder)
        let stale = try SimulatedDevice.open(at: installed.root)
        try installed.signOut()
        let before = try FileSystem.read(installed.root + "/device.json")
        #expect(throws: DeviceError.self) { try stale.setAccountStatus(.restricted) }
        #expect(try FileSystem.read(installed.root + "/device.json") == before)
    }

    @Test("the folder stays locked while a change is made, so another process's change waits for it")
    func theLockIsHeldDuringTheChange() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/settings.txt"
        try FileSystem.writeAtomically(Array("1".utf8), to: path)
        var contender: FileSystemError?
        try FileSystem.update(path) { bytes in
            // Another open file description of the folder cannot take the lock meanwhile.
            do {
                _ = try FileLock.exclusive(folder.path, wait: false)
            } catch {
                contender = error as? FileSystemError
            }
            return bytes + Array("2".utf8)
        }
        #expect(contender?.errno == EWOULDBLOCK)
        #expect(try FileSystem.read(path) == Array("12".utf8))
        // Released afterwards.
        let lock = try FileLock.exclusive(folder.path, wait: false)
        lock.unlock()
    }

    @Test("a change that throws leaves the file as it was")
    func aThrowingChangeWritesNothing() throws {
        struct Refused: Error {}
        let folder = TemporaryDirectory()
        let path = folder.path + "/settings.txt"
        try FileSystem.writeAtomically(Array("1".utf8), to: path)
        #expect(throws: Refused.self) { try FileSystem.update(path) { _ in throw Refused() } }
        #expect(try FileSystem.read(path) == Array("1".utf8))
        #expect(try FileSystem.contents(ofDirectory: folder.path) == ["settings.txt"])
    }
}
