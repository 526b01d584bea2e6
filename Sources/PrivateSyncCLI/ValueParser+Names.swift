import ArgumentParsing
import PrivateCloud

extension ValueParser where Value == AccountID {
    /// An iCloud account, checked as ``AccountID`` checks one.
    static var account: ValueParser<AccountID> {
        ValueParser { text, _ in
            do throws(IdentifierError) {
                return .success(try AccountID(text))
            } catch {
                return .failure(ValueError(error.description))
            }
        }
    }
}

extension ValueParser where Value == ContainerIdentifier {
    /// A container identifier, checked as ``ContainerIdentifier`` checks one.
    static var containerIdentifier: ValueParser<ContainerIdentifier> {
        ValueParser { text, _ in
            do throws(IdentifierError) {
                return .success(try ContainerIdentifier(text))
            } catch {
                return .failure(ValueError(error.description))
            }
        }
    }
}

extension ValueParser where Value == ZoneID {
    /// A zone, its name checked as CloudKit checks zone names.
    static var zone: ValueParser<ZoneID> {
        ValueParser { text, _ in
            do throws(CloudError) {
                return .success(try ZoneID(text))
            } catch {
                return .failure(ValueError("invalid zone name: \(error.message)"))
            }
        }
    }
}

extension ValueParser where Value == String {
    /// A record name, checked as CloudKit checks one.
    static var recordName: ValueParser<String> {
        ValueParser { text, _ in
            if let problem = CloudKitNames.problem(withRecordName: text) {
                return .failure(ValueError("invalid record name: \(problem)"))
            }
            return .success(text)
        }
    }

    /// A record type for the container, which takes any CloudKit identifier.
    static var cloudRecordType: ValueParser<String> {
        ValueParser { text, _ in
            if let problem = CloudKitNames.problem(withIdentifier: text, kind: "record type") {
                return .failure(ValueError("invalid record type: \(problem)"))
            }
            return .success(text)
        }
    }
}

extension ValueParser where Value == AccountStatus {
    /// A status `account status --set` may give: any but `couldNotDetermine`.
    static var settableAccountStatus: ValueParser<AccountStatus> {
        .oneOf(
            ["available", "noAccount", "restricted", "temporarilyUnavailable"].map {
                ($0, AccountStatus(name: $0) ?? .couldNotDetermine)
            })
    }
}
