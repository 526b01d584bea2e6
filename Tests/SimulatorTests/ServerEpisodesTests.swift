import PrivateCloud
import Testing

@testable import Simulator

/// The server's persistent faults: an expired token stays refused, until the server hands out the same bytes again.
@Suite("Simulator: the server's episodes")
struct ServerEpisodesTests {
    @Test("an expired token is refused for good, but the same bytes handed out again after the expiry are honoured")
    func reissuedTokenIsFresh() throws {
        let (episodes, alice, token) = (ServerEpisodes(), try AccountID("alice"), ChangeToken(bytes: [1, 2, 3]))
        episodes.issued(token, account: alice)
        #expect(episodes.expireTokens(of: alice) == 1)
        #expect(episodes.isExpired(token, account: alice))
        #expect(episodes.isExpired(token, account: alice), "still refused")
        // A fetch from the start reaches the same position of the zone's history: the server gives that token out
        // again, and a refetch must not fail at its second page for ever (seeds 66, 73, 85 of 100).
        episodes.issued(token, account: alice)
        #expect(!episodes.isExpired(token, account: alice))
        #expect(episodes.paths == [.expiredTokenRefusal])
    }

    @Test("a refusal under a low limit is a path of its own")
    func lowLimitRefusalIsAPath() throws {
        let episodes = ServerEpisodes()
        #expect(episodes.paths.isEmpty)
        episodes.refused(device: "phone")
        #expect(episodes.paths == [.lowLimitRefusal])
    }
}
