/// The limits a container enforces. The defaults are CloudKit's.
public struct CloudLimits: Sendable, Hashable {
    /// Items (saves plus deletes) in one modify request: 400.
    public var maximumItemsPerRequest: Int
    /// Bytes of encoded fields in one modify request: 2 MB.
    public var maximumRequestBytes: Int
    /// Bytes of one record's encoded fields: 1 MB.
    public var maximumRecordBytes: Int
    /// Fields of one record type: 256.
    public var maximumFieldsPerRecordType: Int
    /// Custom zones in one database: 1000.
    public var maximumZones: Int
    /// Changes in one page of a change fetch, when the caller asks for no smaller limit.
    public var maximumChangesPerPage: Int

    /// CloudKit's limits.
    public static let cloudKit = CloudLimits(
        maximumItemsPerRequest: 400, maximumRequestBytes: 2 * 1024 * 1024, maximumRecordBytes: 1024 * 1024,
        maximumFieldsPerRecordType: 256, maximumZones: 1000, maximumChangesPerPage: 400)

    /// Creates limits.
    public init(
        maximumItemsPerRequest: Int, maximumRequestBytes: Int, maximumRecordBytes: Int,
        maximumFieldsPerRecordType: Int, maximumZones: Int, maximumChangesPerPage: Int
    ) {
        self.maximumItemsPerRequest = maximumItemsPerRequest
        self.maximumRequestBytes = maximumRequestBytes
        self.maximumRecordBytes = maximumRecordBytes
        self.maximumFieldsPerRecordType = maximumFieldsPerRecordType
        self.maximumZones = maximumZones
        self.maximumChangesPerPage = maximumChangesPerPage
    }
}
