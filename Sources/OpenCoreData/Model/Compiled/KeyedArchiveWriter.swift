import Foundation

/// Writes a value as an `NSKeyedArchiver` archive in Apple's format, for transformable
/// attributes; ``KeyedArchive`` reads it (and Apple's `NSKeyedUnarchiver` does).
///
/// The archive is a binary property list `{"$archiver": "NSKeyedArchiver", "$version": 100000,
/// "$top": {"root": UID}, "$objects": ["$null", …]}`. As Apple's archiver writes them, strings,
/// numbers and `Data` are inline in `$objects`; other objects are dictionaries with a `$class`
/// UID pointing at a class record `{"$classname": …, "$classes": [class, superclasses…]}`:
/// `NSDate` (`NS.time`), `NSArray` and `NSSet` and `NSOrderedSet` (`NS.objects`), `NSDictionary`
/// (`NS.keys`, `NS.objects`), `NSURL` (`NS.base`, `NS.relative`), `NSUUID` (`NS.uuidbytes`),
/// `NSNull`. Objects come before what they contain, class records after, `$class` last in each
/// object, as Apple writes them (an archive of string dictionaries is byte-identical to Apple's).
///
/// Differs from Apple: only those Foundation value types can be archived (Linux has no
/// `NSCoding` for arbitrary classes); `Decimal` values are refused (Apple would write an
/// `NSDecimalNumber`).
struct KeyedArchiveWriter {
    typealias Value = BinaryPropertyListWriter.Value

    private var objects: [Value] = [.string("$null")]
    private var classRecords: [String: Int] = [:]
    /// Equal strings, numbers and data are archived once, as Apple's archiver shares them.
    private var inlineIndex: [Value: Int] = [:]
    private let allowedClassNames: Set<String>?

    init(allowedClassNames: Set<String>?) { self.allowedClassNames = allowedClassNames }

    /// The archive whose root object is at `root`.
    func archiveData(root: Int) -> Data {
        BinaryPropertyListWriter.data(.dictionary([
            ("$version", .integer(100000)),
            ("$archiver", .string("NSKeyedArchiver")),
            ("$top", .dictionary([("root", .uid(root))])),
            ("$objects", .array(objects)),
        ]))
    }

    /// `value` archived; with `allowedClassNames`, every archived object's class must be one of
    /// them. Throws ``TransformableValueError`` naming the type that can't be archived.
    static func archive(_ value: Any, allowedClassNames: Set<String>?) throws -> Data {
        var writer = KeyedArchiveWriter(allowedClassNames: allowedClassNames)
        let root = try writer.encode(value, depth: 0)
        return writer.archiveData(root: root)
    }

