#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

extension PSSyncEngine.State {
    /// The engine's state as something to store, as `CKSyncEngine.State.Serialization`: `Codable`, opaque, handed
    /// back in ``PSSyncEngine/Configuration/stateSerialization`` at the next launch.
    ///
    /// Encoded, it says whose it is: `{"format": "privatesync.fake-engine.state", "version": 1, "state": …}` for the
    /// fake engine's, `{"format": "apple.cksyncengine.state", "state": …}` for the real CKSyncEngine's, which the
    /// bridge wraps on Apple platforms. Each engine refuses the other's (the fake one's ``PSSyncEngine/fetchChanges(_:)``
    /// and ``PSSyncEngine/sendChanges(_:)`` then throw ``PSSyncEngineMisuse/Code/foreignStateSerialization``), so a
    /// fake's state is never taken for a real one, nor the reverse. Decoding refuses, with a `DecodingError` that
    /// says why, a serialization with no format tag (CloudKit's own, stored before the bridge), of another format,
    /// of a newer version, or a damaged one.
    ///
    /// Change tokens are opaque here as in CloudKit; one the server no longer accepts makes the engine fetch that
    /// zone (or the database) again from the start.
    public struct Serialization: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The format tag of a state written by this package's engine over the fake container.
        public static let fakeEngineFormat = "privatesync.fake-engine.state"
        /// The format tag of a state written by the real CKSyncEngine, wrapped by the bridge on Apple platforms.
        public static let cloudKitFormat = "apple.cksyncengine.state"
        /// The version of ``fakeEngineFormat`` this build writes, and the newest it reads.
        public static let version = 1

        /// Whose state it is.
        enum Storage: Hashable, Sendable {
            /// The fake engine's.
            case fake(StatePayload)
            /// The real CKSyncEngine's serialization, as JSON (the bridge encodes and decodes it).
            case cloudKit(Data)
        }

        let storage: Storage

        init(payload: StatePayload) {
            self.storage = .fake(payload)
        }

        /// Wraps the JSON of the real CKSyncEngine's serialization (the bridge's).
        ///
        /// - Parameter cloudKitJSON: What `JSONEncoder` made of a `CKSyncEngine.State.Serialization`.
        package init(cloudKitJSON: Data) {
            self.storage = .cloudKit(cloudKitJSON)
        }

        /// The fake engine's state, or `nil` for the real CKSyncEngine's.
        var payload: StatePayload? {
            if case .fake(let payload) = storage { return payload }
            return nil
        }

        /// The record changes the state holds, in order, or `nil` for the real CKSyncEngine's state: what a sweep
        /// compares with the state an engine restores after a crash.
        package var pendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange]? {
            payload.map { StateContents($0).pendingRecordZoneChanges.changes }
        }

        /// The real CKSyncEngine's serialization as JSON, or `nil` for the fake engine's.
        package var cloudKitJSON: Data? {
            if case .cloudKit(let json) = storage { return json }
            return nil
        }

        private enum CodingKeys: String, CodingKey {
            case format
            case version
            case state
        }

        /// Decodes a serialization.
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError.dataCorrupted` naming the problem: another format, a newer version, a damaged
        ///   state.
        public init(from decoder: any Decoder) throws {
            let container: KeyedDecodingContainer<CodingKeys>
            do {
                container = try decoder.container(keyedBy: CodingKeys.self)
            } catch {
                throw Self.refusal(decoder, "it is not a PrivateSync engine state (no format tag): \(error)")
            }
            guard let format = try container.decodeIfPresent(String.self, forKey: .format) else {
                throw Self.refusal(
                    decoder,
                    "it has no format tag: it was not written by PrivateSync's engine (a serialization of the real "
                        + "CKSyncEngine, stored as CloudKit encodes it, cannot drive the fake engine)")
            }
            switch format {
            case Self.fakeEngineFormat:
                let version = try container.decode(Int.self, forKey: .version)
                guard (1...Self.version).contains(version) else {
                    throw Self.refusal(
                        decoder,
                        "it is version \(version); this build of PrivateSync reads versions 1 to \(Self.version)")
                }
                storage = .fake(try container.decode(StatePayload.self, forKey: .state))
            case Self.cloudKitFormat:
                storage = .cloudKit(try container.decode(Data.self, forKey: .state))
            default:
                throw Self.refusal(
                    decoder,
                    "its format is \"\(format)\", neither \"\(Self.fakeEngineFormat)\" nor \"\(Self.cloudKitFormat)\"")
            }
        }

        /// Encodes the serialization, tagged with its format and version.
        ///
        /// - Parameter encoder: The encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch storage {
            case .fake(let payload):
                try container.encode(Self.fakeEngineFormat, forKey: .format)
                try container.encode(Self.version, forKey: .version)
                try container.encode(payload, forKey: .state)
            case .cloudKit(let json):
                try container.encode(Self.cloudKitFormat, forKey: .format)
                try container.encode(json, forKey: .state)
            }
        }

        private static func refusal(_ decoder: any Decoder, _ why: String) -> DecodingError {
            .dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "PSSyncEngine.State.Serialization: \(why)"))
        }

        /// What the state holds, in counts.
        public var description: String {
            switch storage {
            case .fake(let payload):
                "Serialization(\(Self.fakeEngineFormat) v\(Self.version), pendingRecordZoneChanges: "
                    + "\(payload.pendingRecordZoneChanges.count), pendingDatabaseChanges: "
                    + "\(payload.pendingDatabaseChanges.count), zoneTokens: \(payload.zoneTokens.count))"
            case .cloudKit(let json): "Serialization(\(Self.cloudKitFormat), \(json.count) bytes)"
            }
        }
    }
}
