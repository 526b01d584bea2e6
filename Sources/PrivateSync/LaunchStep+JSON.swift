import PrivateCloud
import PrivateSyncJSON

/// A step in `last-launch.json`: one object, `{"step": NAME, ...}`, with the step's values under their names.
extension LaunchStep: Encodable {
    private enum CodingKeys: String, CodingKey {
        case step, on, existed, container, allowed, status, fallsBack, detail
    }

    /// The name a step has in the file.
    private var name: String {
        switch self {
        case .readSyncPreference: "readSyncPreference"
        case .skippedDirectoryFix: "skippedDirectoryFix"
        case .applicationSupport: "applicationSupport"
        case .skippedEntitlementCheck: "skippedEntitlementCheck"
        case .checkedEntitlement: "checkedEntitlement"
        case .checkedAccount: "checkedAccount"
        case .openedLocalOnlyStore: "openedLocalOnlyStore"
        case .openedUserCreatedStore: "openedUserCreatedStore"
        case .cloudStoreFailed: "cloudStoreFailed"
        case .openedBothStoresLocally: "openedBothStoresLocally"
        case .startedEngine: "startedEngine"
        case .noContainer: "noContainer"
        case .earlierBuild: "earlierBuild"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .step)
        switch self {
        case .readSyncPreference(let on): try container.encode(on, forKey: .on)
        case .applicationSupport(let existed): try container.encode(existed, forKey: .existed)
        case .checkedEntitlement(let identifier, let allowed):
            try container.encode(identifier.rawValue, forKey: .container)
            try container.encode(allowed, forKey: .allowed)
        case .checkedAccount(let status, let fallsBack):
            try container.encode(status.name, forKey: .status)
            try container.encode(fallsBack, forKey: .fallsBack)
        case .openedUserCreatedStore(let cloud): try container.encodeIfPresent(cloud?.rawValue, forKey: .container)
        case .cloudStoreFailed(let detail), .earlierBuild(let detail): try container.encode(detail, forKey: .detail)
        case .skippedDirectoryFix, .skippedEntitlementCheck, .openedLocalOnlyStore, .openedBothStoresLocally,
            .startedEngine, .noContainer:
            break
        }
    }

    /// The values of one step object, as read.
    private struct Values {
        var step: String?
        var on: Bool?
        var existed: Bool?
        var container: String?
        var allowed: Bool?
        var status: String?
        var fallsBack: Bool?
        var detail: String?
    }

    /// The step those values describe, or `nil` when they describe none.
    private init?(_ values: Values) {
        let identifier = values.container.flatMap { try? ContainerIdentifier($0) }
        guard values.container == nil || identifier != nil else { return nil }
        switch values.step {
        case "readSyncPreference": guard let on = values.on else { return nil }; self = .readSyncPreference(on: on)
        case "skippedDirectoryFix": self = .skippedDirectoryFix
        case "applicationSupport":
            guard let existed = values.existed else { return nil }
            self = .applicationSupport(existed: existed)
        case "skippedEntitlementCheck": self = .skippedEntitlementCheck
        case "checkedEntitlement":
            guard let identifier, let allowed = values.allowed else { return nil }
            self = .checkedEntitlement(identifier, allowed: allowed)
        case "checkedAccount":
            guard let status = values.status.flatMap(AccountStatus.init(name:)), let fallsBack = values.fallsBack
            else { return nil }
            self = .checkedAccount(status, fallsBack: fallsBack)
        case "openedLocalOnlyStore": self = .openedLocalOnlyStore
        case "openedUserCreatedStore": self = .openedUserCreatedStore(cloud: identifier)
        case "cloudStoreFailed": guard let detail = values.detail else { return nil }; self = .cloudStoreFailed(detail)
        case "openedBothStoresLocally": self = .openedBothStoresLocally
        case "startedEngine": self = .startedEngine
        case "noContainer": self = .noContainer
        case "earlierBuild": guard let detail = values.detail else { return nil }; self = .earlierBuild(detail)
        default: return nil
        }
    }

    /// Reads a step as ``encode(to:)`` writes it, with `JSONReader` (see there for why not `Codable`).
    ///
    /// - Parameters:
    ///   - reader: The reader, at the step's object.
    ///   - place: The step's place, for messages.
    /// - Returns: The step.
    /// - Throws: ``JSONReadError`` naming the place of anything wrong.
    static func read(_ reader: inout JSONReader, at place: String) throws(JSONReadError) -> LaunchStep {
        // A launch record written by an earlier build holds each step in words: kept as it was worded.
        if reader.nextIsString() { return .earlierBuild(try reader.string(at: place)) }
        var values = Values()
        let keys = ["step", "on", "existed", "container", "allowed", "status", "fallsBack", "detail"]
        // No key is required of the reader: which values a step needs depends on its name, checked below.
        try reader.object(at: place, keys: keys, required: []) { key, reader throws(JSONReadError) in
            let at = "\(place).\(key)"
            switch key {
            case "step": values.step = try reader.string(at: at)
            case "on": values.on = try reader.bool(at: at)
            case "existed": values.existed = try reader.bool(at: at)
            case "container": values.container = try reader.string(at: at)
            case "allowed": values.allowed = try reader.bool(at: at)
            case "status": values.status = try reader.string(at: at)
            case "fallsBack": values.fallsBack = try reader.bool(at: at)
            default: values.detail = try reader.string(at: at)
            }
        }
        guard let step = LaunchStep(values) else {
            throw reader.problem(place, "is not a launch step (or lacks one of its values)")
        }
        return step
    }
}
