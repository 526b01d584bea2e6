import PrivateCloud
import PrivateSyncFileSystem
import Testing

@testable import DemoSchema
@testable import DeviceStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Schema and partition")
struct SyncPartitionTests {
    static let schema = try! Schema(
        name: "test",
        recordTypes: [
            RecordTypeSchema(name: "Note", fields: [FieldSchema(name: "body", type: .string)]),
            RecordTypeSchema(name: "Steps", fields: [FieldSchema(name: "count", type: .int64)]),
        ])

    @Test(
        "a type in both lists, a type in neither list, or an unknown type in a list is refused with its code, naming it",
        arguments: [
            (["Note", "Steps"], ["Steps"], SchemaErrorCode.inBothLists, "Steps"),
            (["Note"], [], .inNeitherList, "Steps"),
            (["Note", "Ghost"], ["Steps"], .unknownType, "Ghost"),
        ])
    func listsAreChecked(userCreated: [String], localOnly: [String], code: SchemaErrorCode, named: String) {
        let error = #expect(throws: SchemaError.self) {
            try SyncPartition(schema: Self.schema, userCreated: userCreated, localOnly: localOnly)
        }
        #expect(error?.code == code)
        #expect(error?.message.contains(named) == true)
    }

    @Test(
        "invalid schemas are refused, naming the type or field",
        arguments: [
            ("9Lives", "body", "9Lives"), ("Note", "_hidden", "_hidden"),
            ("Note", "syncFieldVersions", "syncFieldVersions"),
            ("Bad Name", "body", "Bad Name"),
        ])
    func invalidNames(type: String, field: String, named: String) {
        let error = #expect(throws: (any Error).self) {
            try Schema(
                name: "x",
                recordTypes: [RecordTypeSchema(name: type, fields: [FieldSchema(name: field, type: .string)])])
        }
        #expect(error.map { "\($0)" }?.contains(named) == true)
    }

    @Test("a type or field declared twice is refused")
    func duplicates() {
        #expect(throws: SchemaError.self) {
            try Schema(
                name: "x",
                recordTypes: [RecordTypeSchema(name: "A", fields: []), RecordTypeSchema(name: "A", fields: [])])
        }
        #expect(throws: SchemaError.self) {
            try Schema(
                name: "x",
                recordTypes: [
                    RecordTypeSchema(
                        name: "A",
                        fields: [FieldSchema(name: "f", type: .string), FieldSchema(name: "f", type: .int64)])
                ])
        }
    }

    @Test("a type of one partition cannot be had as the other's")
    func modelTypesKeepTheirPartition() throws {
        #expect(throws: SchemaError.self) { try SyncPartition.demoHealth.userCreatedType("Baseline") }
        #expect(throws: SchemaError.self) { try SyncPartition.demoHealth.localOnlyType("CheckIn") }
        #expect(try SyncPartition.demoHealth.localOnlyType("Baseline").name == "Baseline")
    }

    @Test("the demo schema: 35 user-created types, exactly the 5 local-only ones, each with an optional note")
    func demoSchema() throws {
        let demo = SyncPartition.demoHealth
        #expect(demo.userCreatedTypes.count == 35)
        #expect(
            demo.localOnlyTypes == ["Baseline", "ManualWorkout", "HealthContextProfile", "CuratedPrompt", "ApiPushLog"])
        for type in ["CheckIn", "Note", "Symptom", "Medication", "BloodResult", "HealthProfile"] {
            #expect(demo.partition(of: type) == .userCreated, "\(type)")
        }
        for type in demo.schema.recordTypes {
            let note = try #require(type.field(named: "note"), "\(type.name) has a note")
            #expect(note.type == .string && note.isOptional)
        }
        let checkIn = try #require(demo.schema.recordType(named: "CheckIn"))
        #expect(checkIn.field(named: "mood")?.type == .int64)
        #expect(checkIn.field(named: "date")?.type == .date)
    }

    @Test("the compiled-in demo schema is the JSON file in the repository, byte for byte")
    func embeddedSchemaMatchesTheFile() throws {
        let file = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Sources/DemoSchema/DemoHealthSchema.json").path
        let bytes = try FileSystem.read(file)
        #expect(
            String(decoding: bytes, as: UTF8.self) == SyncPartition.demoHealthSchemaJSON + "\n",
            "run: make embed-schema")
    }

    @Test("a schema survives writing to JSON and reading back")
    func jsonRoundTrip() throws {
        let again = try SyncPartition.decode(json: SyncPartition.demoHealth.jsonBytes(), source: "round trip")
        #expect(again == SyncPartition.demoHealth)
    }

    @Test(
        "a malformed schema file is refused with a message saying where",
        arguments: [
            ("{", "schema"),
            (#"{"name": "x", "types": [], "partition": {"userCreated": []}}"#, "localOnly"),
            (
                #"{"name": "x", "types": [{"name": "A", "fields": [{"name": "f", "type": "text"}]}], "partition": {"userCreated": ["A"], "localOnly": []}}"#,
                "text"
            ),
            (
                #"{"name": "x", "types": [{"name": "A", "fields": []}], "partition": {"userCreated": [], "localOnly": []}}"#,
                "neither"
            ),
            ("[]", "the top level should be an object"),
            (
                #"{"name": 3, "types": [], "partition": {"userCreated": [], "localOnly": []}}"#,
                "name should be a string"
            ),
            (
                #"{"name": "x", "name": "y", "types": [], "partition": {"userCreated": [], "localOnly": []}}"#,
                "the key \"name\" twice"
            ),
            (
                #"{"name": "x", "types": [{"name": "A", "fields": [{"name": "f", "type": "string", "optinal": true}]}], "partition": {"userCreated": ["A"], "localOnly": []}}"#,
                "types[0].fields[0] has an unknown key \"optinal\""
            ),
            (
                #"{"name": "x", "types": [{"name": "A", "fields": [{"name": "f", "type": "string", "optional": 1}]}], "partition": {"userCreated": ["A"], "localOnly": []}}"#,
                "types[0].fields[0].optional should be true or false"
            ),
            (
                #"{"name": "x", "types": [{"fields": []}], "partition": {"userCreated": [], "localOnly": []}}"#,
                "types[0] is missing the key \"name\""
            ),
            (
                #"{"name": "x", "types": [], "partition": {"userCreated": [], "localOnly": []}} {}"#,
                "followed by more text"
            ),
        ])
    func malformedSchemaFiles(json: String, mentions: String) {
        let error = #expect(throws: (any Error).self) {
            try SyncPartition.decode(json: Array(json.utf8), source: "bad.json")
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("bad.json") && text.contains(mentions), "\(text)")
    }
}
