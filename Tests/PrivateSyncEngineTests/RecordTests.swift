import ContactsSample
import Foundation
import PrivateSyncEngineTesting
import Testing

/// `PSRecord`, the `CKRecord` look-alike: values read back as a device reads them, change tracking, cached system
/// fields, and what a save sends.
@Suite("Records")
struct RecordTests {
    @Test("numbers and Booleans read back as NSNumber, so every numeric cast a device makes works")
    func numbersReadAsOnADevice() {
        let record = PSRecord(recordType: "Item")
        record["count"] = 3
        record["flag"] = true
        record["ratio"] = 0.5
        #expect(record["count"] as? Int == 3)
        #expect(record["count"] as? Int64 == 3)
        #expect(record["count"] as? Double == 3)
        #expect(record["flag"] as? Bool == true)
        #expect(record["flag"] as? Int == 1)
        #expect(record["ratio"] as? Double == 0.5)
        let typed: Int? = record["count"]
        let text: String? = record["count"]
        record.encryptedValues["when"] = Date(timeIntervalSinceReferenceDate: 5)
        let when: Date? = record.encryptedValues["when"]
        #expect(typed == 3 && text == nil && when == Date(timeIntervalSinceReferenceDate: 5))
    }

    @Test("every field type round-trips through a save and a fetch")
    func fieldTypesRoundTrip() async throws {
        let cloud = try SyncEngineTestCloud()
        let database = try cloud.otherClient(of: "alice")
        let zone = PSRecordZone(zoneName: "Z")
        try await database.save(zone)
        let target = PSRecord.ID(recordName: "target", zoneID: zone.zoneID)
        let record = PSRecord(recordType: "Item", recordID: PSRecord.ID(recordName: "item", zoneID: zone.zoneID))
        let date = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        record["text"] = "héllo"
        record["int"] = Int64.max
        record["date"] = date
        record["data"] = Data([0, 1, 255])
        record["names"] = ["a", "b"]
        record["numbers"] = [1, 2, 3]
        record["where"] = Location(latitude: 48.85, longitude: 2.35)
        record["link"] = PSRecord.Reference(recordID: target, action: .deleteSelf)
        record.setParent(target)
        try await database.save(record)
        let fetched = try await database.record(for: record.recordID)
        #expect(fetched["text"] as? String == "héllo")
        #expect(fetched["int"] as? Int64 == Int64.max)
        #expect(fetched["date"] as? Date == date)
        #expect(fetched["data"] as? Data == Data([0, 1, 255]))
        #expect(fetched["names"] as? [String] == ["a", "b"])
        #expect(fetched["numbers"] as? [Int] == [1, 2, 3])
        #expect(fetched["where"] as? Location == Location(latitude: 48.85, longitude: 2.35))
        #expect((fetched["link"] as? PSRecord.Reference) == PSRecord.Reference(recordID: target, action: .deleteSelf))
        #expect(fetched.parent?.recordID == target)
        #expect(fetched.allKeys() == ["data", "date", "int", "link", "names", "numbers", "text", "where"])
        #expect(fetched.changedKeys().isEmpty)
        #expect(fetched.recordChangeTag != nil)
        #expect(
            fetched.creatorUserRecordID?.recordName
                == AccountID.init(uncheckedForTests: "alice").userRecordID.recordName)
    }

    @Test("setting a key marks it changed, and a copy is another object with the same contents")
    func changeTrackingAndCopies() {
        let record = PSRecord(recordType: "Item")
        record["a"] = "1"
        record.encryptedValues["b"] = "2"
        #expect(record.changedKeys() == ["a", "b"])
        #expect(record["b"] as? String == "2")
        let copy = record.copy() as? PSRecord
        #expect(copy != nil && copy !== record && copy != record)
        #expect(copy?["a"] as? String == "1")
        record["a"] = nil
        #expect(record.allKeys() == ["b"])
        #expect(copy?["a"] as? String == "1")
    }

    @Test(
        "archived system fields bring back the identity and the change tag, and no fields",
        arguments: SystemFieldsForm.allCases)
    func systemFieldsArchive(form: SystemFieldsForm) async throws {
        let (database, saved) = try await Self.savedItem(["text": "1"])
        let record = saved
        let restored = try #require(try Self.throughSystemFields(saved, as: form))
        #expect(restored.recordID == saved.recordID)
        #expect(restored.recordType == "Item")
        #expect(restored.recordChangeTag == saved.recordChangeTag)
        #expect(restored.modificationDate == saved.modificationDate)
        #expect(restored.allKeys().isEmpty)
        restored["text"] = "2"
        try await database.save(restored)
        #expect(try await database.record(for: record.recordID)["text"] as? String == "2")
    }

    @Test("an archive that is not one of a record's system fields gives no record")
    func foreignArchive() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode("x" as NSString, forKey: "recordName")
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = true
        #expect(PSRecord(coder: unarchiver) == nil)
    }

    @Test(
        "a record made from cached system fields and saved with one key changed keeps the server's other keys",
        arguments: SystemFieldsForm.allCases)
    func partialSaveKeepsOtherKeys(form: SystemFieldsForm) async throws {
        let (database, saved) = try await Self.savedItem(["title": "t", "body": "b"])
        let record = saved
        let cached = try #require(try Self.throughSystemFields(saved, as: form))
        cached["title"] = "t2"
        try await database.save(cached)
        let server = try await database.record(for: record.recordID)
        // CloudKit uploads the changed keys only: the body the client never set is kept.
        #expect(server["title"] as? String == "t2")
        #expect(server["body"] as? String == "b")
    }
}

