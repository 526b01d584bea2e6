extension PSSyncEngine.Event {
    /// The engine's state, to persist, as `CKSyncEngine.Event.StateUpdate`.
    public struct StateUpdate: Sendable, CustomStringConvertible {
        /// The state: hand it back in ``PSSyncEngine/Configuration/stateSerialization`` at the next launch.
        public let stateSerialization: PSSyncEngine.State.Serialization

        /// Creates the payload.
        ///
        /// - Parameter stateSerialization: The state.
        public init(stateSerialization: PSSyncEngine.State.Serialization) {
            self.stateSerialization = stateSerialization
        }

        /// The serialization's size.
        public var description: String { "StateUpdate(\(stateSerialization))" }
    }

    /// An account change, as `CKSyncEngine.Event.AccountChange`.
    public struct AccountChange: Sendable, CustomStringConvertible {
        /// What changed, as `CKSyncEngine.Event.AccountChange.ChangeType`: the user records involved.
        public enum ChangeType: Hashable, Sendable, CustomStringConvertible {
            /// A user signed in where none was.
            case signIn(currentUser: PSRecord.ID)
            /// The user signed out.
            case signOut(previousUser: PSRecord.ID)
            /// Another user is signed in than before.
            case switchAccounts(previousUser: PSRecord.ID, currentUser: PSRecord.ID)

            /// The change and the user records' names.
            public var description: String {
                switch self {
                case .signIn(let current): "signIn(currentUser: \(current.recordName))"
                case .signOut(let previous): "signOut(previousUser: \(previous.recordName))"
                case .switchAccounts(let previous, let current):
                    "switchAccounts(previousUser: \(previous.recordName), currentUser: \(current.recordName))"
                }
            }
        }

        /// What changed.
        public let changeType: ChangeType

        /// Creates the payload.
        ///
        /// - Parameter changeType: What changed.
        public init(changeType: ChangeType) {
            self.changeType = changeType
        }

        /// The change.
        public var description: String { "AccountChange(\(changeType))" }
    }
}
