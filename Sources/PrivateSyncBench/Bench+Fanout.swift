import DeviceStore
import PrivateCloud
import PrivateSync
import SimulatedWorld

/// `fanout_scaling`: what each device pays for a group of devices to converge, as the group grows.
extension Bench {
    /// What one convergence measured.
    struct Fanout {
        let devices: Int
        let records: Int
        let rounds: Int
        let seconds: Double

        /// Seconds per device.
        var perDevice: Double { seconds / Double(devices) }
    }

    /// `devices` devices on one account, each holding its share of `records` records never synced, sync in turn
    /// (a round is one sync of each) until a round moves nothing; every device then holds every record.
    ///
    /// Each device's share is written before the clock starts (see ``fill(_:records:)``). The rounds are timed.
    static func fanout(at home: String, devices: Int, records: Int) async throws -> Fanout {
        let world = try newWorld(at: home)
        var apps: [LaunchedApp] = []
        let share = records / devices
        for index in 0..<devices {
            try world.addDevice("device-\(index)", account: alice, syncPreference: true)
            let app = try world.launch("device-\(index)")
            try fill(app, records: index * share..<(index == devices - 1 ? records : (index + 1) * share))
            apps.append(app)
        }
        var rounds = 0
        let seconds = try await time {
            var moved = 1
            while moved > 0 {
                rounds += 1
                moved = 0
                for app in apps {
                    guard let report = await app.sync(force: true), report.outcome == .succeeded else {
                        throw BenchError("a device's sync failed in the fan-out")
                    }
                    moved += report.sentSaves + report.fetchedModifications + report.fetchedDeletions
                }
            }
        }
        for app in apps where try app.stores.userCreated.count() != records {
            throw BenchError("a device did not converge on \(records) records in the fan-out")
        }
        return Fanout(devices: devices, records: records, rounds: rounds, seconds: seconds)
    }
}
