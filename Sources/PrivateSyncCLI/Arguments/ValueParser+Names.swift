import ArgumentParsing
import PrivateCloud

extension ValueParser {
    /// A value made by a checking initializer; a text it refuses is refused with the words of its error.
    ///
    /// - Parameters:
    ///   - make: Makes the value from the text, or throws.
    ///   - refusal: The message for what `make` threw.
    /// - Returns: The parser.
    fileprivate static func checked<Failure: Error>(
        _ make: @escaping (String) throws(Failure) -> Value, refusal: @escaping (Failure) -> String
    ) -> ValueParser<Value> {
        ValueParser { text, _ in
            do throws(Failure) {
                return .success(try make(text))
            } catch {
                return .failure(ValueError(refusal(error)))
            }
        }
    }
}

extension ValueParser where Value == AccountID {
    /// An iCloud account, checked as ``AccountID`` checks one.
    static var account: ValueParser<AccountID> { .checked(AccountID.init, refusal: \.description) }
}

extension ValueParser where Value == ContainerIdentifier {
    /// A container identifier, checked as ``ContainerIdentifier`` checks one.
    static var containerIdentifier: ValueParser<ContainerIdentifier> {
        .checked(ContainerIdentifier.init, refusal: \.description)
    }
}

extension ValueParser where Value == ZoneID {
    /// A zone, its name checked as CloudKit checks zone names.
    static var zone: ValueParser<ZoneID> {
        .checked(ZoneID.init) { error in "invalid zone name: \(error.message)" }
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