extension RecordTests {
    /// An item `r` with `fields`, saved by another client into alice's zone `Z`, as the server returned it.
    static func savedItem(_ fields: [String: String]) async throws -> (PSDatabase, PSRecord) {
        let database = try SyncEngineTestCloud().otherClient(of: "alice")
        try await database.save(PSRecordZone(zoneName: "Z"))
        let record = PSRecord(
            recordType: "Item", recordID: PSRecord.ID(recordName: "r", zoneID: PSRecordZone.ID(zoneName: "Z")))
        for (key, value) in fields { record[key] = value }
        return (database, try await database.save(record))
    }

    /// How a delegate caches a record's system fields.
    enum SystemFieldsForm: String, CaseIterable, CustomTestStringConvertible {
        /// A keyed archive, as CloudKit's `encodeSystemFields(with:)`.
        case keyedArchive
        /// PrivateSync's own JSON, where the keyed archiver writes nothing.
        case json

        var testDescription: String { rawValue }
    }

    /// A record made again from an archive of another's system fields, as a delegate caches them.
    static func throughSystemFields(_ record: PSRecord, as form: SystemFieldsForm) throws -> PSRecord? {
        if form == .json { return PSRecord(systemFieldsJSON: record.systemFieldsJSON()) }
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: archiver)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = true
        return PSRecord(coder: unarchiver)
    }
}

extension AccountID {
    /// An account identifier the test knows to be valid.
    init(uncheckedForTests name: String) {
        // swift-format-ignore: NeverUseForceTry
        self = try! AccountID(name)
    }
}

extension RecordTests {
    @Test(
        "a hand-edited archive (a missing key, a value of the wrong kind) gives no record, and no crash",
        arguments: ["recordName", "recordChangeTag", "creationDate"])
    func editedArchive(damagedKey: String) throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        // The keys encodeSystemFields writes, with one of them of the wrong kind.
        let values: [String: Any] = [
            "recordName": "r", "zoneName": "Z", "ownerName": "__defaultOwner__", "recordType": "Item",
            "recordChangeTag": "tag", "creationDate": NSDate(), "modificationDate": NSDate(),
            "creatorUserRecordID": "_u", "lastModifiedUserRecordID": "_u",
        ]
        archiver.encode(Int64(1), forKey: "PrivateSyncRecordFormat")
        for (key, value) in values {
            archiver.encode(key == damagedKey ? NSNumber(value: 7) : value, forKey: key)
        }
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = true
        #expect(PSRecord(coder: unarchiver) == nil)
    }
}

extension RecordTests {
    @Test(
        "JSON system fields that systemFieldsJSON did not write give no record",
        arguments: [
            #"{"format":2,"recordName":"r","zoneName":"Z","ownerName":"o","recordType":"Item"}"#,
            #"{"format":1,"recordName":"r","zoneName":"Z","ownerName":"o"}"#,
            #"{"format":1,"recordName":"r","zoneName":"Z","ownerName":"o","recordType":"Item","changeTag":"t"}"#,
            #"{"format":1,"recordName":7,"zoneName":"Z","ownerName":"o","recordType":"Item"}"#, "", "[]",
        ])
    func foreignSystemFieldsJSON(json: String) {
        #expect(PSRecord(systemFieldsJSON: Data(json.utf8)) == nil)
    }
}

extension RecordTests {
    @Test("the sample's contact reads its cached system fields from PrivateSync's JSON, as a static Linux build writes")
    func contactReadsJSONSystemFields() async throws {
        let (_, saved) = try await Self.savedItem(["text": "1"])
        var contact = Contact(id: "r", name: "n", userModificationDate: Date(timeIntervalSince1970: 0))
        contact.lastKnownRecordData = saved.systemFieldsJSON()
        let known = try #require(contact.lastKnownRecord)
        #expect(known.recordChangeTag == saved.recordChangeTag)
        #expect(known.recordID == saved.recordID)
    }
}
