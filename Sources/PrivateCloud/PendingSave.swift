/// A record of a modify request, ready to be saved: its fields sorted by key, and encoded.
struct PendingSave {
    /// The record as the request carries it.
    let record: Record
    /// Its fields in the order they are encoded (``FieldsJSON/sortedFields(_:)``).
    let sortedFields: [FieldsJSON.Field]
    /// Its fields encoded (``FieldsJSON/encode(sorted:)``): what is stored, and what CloudKit's size limits count.
    let encoded: [UInt8]
}
