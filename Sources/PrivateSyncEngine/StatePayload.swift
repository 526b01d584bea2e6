#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fields of a serialized engine state, as `Codable` values with fixed keys (a change of them is a new version
/// of ``PSSyncEngine/State/Serialization/version``).
struct StatePayload: Codable, Sendable, Hashable {
    /// A pending record change.
    struct RecordChange: Codable, Sendable, Hashable {
        var kind: Kind
        var recordID: PSRecord.ID
    }

    /// A pending zone change.
    struct ZoneChange: Codable, Sendable, Hashable {
        var kind: Kind
        var zoneID: PSRecordZone.ID
    }

    /// Which change.
    enum Kind: String, Codable, Sendable, Hashable {
        case save
        case delete
    }

    /// A zone's change token.
    struct ZoneToken: Codable, Sendable, Hashable {
        var zoneID: PSRecordZone.ID
        var token: Data
    }

    var currentUser: String?
    var userKnown: Bool
    var databaseToken: Data?
    var zoneTokens: [ZoneToken]
    var unfetchedZones: [PSRecordZone.ID]
    var pendingRecordZoneChanges: [RecordChange]
    var pendingDatabaseChanges: [ZoneChange]
    var hasPendingUntrackedChanges: Bool
}

extension StateContents {
    /// The contents as they are stored.
    var payload: StatePayload {
        StatePayload(
            currentUser: currentUser, userKnown: userKnown, databaseToken: databaseToken.map { Data($0.bytes) },
            zoneTokens: zoneTokens.sorted { $0.key < $1.key }.map {
                StatePayload.ZoneToken(zoneID: $0.key, token: Data($0.value.bytes))
            },
            unfetchedZones: unfetchedZones,
            pendingRecordZoneChanges: pendingRecordZoneChanges.changes.map { change in
                switch change {
                case .saveRecord(let id): StatePayload.RecordChange(kind: .save, recordID: id)
                case .deleteRecord(let id): StatePayload.RecordChange(kind: .delete, recordID: id)
                }
            },
            pendingDatabaseChanges: pendingDatabaseChanges.changes.map { change in
                switch change {
                case .saveZone(let zone): StatePayload.ZoneChange(kind: .save, zoneID: zone.zoneID)
                case .deleteZone(let id): StatePayload.ZoneChange(kind: .delete, zoneID: id)
                }
            },
            hasPendingUntrackedChanges: hasPendingUntrackedChanges)
    }

    /// The contents a stored state restores, its changes collapsed by the same rules as when they were added (a
    /// hand-edited state may name a record twice).
    init(_ payload: StatePayload) {
        self.init()
        currentUser = payload.currentUser
        userKnown = payload.userKnown
        databaseToken = payload.databaseToken.map { ChangeToken(bytes: Array($0)) }
        for zone in payload.zoneTokens { zoneTokens[zone.zoneID] = ChangeToken(bytes: Array(zone.token)) }
        for zone in payload.unfetchedZones { noteUnfetched(zone) }
        for change in payload.pendingRecordZoneChanges {
            add(change.kind == .save ? .saveRecord(change.recordID) : .deleteRecord(change.recordID))
        }
        for change in payload.pendingDatabaseChanges {
            add(change.kind == .save ? .saveZone(PSRecordZone(zoneID: change.zoneID)) : .deleteZone(change.zoneID))
        }
        hasPendingUntrackedChanges = payload.hasPendingUntrackedChanges
    }
}
