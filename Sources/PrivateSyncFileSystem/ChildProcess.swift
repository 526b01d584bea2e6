// Only where a process can spawn another: iOS has no `posix_spawn`, and this module is part of the library products.
#if os(macOS) || os(Linux)

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// Runs a program as a child process and collects how it ended: the one place this package spawns a process.
    ///
    /// The demo uses it to run the trapping launch in a process of its own, so that the demo survives the trap; the
    /// benchmarks, to time a command and to measure a child's memory. macOS and Linux only.
    package struct ChildProcess {
        /// How a child ended.
        package enum Termination: Sendable, Equatable {
            case exited(Int32)
            case signalled(Int32)
        }

        /// What a child did.
        package struct Result: Sendable {
            /// How it ended.
            package let termination: Termination
            /// What it wrote to standard output.
            package let standardOutput: String
            /// What it wrote to standard error.
            package let standardError: String
        }

        /// The running executable's path.
        package static var currentExecutable: String {
            #if os(Linux)
                var buffer = [CChar](repeating: 0, count: 4096)
                let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
                guard count > 0 else { return CommandLine.arguments[0] }
                return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            #else
                var size: UInt32 = 0
                _ = _NSGetExecutablePath(nil, &size)
                var buffer = [CChar](repeating: 0, count: Int(size) + 1)
                guard _NSGetExecutablePath(&buffer, &size) == 0 else { return CommandLine.arguments[0] }
                let count = buffer.firstIndex(of: 0) ?? buffer.count
                return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            #endif
        }

        /// Runs `executable` with `arguments` and waits for it.
        ///
        /// - Returns: How it ended and what it wrote, or `nil` when it could not be started.
        package static func run(_ executable: String, _ arguments: [String]) -> Result? {
            var outPipe: [Int32] = [0, 0]
            var errPipe: [Int32] = [0, 0]
            guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { return nil }
            #if canImport(Darwin)
                var actions: posix_spawn_file_actions_t? = nil  // an opaque pointer on Darwin
            #else
                var actions = posix_spawn_file_actions_t()  // a struct in Glibc and Musl
            #endif
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
            posix_spawn_file_actions_addclose(&actions, outPipe[0])
            posix_spawn_file_actions_addclose(&actions, errPipe[0])
            // The child starts with no signal blocked and every signal at its default action, whatever the calling
            // thread had (a posix_spawn child inherits the caller's mask: a shell started from a runtime thread
            // that blocks SIGCHLD waited forever for its own background jobs).
            #if canImport(Darwin)
                var attributes: posix_spawnattr_t? = nil
            #else
                var attributes = posix_spawnattr_t()
            #endif
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var noSignals = sigset_t()
            var allSignals = sigset_t()
            sigemptyset(&noSignals)
            sigfillset(&allSignals)
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &allSignals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid = pid_t()
            #if canImport(Darwin)
                let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, _NSGetEnviron().pointee)
            #else
                let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            #endif
            close(outPipe[1])
            close(errPipe[1])
            guard spawned == 0 else {
                close(outPipe[0])
                close(errPipe[0])
                return nil
            }
            // The children write little (the demo's a few lines, the benchmarks' one), so reading one pipe to its end
            // before the other cannot dead-lock in practice.
            let output = readAll(outPipe[0])
            let error = readAll(errPipe[0])
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let termination: Termination =
                (status & 0x7F) == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
            return Result(termination: termination, standardOutput: output, standardError: error)
        }

        private static func readAll(_ descriptor: Int32) -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            close(descriptor)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

#endif
