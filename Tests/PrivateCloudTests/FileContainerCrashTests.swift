import PrivateSyncSQLite
import Testing

@testable import PrivateCloud

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("File container crash safety")
struct FileContainerCrashTests {
    @Test("a process killed while writing leaves every request applied whole or not at all")
    func killedWriterLeavesWholeRequests() async throws {
        let directory = TemporaryDirectory()
        let root = directory.path + "/cloud"
        await #expect(processExitsWith: .signal(SIGALRM)) { [root = root as String] in
            let container = FileContainer(
                cloudRoot: root, identifier: try! ContainerIdentifier("iCloud.com.example.me"),
                session: AccountSession(account: try! AccountID("alice")))
            _ = try! await container.saveZones([RecordZone(zoneID: syncZone)])
            // Die by SIGALRM (default action: terminate) at an arbitrary point of the writes below.
            var timer = itimerval(it_interval: timeval(), it_value: timeval(tv_sec: 0, tv_usec: 150_000))
            #if canImport(Darwin)
                setitimer(ITIMER_REAL, &timer, nil)
            #else
                // Glibc declares `ITIMER_REAL` as a case of a C enum (`UInt32` raw value), and `setitimer` takes
                // an `Int32`; Darwin's is a plain `Int32`.
                setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
            #endif
            for request in 0..<100_000 {
                let records = (0..<400).map {
                    makeRecord("req\(request)-\($0)", fields: ["body": .string(String(repeating: "b", count: 300))])
                }
                _ = try! await container.modifyRecords(saving: records, deleting: [])
            }
        }
        let path = FileContainer.databasePath(
            cloudRoot: root, account: try AccountID("alice"),
            identifier: try ContainerIdentifier("iCloud.com.example.me"))
        let connection = try Connection(path: path, mode: .readWrite)
        #expect(try connection.quickCheckProblems().isEmpty)
        let counts = try connection.query(
            "SELECT substr(record_name, 1, instr(record_name, '-') - 1), count(*) FROM records GROUP BY 1"
        ) { ($0.text(0), $0.int(1)) }
        #expect(!counts.isEmpty, "the child wrote at least one request before it was killed")
        for (request, count) in counts {
            #expect(count == 400, "request \(request) is partly applied: \(count) of 400 records")
        }
    }
}
