extension SyncPartition {
    /// The demo schema of a local-first health app: 35 user-created types and 5 local-only ones (Baseline,
    /// ManualWorkout, HealthContextProfile, CuratedPrompt, ApiPushLog), each with an optional `note`.
    public static let demoHealth: SyncPartition = {
        do {
            return try decode(json: Array(demoHealthSchemaJSON.utf8), source: "the built-in demo health schema")
        } catch {
            preconditionFailure("the built-in demo schema is invalid: \(error)")
        }
    }()
}
