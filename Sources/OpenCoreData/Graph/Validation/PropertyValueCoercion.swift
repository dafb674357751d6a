/// The one rule table for attribute and relationship values: whether a value has a Swift type
/// its property accepts, and the value converted to the property's own type (the "coercing"
/// Apple's `validateValue(_:forKey:)` documents). Used by validation (``check(_:for:)``), by
/// the key-value coding setters and default values (``stored(_:for:)``), and when the snapshot
/// for a store is built (``stored(_:for:)`` again, after validation passed).
///
/// Setters never lose information: a value the rules accept is kept converted (losslessly); a
/// value of the wrong type or out of range is kept exactly as given, and validation reports it at
/// save (1550, 1610, 1620), as Core Data keeps the `NSNumber` it was given.
///
/// Apple checks only the class (`NSNumber` for every number type). Swift values keep their
/// types, so the rules are, per attribute type:
/// - Integer 16/32/64: any Swift integer (`Int`, `Int8`…`Int64`, `UInt`…`UInt64`) or an `NSNumber`
///   holding an integral value, converted to `Int16`/`Int32`/`Int64` when it fits. A value that
///   does not fit is a 1610 (too large) or 1620 (too small) error; `Bool`, floating-point and
///   `Decimal` values are of the wrong type (1550).
/// - Double, Float: any number except `Bool` (integers, `Double`, `Float`, `CGFloat`, `Decimal`,
///   `NSNumber`), converted to `Double`/`Float`; a finite value beyond `Float`'s range is 1610/1620.
/// - Decimal: `Decimal`, `NSDecimalNumber` or a Swift integer (exact), converted to `Decimal`.
///   `Double`, `Float` and plain `NSNumber` are refused, as Apple refuses `NSNumber` for
///   `NSDecimalNumber` attributes.
/// - Boolean: `Bool`, or an `NSNumber` holding 0 or 1, converted to `Bool`; a Swift integer is of
///   the wrong type (1550), as `Bool` is for integer attributes.
/// - String: `String`, `Substring`, `NSString` → `String`. Date: `Date`, `NSDate` → `Date`; a
///   date whose time interval is not finite (NaN, infinity) is a 1650 error (invalid date).
///   Binary: `Data`, `NSData` → `Data`. UUID: `UUID`, `NSUUID` → `UUID`. URI: `URL`, `NSURL` →
///   `URL`. ObjectID: `NSManagedObjectID`.
/// - Transformable, Undefined and Composite: any value.
///
/// Relationships: a to-one holds an `NSManagedObject` whose entity is the destination entity or
/// one of its subentities; a to-many holds a set (`Set`, `NSSet`) of such objects, or, when
/// ordered, an `NSOrderedSet` (or an array).
enum PropertyValueCoercion {
    /// The outcome of the type check.
    enum Outcome {
        /// The value fits, converted to the property's type.
        case accepted(Any)
        /// The value's type does not fit; the message says which type was wanted.
        case wrongType(message: String)
        /// The value has the right type but can't be stored: a number beyond the attribute's range
        /// (`code` 1610 or 1620) or a date that is not finite (1650).
        case invalid(code: Int, reason: String)
    }

