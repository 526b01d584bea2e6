import DeviceStore
import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Adding records by their typed record type")
struct TypedAddTests {
    @Test("a declared type carries its partition; an undeclared one is nil")
    func partitionedTypes() throws {
        let partition = SyncPartition.demoHealth
        #expect(partition.partitionedType(named: "CheckIn")?.partition == .userCreated)
        #expect(partition.partitionedType(named: "Baseline")?.partition == .localOnly)
        #expect(partition.partitionedType(named: "Baseline")?.name == "Baseline")
        #expect(partition.partitionedType(named: "Steps") == nil)
    }

    @Test("a record goes to the store its type's partition names, chosen by the type, not by a name")
    func typedAddPicksTheStore() throws {
        let (world, phone) = try launchedPhone()
        let now = FieldValue.date(world.clock.now())
        let checkIn = try phone.partition.userCreatedType("CheckIn")
        let baseline = try phone.partition.localOnlyType("Baseline")
        let saved = try phone.add(checkIn, fields: ["mood": .int64(3), "date": now])
        let measured = try phone.add(
            .localOnly(baseline),
            fields: [
                "metric": .string("restingHeartRate"), "value": .double(58), "computedAt": now,
                "windowDays": .int64(28),
            ])
        #expect(try phone.find(saved.name)?.partition == .userCreated)
        #expect(try phone.find(measured.name)?.partition == .localOnly)
        #expect(try phone.stores.userCreated.pendingChangeCount() == 1, "only the user-created record is queued")
    }

    @Test("a type name the schema does not declare is refused with the known types")
    func unknownTypeName() throws {
        let (_, phone) = try launchedPhone()
        let error = #expect(throws: StoreError.self) { try phone.add("Steps", fields: [:]) }
        #expect(error?.code == .unknownType)
        #expect(error?.message.contains("known types: ") == true)
    }
}
