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
        // The raw bytes of argv, not `CommandLine.arguments`, which turns bytes that are not UTF-8 into U+FFFD.
        let code = await CLI.run(argumentBytes: CommandLineArguments.processArgumentBytes())
        exit(code.rawValue)
    }
}
