import Testing

@testable import PrivateCloud

/// A container identifier is `iCloud.` and a reverse-DNS name of ASCII letters, digits, `.`, `-` and `_`, with no
/// empty component.
@Suite("Container identifiers")
struct ContainerIdentifierTests {
    @Test(
        "identifiers CloudKit accepts are accepted",
        arguments: ["iCloud.com.example.app", "iCloud.a", "iCloud.com.example-app_2", "iCloud.A.B.C"])
    func acceptsSoundIdentifiers(text: String) throws {
        #expect(try ContainerIdentifier(text).rawValue == text)
    }

    @Test(
        "identifiers CloudKit refuses are refused",
        arguments: [
            "", "iCloud.", "icloud.com.example", "com.example.app", "iCloud.com..example", "iCloud..com",
            "iCloud.com.example.", "iCloud.com.exa mple", "iCloud.com.exämple", "iCloud.com/example",
            "iCloud." + String(repeating: "a", count: 249),
        ])
    func refusesOtherText(text: String) {
        #expect(throws: IdentifierError.self) { try ContainerIdentifier(text) }
    }
}
