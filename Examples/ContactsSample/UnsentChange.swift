#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A change of one contact the server has not confirmed: kept with the contacts, in the same write, so that no crash
/// can keep the one and lose the other.
public enum UnsentChange: Codable, Hashable, Sendable {
    /// The contact as edited at this date is to be saved.
    case save(Date)
    /// The contact is to be deleted.
    case delete
}
