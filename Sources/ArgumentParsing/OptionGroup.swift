/// A group of arguments, options and flags declared by a ``ParsableArguments`` type of their own, so that commands
/// that take the same ones declare them once, as in swift-argument-parser:
///
/// ```swift
/// struct RecordOnDevice: ParsableArguments {
///     @Argument(valueName: "NAME", help: "The record's name.") var name: String
///     @Option(valueName: "NAME", help: "The device.") var device: String
/// }
///
/// @OptionGroup var target: RecordOnDevice
/// ```
///
/// The group's members take their places in the command at the group's place, in the order the group declares them,
/// named by the group's properties. Unlike swift-argument-parser, a group's own `validate()` is not called: the
/// command's is, and it sees the group's values.
@propertyWrapper
package struct OptionGroup<Group: ParsableArguments>: DeclaredProperty {
    /// The group, whose values are read only once the command line is decoded.
    package let wrappedValue: Group
    /// The group's members, with the names of the properties that declare them.
    private let members: [(label: String, member: any DeclaredMember)]

    /// A group: its members are made, and registered with the command that declares it, as one property.
    package init() {
        (wrappedValue, members) = Declarations.members(of: Group.self)
        MemberRegistration.register(self)
    }

    func declaredMembers(label: String) -> [(label: String, member: any DeclaredMember)] {
        members
    }
}
