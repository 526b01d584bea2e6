#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `privatesync`: the entry point.
@main
struct PrivateSyncMain {
    static func main() async {
        let code = await CLI.run(Array(CommandLine.arguments.dropFirst()))
        exit(code.rawValue)
    }
}
