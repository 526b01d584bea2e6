import ArgumentParsing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `privatesync`: the entry point.
@main
struct PrivateSyncMain {
    static func main() async {
        // Every file and folder the world holds is the user's alone (0600, 0700), whatever umask the shell has: the
        // files this process creates with explicit modes are narrowed by the umask anyway, and those SQLite and
        // `VACUUM INTO` create (a store's `-wal` and `-shm`, an archive) take their mode from it.
        umask(0o077)
        // The raw bytes of argv, not `CommandLine.arguments`, which turns bytes that are not UTF-8 into U+FFFD.
        let code = await CLI.run(argumentBytes: CommandLineArguments.processArgumentBytes())
        exit(code.rawValue)
    }
}
