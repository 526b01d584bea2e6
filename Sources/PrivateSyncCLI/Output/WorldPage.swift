import PrivateSync
import SimulatedWorld

/// The world page of `privatesync inspect --html`: the devices, their stores by type, each account's container,
/// pending changes and each device's status sentence, as one self-contained HTML file (inline CSS, no URL).
enum WorldPage {
    /// Renders the page.
    ///
    /// - Parameters:
    ///   - overview: The world, read by ``World/overview(accounts:)``.
    ///   - home: The world's folder, shown in the heading.
    /// - Returns: The page's HTML; every value in it is escaped.
    static func render(_ overview: WorldOverview, home: String) -> String {
        let e: (String) -> String = { HTMLText.escape($0) }
        var body = "<h1>World <code>\(e(home))</code></h1>\n"
        body +=
            "<p class=\"meta\">Container <code>\(e(overview.containerIdentifier))</code>; "
            + "\(overview.devices.count) device(s), \(overview.accounts.count) account(s).</p>\n"
        body += "<h2>Devices</h2>\n"
        if overview.devices.isEmpty { body += "<p>No devices.</p>\n" }
        for device in overview.devices {
            let statusClass = device.status.map(HTMLText.statusClass) ?? "off"
            body += "<section class=\"device\" id=\"device-\(e(device.name))\" data-device=\"\(e(device.name))\">\n"
            body += "<h3>\(e(device.name)) <span class=\"badge \(statusClass)\">"
            body += "\(e(device.status?.description ?? "never launched"))</span></h3>\n"
            body +=
                "<p class=\"sentence\">\(e(device.status?.copy ?? "The app was never launched on this device."))</p>\n"
            body += "<dl>"
            body += "<dt>Account</dt><dd>\(e(device.account?.rawValue ?? "none")) (\(e(device.accountStatus)))</dd>"
            body += "<dt>Sync switch</dt><dd>\(device.syncPreference ? "on" : "off")</dd>"
            body += "<dt>Entitlement</dt><dd>\(device.entitlement ? "yes" : "no")</dd>"
            body += "<dt>Pending changes</dt><dd class=\"pending\">\(device.pendingChanges)</dd>"
            body += "</dl>\n"
            if device.launched {
                body += table(
                    caption: "User-created store", device.userCreated, empty: "No user-created records.")
                body += table(caption: "Local-only store", device.localOnly, empty: "No local-only records.")
            }
            body += "</section>\n"
        }
        body += "<h2>Accounts</h2>\n"
        if overview.accounts.isEmpty { body += "<p>No accounts.</p>\n" }
        for account in overview.accounts {
            body += "<section class=\"account\" data-account=\"\(e(account.account.rawValue))\">\n"
            body += "<h3>\(e(account.account.rawValue))</h3>\n"
            let signedIn = account.devices.isEmpty ? "none" : account.devices.map { e($0) }.joined(separator: ", ")
            body +=
                "<p class=\"meta\">Container <code>\(e(overview.containerIdentifier))</code>: "
                + "\(account.records) record(s). Devices signed in: \(signedIn).</p>\n"
            body += table(caption: "Container", account.types, empty: "The container is empty.")
            body += "</section>\n"
        }
        return HTMLText.document(title: "PrivateSync world \(home)", style: style, body: body)
    }

    private static func table(caption: String, _ counts: [WorldOverview.TypeCount], empty: String) -> String {
        let e: (String) -> String = { HTMLText.escape($0) }
        guard !counts.isEmpty else { return "<p class=\"empty\">\(e(empty))</p>\n" }
        var html = "<table><caption>\(e(caption))</caption><thead><tr><th>Type</th><th>Partition</th>"
        html += "<th>Records</th></tr></thead><tbody>\n"
        for count in counts {
            html += "<tr class=\"\(e(count.partition))\"><td>\(e(count.type))</td><td>\(e(count.partition))</td>"
            html += "<td class=\"n\">\(count.count)</td></tr>\n"
        }
        return html + "</tbody></table>\n"
    }

    private static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #212121; background: #fafafa; }
        h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 28px; } h3 { font-size: 15px; margin: 0 0 6px; }
        code { font: 13px ui-monospace, monospace; }
        section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 12px 16px; margin: 10px 0; }
        .badge { font-size: 12px; font-weight: normal; padding: 2px 8px; border-radius: 10px; margin-left: 8px; }
        .sentence { font-style: italic; margin: 4px 0 8px; }
        .meta { color: #555; }
        dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; margin: 6px 0; }
        dt { color: #555; } dd { margin: 0; }
        table { border-collapse: collapse; margin: 8px 0; min-width: 320px; }
        caption { text-align: left; font-weight: 600; padding: 4px 0; }
        th, td { border-bottom: 1px solid #eee; padding: 3px 10px 3px 0; text-align: left; }
        td.n { text-align: right; }
        tr.localOnly td:first-child { color: #6a1b9a; }
        tr.unknown td:first-child { color: #c62828; }
        """ + "\n" + HTMLText.statusStyle
}
