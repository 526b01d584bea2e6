#if canImport(CloudKit)
    import CloudKit
    import Foundation
    import Synchronization

    #if canImport(CoreLocation)
        import CoreLocation
    #endif

    extension PSRecord {
        /// A record as CloudKit returned it: its fields (plain and encrypted), its system fields, its parent, and
        /// the archive of its system fields, which makes the `CKRecord` it goes back as.
        ///
        /// - Parameter record: CloudKit's record.
        convenience init(cloudKit record: CKRecord) {
            var contents = Contents()
            for key in record.allKeys() {
                if let value = record.object(forKey: key), let field = CloudKitValues.fieldValue(value) {
                    contents.fields[key] = field
                }
            }
            for key in record.encryptedValues.allKeys() {
                if let value = record.encryptedValues[key], let field = CloudKitValues.fieldValue(value) {
                    contents.fields[key] = field
                    contents.encryptedKeys.insert(key)
                }
            }
            if let tag = record.recordChangeTag {
                contents.systemFields = SystemFields(
                    changeTag: tag, creationDate: record.creationDate ?? .distantPast,
                    modificationDate: record.modificationDate ?? .distantPast,
                    creatorUserRecordID: UserRecordID(recordName: record.creatorUserRecordID?.recordName ?? ""),
                    lastModifiedUserRecordID: UserRecordID(
                        recordName: record.lastModifiedUserRecordID?.recordName ?? ""))
            }
            if let parent = record.parent {
                contents.parent = Reference(
                    recordID: ID(cloudKit: parent.recordID), action: parent.action == .deleteSelf ? .deleteSelf : .none)
            }
            let archiver = NSKeyedArchiver(requiringSecureCoding: true)
            record.encodeSystemFields(with: archiver)
            contents.cloudKitSystemFields = archiver.encodedData
            contents.holdsAllServerFields = true
            self.init(recordType: record.recordType, recordID: ID(cloudKit: record.recordID), contents: contents)
        }

        /// The `CKRecord` to send: made from the cached CloudKit system fields when the record has them (so that the
        /// save carries the change tag), with the keys changed since; a new `CKRecord` with every field otherwise.
        /// Keys set through ``encryptedValues`` go to CloudKit's encrypted values.
        var cloudKitRecord: CKRecord {
            let contents = contents.withLock { $0 }
            var record: CKRecord?
            if let archive = contents.cloudKitSystemFields,
                let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: archive)
            {
                unarchiver.requiresSecureCoding = true
                record = CKRecord(coder: unarchiver)
            }
            let keys: Set<String>
            if record != nil {
                keys = contents.changedKeys
            } else {
                record = CKRecord(recordType: recordType, recordID: recordID.cloudKitID)
                keys = Set(contents.fields.keys).union(contents.changedKeys)
            }
            guard let record else { preconditionFailure("a CKRecord was made above") }
            for key in keys.sorted() {
                let value = contents.fields[key]
                if contents.encryptedKeys.contains(key) {
                    record.encryptedValues[key] = value.flatMap(CloudKitValues.encryptedValue)
                } else {
                    record.setObject(value.flatMap(CloudKitValues.objectValue), forKey: key)
                }
            }
            if contents.parentChanged || record.parent == nil, let parent = contents.parent {
                record.parent = CKRecord.Reference(
                    recordID: parent.recordID.cloudKitID, action: parent.action == .deleteSelf ? .deleteSelf : .none)
            }
            return record
        }
    }

    /// Field values between CloudKit's types and the container's.
    enum CloudKitValues {
        /// The container's value for a CloudKit value, or `nil` for one PrivateSync has no counterpart for
        /// (`CKAsset`).
        static func fieldValue(_ value: Any) -> FieldValue? {
            switch value {
            case let string as String: return .string(string)
            case let number as NSNumber:
                return ["d", "f"].contains(String(cString: number.objCType))
                    ? .double(number.doubleValue) : .int64(number.int64Value)
            case let date as Date: return .date(date)
            case let data as Data: return .bytes(data)
            case let reference as CKRecord.Reference:
                return .reference(
                    RecordReference(
                        recordID: PSRecord.ID(cloudKit: reference.recordID).containerRecordID,
                        action: reference.action == .deleteSelf ? .deleteSelf : .none))
            case let array as [Any]:
                let elements = array.compactMap(fieldValue)
                return elements.count == array.count ? .list(elements) : nil
            default:
                #if canImport(CoreLocation)
                    if let location = value as? CLLocation {
                        return .location(
                            Location(
                                latitude: location.coordinate.latitude, longitude: location.coordinate.longitude,
                                altitude: location.altitude, horizontalAccuracy: location.horizontalAccuracy,
                                verticalAccuracy: location.verticalAccuracy))
                    }
                #endif
                return nil
            }
        }

        /// CloudKit's object for a container value, as `CKRecord.setObject(_:forKey:)` takes it.
        static func objectValue(_ value: FieldValue) -> (any __CKRecordObjCValue)? {
            switch value {
            case .string(let string): string as NSString
            case .int64(let int): NSNumber(value: int)
            case .bool(let bool): NSNumber(value: bool ? 1 : 0)
            case .double(let double): NSNumber(value: double)
            case .date(let date): date as NSDate
            case .bytes(let data): data as NSData
            case .reference(let reference):
                CKRecord.Reference(
                    recordID: PSRecord.ID(reference.recordID).cloudKitID,
                    action: reference.action == .deleteSelf ? .deleteSelf : .none)
            case .location(let location): locationObject(location)
            case .list(let elements): elements.compactMap(objectValue) as NSArray
            }
        }

        /// CloudKit's value for an encrypted field.
        static func encryptedValue(_ value: FieldValue) -> (any CKRecordValueProtocol)? {
            switch value {
            case .string(let string): string
            case .int64(let int): int
            case .bool(let bool): bool ? Int64(1) : Int64(0)
            case .double(let double): double
            case .date(let date): date
            case .bytes(let data): data
            case .reference, .location, .list: objectValue(value) as? any CKRecordValueProtocol
            }
        }

        private static func locationObject(_ location: Location) -> (any __CKRecordObjCValue)? {
            #if canImport(CoreLocation)
                CLLocation(
                    coordinate: CLLocationCoordinate2D(latitude: location.latitude, longitude: location.longitude),
                    altitude: location.altitude, horizontalAccuracy: location.horizontalAccuracy,
                    verticalAccuracy: location.verticalAccuracy, timestamp: Date(timeIntervalSinceReferenceDate: 0))
            #else
                nil
            #endif
        }
    }
#endif
