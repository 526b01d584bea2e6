import Foundation
import Testing

extension CLIRunner {
    /// Runs `privatesync --home HOME ARGUMENTS` with arguments given as raw bytes (so that one can be invalid
    /// UTF-8, which a Swift `String`, and so `Process`, cannot carry), in `directory` as the working folder.
    ///
    /// The child is started with `posix_spawn` through `/bin/sh` (for the working folder); its output goes to
    /// files, so nothing can block on a full pipe.
    ///
    /// With `program`, that program is run with `arguments` instead of the binary (and no `--home`).
    func run(
        bytes arguments: [[UInt8]], home: Bool = true, in directory: String? = nil, program: String? = nil
    )
        throws -> Run
    {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-out-\(UUID())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let folder = directory ?? scratch
        let all: [[UInt8]] =
            [Array("/bin/sh".utf8), Array("-c".utf8), Array("cd \"$0\" && exec \"$@\"".utf8), Array(folder.utf8)]
            + [Array((program ?? Self.binary).utf8)]
            + (home && program == nil ? [Array("--home".utf8), Array(self.home.utf8)] : []) + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment["PRIVATESYNC_HOME"] = nil
        let environmentBytes = environment.map { Array("\($0.key)=\($0.value)".utf8) }

        func cStrings(_ list: [[UInt8]]) -> [UnsafeMutablePointer<CChar>?] {
            list.map { bytes in
                let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
                pointer[bytes.count] = 0
                return pointer
            } + [nil]
        }
        let argv = cStrings(all)
        let envp = cStrings(environmentBytes)
        defer {
            for pointer in argv + envp { pointer?.deallocate() }
        }
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil  // an opaque pointer on Darwin, a struct in Glibc
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, scratch + "/out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, scratch + "/err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0
        let output = (try? Data(contentsOf: URL(fileURLWithPath: scratch + "/out"))) ?? Data()
        let error = (try? Data(contentsOf: URL(fileURLWithPath: scratch + "/err"))) ?? Data()
        return Run(
            status: exited ? (status >> 8) & 0xFF : -1, signal: exited ? nil : status & 0x7F,
            standardOutput: String(decoding: output, as: UTF8.self),
            standardError: String(decoding: error, as: UTF8.self))
    }
}
