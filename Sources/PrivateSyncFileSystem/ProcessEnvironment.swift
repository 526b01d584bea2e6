#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's environment variables, read one at a time with `getenv`: `ProcessInfo`'s environment copies every
/// variable into a dictionary, a measurable part of a short command such as `sync status` (docs/benchmarks.md).
package enum ProcessEnvironment {
    /// The value of a variable.
    ///
    /// - Parameter name: The variable's name.
    /// - Returns: Its value, or `nil` when it is not set.
    package static func value(of name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
