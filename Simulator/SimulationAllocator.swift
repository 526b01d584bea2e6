#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The allocator settings of a process that runs simulations, applied once, before its first simulation.
///
/// A simulation makes and frees records near CloudKit's 1 MB limit at many steps (a pasted long text, and every read
/// and write of it). glibc serves each such block with a fresh `mmap` and returns it at `free`, or trims the heap
/// back to the kernel: 103,000 page faults in `privatesync-bench simulate-only` (4,099 steps), a tenth of its CPU
/// time. Serving every block below 32 MiB from the heap, and trimming the heap only beyond 256 MiB of free memory
/// at its top, keeps those pages in the process for the next record: 9,300 page faults, CPU time 2.55 s -> 2.35 s
/// (`perf stat`). Simulations are the same either way; only where freed memory goes changes. Elsewhere than glibc
/// (no `mallopt`), nothing is set.
enum SimulationAllocator {
    /// Whether the settings were applied (read once; the first read applies them).
    static let configured: Bool = {
        #if canImport(Glibc)
            // `mallopt` is declared in <malloc.h>, which the Glibc module does not include; found by name instead.
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
            let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
            let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
            let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
            return mallopt(mmapThreshold, 32 << 20) == 1 && mallopt(trimThreshold, 256 << 20) == 1
        #elseif canImport(Darwin)
            // Darwin's allocator keeps freed large blocks for reuse by itself; it has no `mallopt`.
            return false
        #else
            return false
        #endif
    }()
}
