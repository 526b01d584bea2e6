import DeviceStore
public import PrivateCloud
import PrivateSyncFileSystem

/// What an audit of a world's containers found.
public struct AuditReport: Sendable, Hashable {
    /// One problem.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        /// What kind of problem.
        public enum Kind: String, Sendable, Hashable {
            /// A record of a local-only type reached a container.
            case localOnlyType
            /// A record of a type the schema does not declare is in a container.
            case unknownType
            /// A record written under one account is in another account's container.
            case wrongAccount
            /// A container or store file could not be read.
            case unreadableFile
        }

        /// What is wrong.
        public let kind: Kind
        /// The container file (or store file) concerned.
        public let file: String
        /// The record, when the finding is about one.
        public let recordName: String?
        /// What is wrong, in words.
        public let detail: String

        public var description: String { "\(kind.rawValue): \(detail)" }
    }

    /// Container files (or in-memory databases) read.
    public var containersChecked = 0
    /// Records checked.
    public var recordsChecked = 0
    /// Every problem found.
    public var findings: [Finding] = []

    /// Whether nothing was found.
    public var isClean: Bool { findings.isEmpty }
}

extension World {
    /// Reads every account's private database and reports any record of a local-only type, and any record that
    /// reached an account other than the one it was written under (as the devices' stores record it).
    ///
    /// With the file backend every file under `cloud/` is read; with the memory backend, the given accounts.
    ///
    /// - Parameter accounts: The accounts to read (memory backend only; the file backend finds them on disk).
    /// - Returns: The report; ``AuditReport/isClean`` when nothing is wrong.
    /// - Throws: ``WorldError`` when the world's folders cannot be listed.
    public func audit(accounts: [AccountID] = []) throws(WorldError) -> AuditReport {
        var report = AuditReport()
        let origins = recordOrigins(&report)
        var databases: [(AccountID, String, () throws -> [Record])] = []
        if let memoryCloud {
            for account in accounts {
                databases.append(
                    (
                        account, "memory:\(account)",
                        { memoryCloud.records(account: account, container: self.containerIdentifier) }
                    ))
            }
        } else {
            let accountFolders: [String]
            do {
                accountFolders =
                    FileSystem.isDirectory(cloudRoot) ? try FileSystem.contents(ofDirectory: cloudRoot) : []
            } catch {
                throw WorldError(.fileSystem, underlying: error)
            }
            for folder in accountFolders {
                let files = (try? FileSystem.contents(ofDirectory: cloudRoot + "/" + folder)) ?? []
                for file in files where file.hasSuffix(".sqlite") {
                    let path = cloudRoot + "/" + folder + "/" + file
                    guard let account = try? AccountID(folder) else {
                        report.findings.append(
                            .init(
                                kind: .unreadableFile, file: path, recordName: nil,
                                detail: "\(folder) is not an account name"))
                        continue
                    }
                    databases.append((account, path, { try ContainerFile.read(path).records }))
                }
            }
        }
        for (account, file, read) in databases {
            let records: [Record]
            do {
                records = try read()
            } catch {
                report.findings.append(.init(kind: .unreadableFile, file: file, recordName: nil, detail: "\(error)"))
                continue
            }
            report.containersChecked += 1
            let expected = account.userRecordID
            for record in records {
                report.recordsChecked += 1
                let name = record.recordID.recordName
                switch partition.partition(of: record.recordType) {
                case .localOnly?:
                    report.findings.append(
                        .init(
                            kind: .localOnlyType, file: file, recordName: name,
                            detail: "\(account)'s container holds \(record.recordType) \(name), a local-only type"))
                case nil:
                    report.findings.append(
                        .init(
                            kind: .unknownType, file: file, recordName: name,
                            detail:
                                "\(account)'s container holds \(name) of type \(record.recordType), which the schema does not declare"
                        ))
                case .userCreated?:
                    break
                }
                for (origin, store) in origins[name] ?? [] where origin != expected {
                    report.findings.append(
                        .init(
                            kind: .wrongAccount, file: file, recordName: name,
                            detail:
                                "\(account)'s container holds \(record.recordType) \(name), written under iCloud user "
                                + "\(origin) (per \(store))"))
                }
            }
        }
        return report
    }

    /// For every record any device holds (in its stores and archives), the accounts it was written under.
    private func recordOrigins(_ report: inout AuditReport) -> [String: [(UserRecordID, String)]] {
        var origins: [String: [(UserRecordID, String)]] = [:]
        for name in (try? deviceNames()) ?? [] {
            // The device's files are found by their layout alone: a device whose profile is damaged is audited too.
            let appGroup = AppGroupContainer(path: devicesRoot + "/" + name + "/AppGroup")
            // Read under the app's lease, as the app reads them: no reinstall removes a file while it is open; and
            // the archives under their folder's lock, which a start-fresh holds while it writes and removes them.
            let lease = try? appGroup.lease()
            let archivesLock = FileSystem.isDirectory(appGroup.archives) ? try? FileLock.shared(appGroup.archives) : nil
            defer { withExtendedLifetime((lease, archivesLock)) {} }
            var files = [appGroup.applicationSupport + "/" + StoreConfiguration.userCreatedName + ".store"]
            files += ((try? FileSystem.contents(ofDirectory: appGroup.archives)) ?? [])
                .filter { $0.hasSuffix(".store") }.map { appGroup.archives + "/" + $0 }
            for file in files where FileSystem.exists(file) {
                do {
                    for entry in try StoreFileReader.origins(inStoreFile: file) {
                        if let origin = entry.origin { origins[entry.name, default: []].append((origin, file)) }
                    }
                } catch {
                    report.findings.append(
                        .init(kind: .unreadableFile, file: file, recordName: nil, detail: "\(error)"))
                }
            }
        }
        return origins
    }
}
