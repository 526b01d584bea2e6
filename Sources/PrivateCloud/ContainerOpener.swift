#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How an app opens its container, as `CKContainer(identifier:)` does: it takes the build's entitlements, and
/// TRAPS when they do not allow the container.
///
/// There is nothing to catch: like CloudKit, the opener writes a "Significant issue" line to standard error and
/// kills the process with `SIGTRAP`. The only protection is a check that runs before any container code, which is
/// what the launch sequence does.
public protocol ContainerOpener: Sendable {
    /// Opens the container, or traps.
    ///
    /// - Parameters:
    ///   - identifier: The container.
    ///   - entitlements: The app build's entitlements.
    /// - Returns: The container.
    func openContainer(identifier: ContainerIdentifier, entitlements: Entitlements) -> any PrivateContainer
}

/// The trap CloudKit sets off when a process without the entitlement touches a container.
public enum EntitlementTrap {
    /// Checks `entitlements` for `identifier` and, when they do not allow it, logs as CloudKit does and traps.
    ///
    /// - Parameters:
    ///   - entitlements: The app build's entitlements.
    ///   - identifier: The container being opened.
    public static func check(_ entitlements: Entitlements, for identifier: ContainerIdentifier) {
        guard let problem = entitlements.missingEntitlement(for: identifier) else { return }
        let line = "[CK] Significant issue at CKContainer.m:747: \(problem)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        // A crash handler (Swift's backtracer, a test harness) must not turn the trap into something else: restore
        // the default action and unblock the signal, so the process dies by SIGTRAP as it does under CloudKit.
        signal(SIGTRAP, SIG_DFL)
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTRAP)
        sigprocmask(SIG_UNBLOCK, &signals, nil)
        raise(SIGTRAP)

        // Reached only if SIGTRAP is ignored or handled: the process must not carry on either way.
        fatalError(problem)
    }
}

/// Opens containers, trapping first, as CloudKit does, when the entitlements do not allow the container.
public struct TrappingContainerOpener: ContainerOpener {
    private let make: @Sendable (ContainerIdentifier) -> any PrivateContainer

    /// Creates an opener that makes containers with `make`, once the entitlement check passed.
    ///
    /// - Parameter make: Makes the container for an identifier.
    public init(_ make: @escaping @Sendable (ContainerIdentifier) -> any PrivateContainer) {
        self.make = make
    }

    public func openContainer(identifier: ContainerIdentifier, entitlements: Entitlements) -> any PrivateContainer {
        EntitlementTrap.check(entitlements, for: identifier)
        return make(identifier)
    }

    /// An opener of ``MemoryContainer``s in `cloud`.
    public static func memory(cloud: MemoryCloud, session: AccountSession, clock: any WallClock = SystemClock()) -> Self
    {
        Self { MemoryContainer(cloud: cloud, identifier: $0, session: session, clock: clock) }
    }
}