    /// Checks and converts `value` (not nil, not `NSNull`) for `attribute`.
    static func check(_ value: Any, for attribute: NSAttributeDescription) -> Outcome {
        let type = attribute.attributeType
        if let exact = exactValue(value, type: type) { return .accepted(exact) }
        let converted: Any?
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return integer(value, type: type, attribute: attribute)
        case .doubleAttributeType, .floatAttributeType:
            return floatingPoint(value, type: type, attribute: attribute)
        case .decimalAttributeType:
            converted = decimal(value)
        case .booleanAttributeType:
            if isBool(value) {
                converted = value as? Bool
            } else if let number = foundationNumber(value), let n = NumericValue(number)?.exactInteger, n == 0 || n == 1 {
                converted = n == 1
            } else {
                converted = nil
            }
        case .stringAttributeType:
            switch value {
            case let v as String: converted = v
            case let v as Substring: converted = String(v)
            case let v as NSString: converted = v as String
            default: converted = nil
            }
        case .dateAttributeType:
            switch value {
            case let v as Date: converted = v
            case let v as NSDate: converted = v as Date
            default: converted = nil
            }
            if let date = converted as? Date, !date.timeIntervalSinceReferenceDate.isFinite {
                return .invalid(code: NSValidationInvalidDateError,
                                reason: "A date of \(date.timeIntervalSinceReferenceDate) seconds since 2001 is not a valid date.")
            }
        case .binaryDataAttributeType:
            switch value {
            case let v as Data: converted = v
            case let v as NSData: converted = v as Data
            default: converted = nil
            }
        case .UUIDAttributeType:
            switch value {
            case let v as UUID: converted = v
            case let v as NSUUID: converted = v as UUID
            default: converted = nil
            }
        case .URIAttributeType:
            switch value {
            case let v as URL: converted = v
            case let v as NSURL: converted = v as URL
            default: converted = nil
            }
        case .objectIDAttributeType:
            converted = value as? NSManagedObjectID
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType:
            converted = value
        }
        guard let converted else { return wrongType(value, attribute: attribute) }
        return .accepted(converted)
    }

    /// `value` when it already has the Swift type `type` holds (what stores load and typed
    /// setters pass): one cast, before the general rules (a fast path, same results).
    private static func exactValue(_ value: Any, type: NSAttributeType) -> Any? {
        switch type {
        case .integer64AttributeType:
            if value is Int64 { return value }
            if let int = value as? Int { return Int64(int) }
        case .integer32AttributeType: if value is Int32 { return value }
        case .integer16AttributeType: if value is Int16 { return value }
        case .doubleAttributeType: if value is Double { return value }
        case .stringAttributeType: if value is String { return value }
        case .dateAttributeType:
            if let date = value as? Date, date.timeIntervalSinceReferenceDate.isFinite { return value }
        case .booleanAttributeType: if value is Bool { return value }
        default: break
        }
        return nil
    }

    /// The Swift type whose values an attribute of `type` keeps unchanged and accepts with no
    /// other check (what ``exactValue(_:type:)`` passes through); nil for types whose values
    /// are always checked or converted.
    static func exactType(of type: NSAttributeType) -> ObjectIdentifier? {
        switch type {
        case .integer64AttributeType: ObjectIdentifier(Int64.self)
        case .integer32AttributeType: ObjectIdentifier(Int32.self)
        case .integer16AttributeType: ObjectIdentifier(Int16.self)
        case .doubleAttributeType: ObjectIdentifier(Double.self)
        case .stringAttributeType: ObjectIdentifier(String.self)
        case .booleanAttributeType: ObjectIdentifier(Bool.self)
        default: nil
        }
    }

    /// The value to keep for `value` set on `attribute`: converted to the attribute's Swift type
    /// when the rules accept it, else `value` as given (validation reports it at save).
    static func stored(_ value: Any, for attribute: NSAttributeDescription) -> Any {
        if case .accepted(let converted) = check(value, for: attribute) { return converted }
        return value
    }

    /// Checks `value` (not nil, not `NSNull`) for `relationship`; `count` is the number of
    /// destination objects when the value is accepted.
    static func check(_ value: Any, for relationship: NSRelationshipDescription) -> (outcome: Outcome, count: Int) {
        let destination = relationship.destinationEntity
        func fits(_ object: NSManagedObject) -> Bool {
            guard let destination else { return true }
            return object.entity.isKindOf(entity: destination)
        }
        func fits(_ element: Any) -> Bool {
            guard let object = element as? NSManagedObject else { return false }
            return fits(object)
        }
        let desired = destination?.name ?? "NSManagedObject"
        if !relationship.isToMany {
            guard fits(value) else {
                return (.wrongType(message: unacceptable("to-one relationship", relationship.name, desired: desired, value)), 0)
            }
            return (.accepted(value), 1)
        }
        let kindName = relationship.isOrdered ? "NSOrderedSet" : "Set"
        // What an unordered relationship reads as, checked as it is: `CollectionValue` tries
        // `NSOrderedSet` first, which bridges a Swift set to an `NSSet` on the way, then makes
        // every element an `AnyHashable` (about 17,000 instructions an element).
        if !relationship.isOrdered, let set = value as? Set<NSManagedObject> {
            if let stranger = set.first(where: { !fits($0) }) {
                return (.wrongType(message: unacceptable("to-many relationship", relationship.name,
                                                         desired: "\(kindName)<\(desired)>", stranger)), 0)
            }
            return (.accepted(value), set.count)
        }
        guard let collection = CollectionValue(value),
              relationship.isOrdered ? collection.kind != .set : collection.kind == .set else {
            return (.wrongType(message: unacceptable("to-many relationship", relationship.name,
                                                     desired: "\(kindName)<\(desired)>", value)), 0)
        }
        if let stranger = collection.elements.first(where: { !fits($0) }) {
            return (.wrongType(message: unacceptable("to-many relationship", relationship.name,
                                                     desired: "\(kindName)<\(desired)>", stranger)), 0)
        }
        return (.accepted(value), collection.elements.count)
    }

    // MARK: Numbers

    private static func integer(_ value: Any, type: NSAttributeType, attribute: NSAttributeDescription) -> Outcome {
        // The value as an exact integer: Int64, or UInt64 above Int64.max.
        var signed: Int64?
        var unsigned: UInt64?
        if let number = foundationNumber(value), !(number is NSDecimalNumber) {
            switch NumericValue(number) {
            case .integer(let v)?: signed = v
            case .unsigned(let v)?: unsigned = v
            case let other?: signed = other.exactInteger
            case nil: break
            }
        } else if !isBool(value), let integer = value as? any BinaryInteger {
            if let v = Int64(exactly: integer) { signed = v } else { unsigned = UInt64(exactly: integer) }
        }
        guard signed != nil || unsigned != nil else { return wrongType(value, attribute: attribute) }
        let converted: Any?
        switch (type, signed) {
        case (.integer16AttributeType, let v?): converted = Int16(exactly: v)
        case (.integer32AttributeType, let v?): converted = Int32(exactly: v)
        case (.integer64AttributeType, let v?): converted = v
        default: converted = nil
        }
        if let converted { return .accepted(converted) }
        let (low, high): (Int64, Int64)
        switch type {
        case .integer16AttributeType: (low, high) = (Int64(Int16.min), Int64(Int16.max))
        case .integer32AttributeType: (low, high) = (Int64(Int32.min), Int64(Int32.max))
        default: (low, high) = (Int64.min, Int64.max)
        }
        let tooSmall = (signed ?? 0) < 0
        let shown = signed.map(String.init) ?? unsigned.map(String.init) ?? "?"
        return .invalid(code: tooSmall ? NSValidationNumberTooSmallError : NSValidationNumberTooLargeError,
                           reason: "\(shown) does not fit an \(type.xcodeName) attribute (\(low)…\(high)).")
    }

    private static func floatingPoint(_ value: Any, type: NSAttributeType, attribute: NSAttributeDescription) -> Outcome {
        guard !isBool(value), let number = NumericValue(value) else { return wrongType(value, attribute: attribute) }
        let double = number.doubleValue
        guard type == .floatAttributeType else { return .accepted(double) }
        let float = Float(double)
        if double.isFinite && !float.isFinite {
            return .invalid(code: double < 0 ? NSValidationNumberTooSmallError : NSValidationNumberTooLargeError,
                               reason: "\(double) does not fit a Float attribute.")
        }
        return .accepted(float)
    }

    private static func decimal(_ value: Any) -> Decimal? {
        if let number = value as? NSDecimalNumber, type(of: value) is NSNumber.Type { return number.decimalValue }
        if foundationNumber(value) != nil { return nil }
        if let decimal = value as? Decimal { return decimal }
        if !isBool(value), let integer = value as? any BinaryInteger {
            if let v = Int64(exactly: integer) { return Decimal(v) }
            if let v = UInt64(exactly: integer) { return Decimal(v) }
        }
        return nil
    }

    /// `value` when it is an `NSNumber` instance (not a Swift number that bridges to one).
    private static func foundationNumber(_ value: Any) -> NSNumber? {
        type(of: value) is NSNumber.Type ? value as? NSNumber : nil
    }

    /// Whether `value` is a Swift `Bool` (not an `NSNumber`).
    private static func isBool(_ value: Any) -> Bool {
        type(of: value) == Bool.self
    }

    // MARK: Messages

    /// The Swift type an attribute of `type` holds.
    static func swiftTypeName(_ type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType: return "Int16"
        case .integer32AttributeType: return "Int32"
        case .integer64AttributeType: return "Int64"
        case .decimalAttributeType: return "Decimal"
        case .doubleAttributeType: return "Double"
        case .floatAttributeType: return "Float"
        case .stringAttributeType: return "String"
        case .booleanAttributeType: return "Bool"
        case .dateAttributeType: return "Date"
        case .binaryDataAttributeType: return "Data"
        case .UUIDAttributeType: return "UUID"
        case .URIAttributeType: return "URL"
        case .objectIDAttributeType: return "NSManagedObjectID"
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType: return "Any"
        }
    }

    private static func wrongType(_ value: Any, attribute: NSAttributeDescription) -> Outcome {
        .wrongType(message: unacceptable("attribute", attribute.name, desired: swiftTypeName(attribute.attributeType), value))
    }

    /// Apple's message for a value of the wrong type.
    private static func unacceptable(_ kind: String, _ name: String, desired: String, _ value: Any) -> String {
        let given: String
        if let object = value as? NSManagedObject {
            given = object.entity.name ?? String(describing: type(of: object))
        } else {
            given = String(describing: type(of: value))
        }
        return "Unacceptable type of value for \(kind): property = \"\(name)\"; desired type = \(desired); "
            + "given type = \(given); value = \(CoreDataErrorMessages.describe(value))."
    }
}