    /// Appends `value` to `$objects`; its index (UID).
    mutating func encode(_ value: Any, depth: Int) throws -> Int {
        guard depth < KeyedArchive.maximumValueDepth else {
            throw TransformableValueError("the value nests deeper than \(KeyedArchive.maximumValueDepth) levels")
        }
        guard let value = ValueComparison.unwrap(value) else { return 0 }
        func inline(_ plist: Value, as className: String) throws -> Int {
            try check(className)
            return self.inline(plist)
        }
        if type(of: value) == Bool.self, let bool = value as? Bool { return try inline(.bool(bool), as: "NSNumber") }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber, String(cString: number.objCType) == "c",
           number.int64Value == 0 || number.int64Value == 1 {
            return try inline(.bool(number.boolValue), as: "NSNumber")
        }
        switch value {
        case is NSNull:
            return try object("NSNull") { _ in [] }
        case let string as String:
            return try inline(.string(string), as: "NSString")
        case let data as Data:
            return try inline(.data(data), as: "NSData")
        case let date as Date:
            return try object("NSDate") { _ in [("NS.time", .real(date.timeIntervalSinceReferenceDate))] }
        case let url as URL:
            return try object("NSURL") { writer in
                let base = try url.baseURL.map { try writer.encode($0, depth: depth + 1) } ?? 0
                let relative = try writer.encode(url.relativeString, depth: depth + 1)
                return [("NS.base", .uid(base)), ("NS.relative", .uid(relative))]
            }
        case let uuid as UUID:
            return try object("NSUUID") { _ in [("NS.uuidbytes", .data(withUnsafeBytes(of: uuid.uuid) { Data($0) }))] }
        case let dictionary as [AnyHashable: Any]:
            let pairs = dictionary.sorted { "\($0.key)" < "\($1.key)" }
            return try object("NSDictionary") { writer in
                let keys = try writer.children(pairs.map { $0.key.base }, depth: depth)
                let values = try writer.children(pairs.map(\.value), depth: depth)
                return [("NS.keys", .array(keys)), ("NS.objects", .array(values))]
            }
        case let set as Set<AnyHashable>:
            return try object("NSSet") { [("NS.objects", .array(try $0.children(set.map(\.base), depth: depth)))] }
        case let ordered as NSOrderedSet:
            return try object("NSOrderedSet") { [("NS.objects", .array(try $0.children(ordered.array, depth: depth)))] }
        case let array as [Any]:
            return try object("NSArray") { [("NS.objects", .array(try $0.children(array, depth: depth)))] }
        default:
            break
        }
        switch NumericValue(value) {
        case .integer(let int)?: return try inline(.integer(int), as: "NSNumber")
        case .double(let double)?: return try inline(.real(double), as: "NSNumber")
        case .unsigned(let unsigned)?: return try inline(.integer(Int64(bitPattern: unsigned)), as: "NSNumber")
        case .decimal?:
            throw TransformableValueError("a Decimal can't be archived on this platform; store it in a Decimal attribute or as a String")
        case nil:
            throw TransformableValueError("a value of type \(type(of: value)) can't be archived on this platform; give the attribute a value transformer that turns it into Data")
        }
    }

    /// Appends a string, number, Boolean or data value to `$objects` once; its index.
    mutating func inline(_ plist: Value) -> Int {
        if let existing = inlineIndex[plist] { return existing }
        objects.append(plist)
        inlineIndex[plist] = objects.count - 1
        return objects.count - 1
    }

    /// References to `items`, each appended to `$objects`.
    mutating func children(_ items: [Any], depth: Int) throws -> [Value] {
        var result: [Value] = []
        result.reserveCapacity(items.count)
        for item in items { result.append(.uid(try encode(item, depth: depth + 1))) }
        return result
    }

    /// Appends an archived object of `className` (a direct subclass of `NSObject`) before the
    /// objects its `fields` encode, and its class record after them, in Apple's order.
    private mutating func object(_ className: String, fields: (inout KeyedArchiveWriter) throws -> [(String, Value)]) throws -> Int {
        try check(className)
        let index = reserveObject()
        finishObject(at: index, classes: [className, "NSObject"], fields: try fields(&self))
        return index
    }

    /// Reserves the next index of `$objects` for an object whose fields are encoded after it
    /// (so that the objects they reference, and references back to it, come after it).
    mutating func reserveObject() -> Int {
        objects.append(.integer(0))
        return objects.count - 1
    }

    /// Fills the object reserved at `index`; its class record (`classes`: the class, then its
    /// superclasses) is appended now unless already there.
    mutating func finishObject(at index: Int, classes: [String], fields: [(String, Value)]) {
        let classIndex = classRecord(classes)
        objects[index] = .dictionary(fields + [("$class", .uid(classIndex))])
    }

    private mutating func classRecord(_ classes: [String]) -> Int {
        if let index = classRecords[classes[0]] { return index }
        objects.append(.dictionary([
            ("$classname", .string(classes[0])),
            ("$classes", .array(classes.map(Value.string))),
        ]))
        classRecords[classes[0]] = objects.count - 1
        return objects.count - 1
    }

    private func check(_ className: String) throws {
        guard let allowed = allowedClassNames, !allowed.contains(className) else { return }
        throw TransformableValueError(
            "a value of class \(className) is not among the allowed classes (\(allowed.sorted().joined(separator: ", ")))")
    }
}
