import DeviceStore
import PrivateCloud
import PrivateSync

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The record the benchmarks move: about ten fields and about 300 bytes encoded, as the issue describes.
enum BenchSchema {
    static let partition: SyncPartition = {
        let fields = [
            FieldSchema(name: "title", type: .string), FieldSchema(name: "body", type: .string),
            FieldSchema(name: "mood", type: .int64), FieldSchema(name: "energy", type: .int64),
            FieldSchema(name: "weight", type: .double), FieldSchema(name: "taken", type: .bool),
            FieldSchema(name: "date", type: .date), FieldSchema(name: "updated", type: .date),
            FieldSchema(name: "source", type: .string), FieldSchema(name: "note", type: .string, isOptional: true),
        ]
        let schema = try! Schema(name: "bench", recordTypes: [RecordTypeSchema(name: "Entry", fields: fields)])
        return try! SyncPartition(schema: schema, userCreated: ["Entry"], localOnly: [])
    }()

    /// The fields of entry `index`.
    static func fields(_ index: Int) -> [String: FieldValue] {
        let date = Date(timeIntervalSinceReferenceDate: 788_918_400 + Double(index))
        return [
            "title": .string("Entry number \(index) of the benchmark"),
            "body": .string("Slept badly, walked to the clinic, felt better by the afternoon. Entry \(index)."),
            "mood": .int64(Int64(index % 5)), "energy": .int64(Int64(index % 7)),
            "weight": .double(70 + Double(index % 100) / 10), "taken": .bool(index % 2 == 0),
            "date": .date(date), "updated": .date(date.addingTimeInterval(60)),
            "source": .string("bench-device-\(index % 3)"), "note": .string("A short note for entry \(index)"),
        ]
    }

    /// Entry `index` as a CloudKit record in `zone`.
    static func record(_ index: Int, zone: ZoneID) -> Record {
        var record = Record(
            recordType: "Entry", recordID: RecordID(uncheckedName: "entry-\(index)", zoneID: zone), systemFields: nil)
        for (key, value) in fields(index) { record[key] = value }
        return record
    }

    /// Entries `0..<count` as CloudKit records in `zone`.
    ///
    /// - Parameters:
    ///   - count: How many entries.
    ///   - zone: Their zone.
    /// - Returns: The records, in order.
    static func records(_ count: Int, zone: ZoneID) -> [Record] {
        (0..<count).map { record($0, zone: zone) }
    }
}
