import PrivateSyncFileSystem
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `FileSystem.refuseFolderCreation()` is what makes the simulator's cleanup on SIGTERM final: a simulation still
/// running created a removed scratch folder again, with its missing parents, between the cleanup's last pass and the
/// process's death (`CLIScratchTests` failed now and then under load). It is process-wide and for good, so each
/// case runs in a child process of its own.
@Suite("File system: no folder is created once the process refuses it")
struct FolderCreationRefusalTests {
    @Test("after the refusal, creating a folder and its missing parents fails with EINTR and creates nothing")
    func refusedCreationCreatesNothing() async {
        await #expect(processExitsWith: .success) {
            let parent = try FileSystem.makeTemporaryDirectory(prefix: "privatesync-refusal", in: "/tmp")
            try FileSystem.createDirectory(parent + "/before/child")  // allowed until the refusal
            FileSystem.refuseFolderCreation()
            do {
                try FileSystem.createDirectory(parent + "/after/child")
                exit(1)
            } catch let error as FileSystemError {
                guard error.errno == EINTR, !FileSystem.exists(parent + "/after") else { exit(2) }
            }
            // An existing folder is still not an error: nothing is created.
            try FileSystem.createDirectory(parent + "/before/child")
            try FileSystem.removeItem(parent)
            exit(0)
        }
    }
}
