import ArgumentParsing

/// A record on a device, as the commands that change one record name it: `record edit NAME --device NAME` and
/// `record delete NAME --device NAME`.
struct RecordOnDevice: ParsableArguments {
    @Argument(valueName: "NAME", help: "The record's name.", parsing: .recordName) var name: String
    @Option(valueName: "NAME", help: CommandHelp.device) var device: String
}
