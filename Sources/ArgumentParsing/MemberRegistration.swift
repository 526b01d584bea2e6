/// The declared members made while an instance of a ``ParsableArguments`` type is made, in the order they are made:
/// each ``Argument``, ``Option``, ``Flag`` and ``OptionGroup`` registers itself at the end of its initializer.
///
/// Registration hands each member over as `any DeclaredProperty`, a conversion the compiler resolves, where finding
/// the members among an instance's properties afterwards took a run-time cast of each property, and the first cast of
/// each type scans every protocol conformance in the binary (see ``Declarations/members(of:)``).
enum MemberRegistration {
    /// The members registered so far, in one ``collect(_:)``.
    ///
    /// `@unchecked Sendable`, safely: a collector is made by ``collect(_:)``, bound as a task-local value only for
    /// its synchronous body, appended to only by the member initializers that body runs (on the same thread, since
    /// the body cannot suspend), and read once the body has returned. No other thread ever sees it.
    final class Collector: @unchecked Sendable {
        var members: [any DeclaredProperty] = []
    }

    /// The collector of the ``collect(_:)`` running on this thread, if any.
    @TaskLocal static var current: Collector?

    /// Runs `make`, collecting the members it registers.
    ///
    /// - Parameter make: Makes an instance whose stored properties are declared members.
    /// - Returns: What `make` returned, and the members it registered, in order.
    static func collect<Instance>(_ make: () -> Instance) -> (Instance, [any DeclaredProperty]) {
        let collector = Collector()
        let instance = $current.withValue(collector) { make() }
        return (instance, collector.members)
    }

    /// Registers a member with the running ``collect(_:)``; does nothing outside one.
    ///
    /// - Parameter member: The member just made.
    static func register(_ member: any DeclaredProperty) {
        current?.members.append(member)
    }
}
