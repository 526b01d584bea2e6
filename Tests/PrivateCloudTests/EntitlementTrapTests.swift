import Testing

@testable import PrivateCloud

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Entitlement trap")
struct EntitlementTrapTests {
    @Test("opening a container without the CloudKit entitlement kills the process with SIGTRAP, after CloudKit's line")
    func openingWithoutEntitlementTraps() async throws {
        let result = await #expect(processExitsWith: .signal(SIGTRAP), observing: [\.standardErrorContent]) {
            let opener = TrappingContainerOpener.memory(cloud: MemoryCloud(), session: AccountSession(account: nil))
            _ = opener.openContainer(identifier: try! ContainerIdentifier("iCloud.com.example.me"), entitlements: .none)
        }
        let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(standardError.contains("Significant issue"))
        #expect(standardError.contains("com.apple.developer.icloud-services"))
    }

    @Test("a build whose entitlement lists another container traps too")
    func openingAnUnlistedContainerTraps() async {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            let entitlements = Entitlements.cloudKit([try! ContainerIdentifier("iCloud.com.example.other")])
            let opener = TrappingContainerOpener.memory(cloud: MemoryCloud(), session: AccountSession(account: nil))
            _ = opener.openContainer(
                identifier: try! ContainerIdentifier("iCloud.com.example.me"), entitlements: entitlements)
        }
    }

    @Test("a build with the entitlement opens the container")
    func openingWithTheEntitlement() async throws {
        let identifier = try ContainerIdentifier("iCloud.com.example.me")
        let opener = TrappingContainerOpener.memory(
            cloud: MemoryCloud(), session: AccountSession(account: try AccountID("alice")))
        let container = opener.openContainer(identifier: identifier, entitlements: .cloudKit([identifier]))
        #expect(container.identifier == identifier)
        #expect(try await container.allZones().count == 1)
    }
}
