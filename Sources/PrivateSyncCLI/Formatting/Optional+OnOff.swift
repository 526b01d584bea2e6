extension Bool? {
    /// How a message shows an `on|off` option: `on`, `off`, or `never set`.
    var onOffText: String { map { $0 ? "on" : "off" } ?? "never set" }
}
