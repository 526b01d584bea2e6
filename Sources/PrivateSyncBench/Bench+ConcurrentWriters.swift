import PrivateSyncFileSystem

/// `concurrent_writers_scaling`: what contention costs when many processes write to one device at once.
extension Bench {
    /// Adds made in each measurement, shared among the writers.
    static let concurrentAdds = 160

    /// A shell script that runs `$4` loops at once, each `$3` `record add`s on device A of the world `$2` with the
    /// CLI `$1`, one after another, as a team's test runner or a user's shell loops would; it fails when any add
    /// fails (every add must be acknowledged: a refusal under contention is a bug, not a slow add).
    static let writersScript = """
        cli=$1; home=$2; adds=$3; writers=$4; pids=""
        w=0
        while [ $w -lt $writers ]; do
          ( i=0
            while [ $i -lt $adds ]; do
              "$cli" --home "$home" record add Note --device A --field "title=w$w-$i" --field body=b \\
                --field date=now >/dev/null || exit 1
              i=$((i + 1))
            done ) &
          pids="$pids $!"
          w=$((w + 1))
        done
        for pid in $pids; do wait $pid || exit 1; done
        """

    /// Adds per second with 8 writers on one device against 1 writer making the same number of adds, measured in
    /// turn (1, 8, 1, 8, 1, 8: the median of each); afterwards every acknowledged add must be on the device.
    ///
    /// - Parameters:
    ///   - cli: The `privatesync` binary.
    ///   - scratch: A folder for the world.
    /// - Returns: The figure.
    /// - Throws: ``BenchError`` when a command fails or an acknowledged add is missing.
    static func concurrentWritersFigure(cli: String, scratch: String) throws -> Figure {
        let home = scratch + "/concurrent-writers"
        for arguments in [
            ["init"], ["device", "add", "A", "--account", "alice", "--sync", "on"], ["launch", "--device", "A"],
        ] {
            _ = try runChild(cli, ["--home", home] + arguments)
        }
        let clock = ContinuousClock()
        var rates: [Int: [Double]] = [1: [], 8: []]
        for _ in 0..<3 {
            for writers in [1, 8] {
                let start = clock.now
                _ = try runChild(
                    "/bin/sh", ["-c", writersScript, "writers", cli, home, "\(concurrentAdds / writers)", "\(writers)"])
                rates[writers, default: []].append(Double(concurrentAdds) / seconds(clock.now - start))
            }
        }
        let listed = try runChild(cli, ["--home", home, "record", "list", "--device", "A", "--json"])
        let present = listed.split(separator: "\"name\"", omittingEmptySubsequences: false).count - 1
        guard present == concurrentAdds * 6 else {
            throw BenchError("concurrent writers: \(concurrentAdds * 6) adds acknowledged, \(present) on the device")
        }
        let one = median(rates[1] ?? []), eight = median(rates[8] ?? [])
        return Figure(
            name: "concurrent_writers_scaling", value: eight / one, floor: .atLeast(0.8),
            inputs:
                "adds=\(concurrentAdds) writers=8/1 adds_per_s=\(format(eight))/\(format(one)) runs=3 "
                + "acknowledged=\(concurrentAdds * 6) present=\(present)")
    }
}
