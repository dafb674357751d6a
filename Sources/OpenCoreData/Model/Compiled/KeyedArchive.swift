import Foundation

/// A decoded `NSKeyedArchiver` archive (binary or XML property list), read without instantiating
/// any class: each archived object is a class name plus its coded fields, and references between
/// objects (`UID`s) are followed on demand, so cycles (an entity and its model) are harmless.
///
/// The format: the property list holds `$archiver` = "NSKeyedArchiver", `$top` (the root keys) and
/// `$objects` (a flat table; index 0 is the string `$null`). An object is a dictionary whose `$class`
/// points at a class record (`$classname`, `$classes`); its other keys are the coded fields. Plain
/// strings and numbers appear inline in the table. Unknown classes are kept as they are.
struct KeyedArchive: Sendable {
    /// One decoded value of the archive's object table or of an object's field.
    enum Value: Sendable, Equatable {
        case null
        case string(String)
        case integer(Int64)
        case real(Double)
        case bool(Bool)
        case data(Data)
        case date(Date)
        /// A reference into the object table.
        case reference(Int)
        case array([Value])
        case dictionary([String: Value])
        /// An archived object: its class chain (most derived first) and its coded fields.
        case object(classes: [String], fields: [String: Value])
    }

    /// The file the archive came from, for error messages (`nil` for in-memory data).
    let file: URL?
    /// The `$objects` table, with each object's `$class` replaced by its class chain.
    let objects: [Value]
    /// The `$top` dictionary: key → value (usually a reference).
    let top: [String: Value]

    /// Decodes `data` as a keyed archive. Throws ``KeyedArchiveError`` naming `file` when the data
    /// is not a property list, not a keyed archive, or holds a reference out of range.
    init(data: Data, file: URL? = nil) throws {
        self.file = file
        let plist: Any
        do {
            plist = try PropertyListInput.propertyList(from: data)
        } catch {
            throw KeyedArchiveError(file: file, reason: .notAPropertyList(String(describing: error)))
        }
        guard let root = plist as? [String: Any] else {
            throw KeyedArchiveError(file: file, reason: .notAKeyedArchive("the top level is not a dictionary"))
        }
        if let archiver = root["$archiver"] as? String, archiver != "NSKeyedArchiver" {
            throw KeyedArchiveError(file: file, reason: .notAKeyedArchive("$archiver is \"\(archiver)\""))
        }
        guard let rawObjects = root["$objects"] as? [Any] else {
            throw KeyedArchiveError(file: file, reason: .notAKeyedArchive("no $objects table"))
        }
        guard let rawTop = root["$top"] as? [String: Any] else {
            throw KeyedArchiveError(file: file, reason: .notAKeyedArchive("no $top dictionary"))
        }
        var table = rawObjects.map(Self.convert)
        // Replace each object's `$class` reference with its class chain.
        for index in table.indices {
            guard case .dictionary(var fields) = table[index], let classRef = fields.removeValue(forKey: "$class") else {
                continue
            }
            guard case .reference(let classIndex) = classRef, table.indices.contains(classIndex),
                  case .dictionary(let classRecord) = table[classIndex] else {
                throw KeyedArchiveError(file: file, reason: .malformedObject(index: index, "its $class is not a class record"))
            }
            var chain: [String] = []
            if case .array(let names) = classRecord["$classes"] ?? .null {
                chain = names.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
            if case .string(let name) = classRecord["$classname"] ?? .null, chain.first != name {
                chain.insert(name, at: 0)
            }
            table[index] = .object(classes: chain, fields: fields)
        }
        if let first = table.first, first == .string("$null") { table[0] = .null }
        self.objects = table
        self.top = rawTop.mapValues(Self.convert)
        try validateReferences()
    }

    /// Reads and decodes the archive at `url`.
    init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw KeyedArchiveError(file: url, reason: .unreadable(String(describing: error)))
        }
        try self.init(data: data, file: url)
    }

    /// The node for `$top[key]` (Apple archives use "root").
    func topNode(_ key: String = "root") throws -> Node {
        guard let value = top[key] else {
            throw KeyedArchiveError(file: file, reason: .notAKeyedArchive("$top has no \"\(key)\" key"))
        }
        return Node(archive: self, value: value).resolved
    }

    private func validateReferences() throws {
        func check(_ value: Value, in index: Int?) throws {
            switch value {
            case .reference(let target):
                guard objects.indices.contains(target) else {
                    throw KeyedArchiveError(file: file, reason: .badReference(target, count: objects.count))
                }
            case .array(let items):
                for item in items { try check(item, in: index) }
            case .dictionary(let fields), .object(_, let fields):
                for item in fields.values { try check(item, in: index) }
            default:
                break
            }
        }
        for (index, object) in objects.enumerated() { try check(object, in: index) }
        for value in top.values { try check(value, in: nil) }
    }

    /// Converts what `PropertyListSerialization` returns into a ``Value``.
    private static func convert(_ any: Any) -> Value {
        if let uid = uidValue(any) { return .reference(uid) }
        switch any {
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let array as [Any]: return .array(array.map(convert))
        case let dictionary as [String: Any]: return .dictionary(dictionary.mapValues(convert))
        default: break
        }
        if type(of: any) == Bool.self, let bool = any as? Bool { return .bool(bool) }
        if let number = any as? NSNumber {
            let type = String(cString: number.objCType)
            if type == "d" || type == "f" { return .real(number.doubleValue) }
            return .integer(number.int64Value)
        }
        return .null
    }

    /// The index a keyed-archiver UID holds, however this Foundation exposes it: corelibs decodes it
    /// to an `_NSKeyedArchiverUID` object with a `value` field; Apple's Foundation to a
    /// `CFKeyedArchiverUID` that prints `{value = N}`; XML archives to `{"CF$UID": N}`.
    private static func uidValue(_ any: Any) -> Int? {
        if let dictionary = any as? [String: Any], dictionary.count == 1, let number = dictionary["CF$UID"] as? NSNumber {
            return number.intValue
        }
        let typeName = String(describing: type(of: any))
        guard typeName.contains("KeyedArchiverUID") || typeName.contains("__NSCFType") else { return nil }
        for child in Mirror(reflecting: any).children where child.label == "value" {
            if let value = child.value as? UInt32 { return Int(value) }
            if let value = child.value as? Int { return value }
        }
        let text = String(describing: any)
        if text.contains("KeyedArchiverUID"), let range = text.range(of: "value = ") {
            return Int(text[range.upperBound...].prefix { $0.isNumber })
        }
        return nil
    }
}

extension KeyedArchive {
    /// A cursor on one value of an archive, following references as it goes.
    struct Node: Sendable {
        let archive: KeyedArchive
        let value: Value
        /// The object-table index this node was reached through, if any: the identity of a shared
        /// object (the same entity referenced from several relationships).
        let index: Int?

        init(archive: KeyedArchive, value: Value, index: Int? = nil) {
            self.archive = archive
            self.value = value
            self.index = index
        }

        /// This node with references followed until a non-reference value.
        var resolved: Node {
            var node = self
            var hops = 0
            while case .reference(let target) = node.value, hops <= archive.objects.count {
                node = Node(archive: archive, value: archive.objects[target], index: target)
                hops += 1
            }
            return node
        }

        /// Whether this is `$null` (or absent).
        var isNull: Bool { resolved.value == .null }

        /// The most derived class name of an archived object.
        var className: String? {
            if case .object(let classes, _) = resolved.value { return classes.first }
            return nil
        }

        /// The class chain of an archived object, most derived first.
        var classNames: [String] {
            if case .object(let classes, _) = resolved.value { return classes }
            return []
        }

        /// The coded field `key` of an archived object (or entry of a plain dictionary), resolved;
        /// `nil` when absent or `$null`.
        subscript(key: String) -> Node? {
            let node = resolved
            let fields: [String: Value]
            switch node.value {
            case .object(_, let objectFields): fields = objectFields
            case .dictionary(let plain): fields = plain
            default: return nil
            }
            guard let raw = fields[key] else { return nil }
            let child = Node(archive: archive, value: raw).resolved
            return child.value == .null ? nil : child
        }

        /// The coded field names of an archived object.
        var fieldNames: [String] {
            switch resolved.value {
            case .object(_, let fields), .dictionary(let fields): return fields.keys.sorted()
            default: return []
            }
        }

        /// A string: inline, or an archived `NSString`/`NSMutableString` (`NS.string`).
        var string: String? {
            let node = resolved
            switch node.value {
            case .string(let s): return s
            case .object:
                if let inner = node["NS.string"], case .string(let s) = inner.value { return s }
                if let bytes = node["NS.bytes"]?.data { return String(decoding: bytes, as: UTF8.self) }
                return nil
            default: return nil
            }
        }

        /// An integer (a Boolean counts as 0/1; a real only when integral).
        var integer: Int64? {
            switch resolved.value {
            case .integer(let i): return i
            case .bool(let b): return b ? 1 : 0
            case .real(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
            default: return nil
            }
        }

        /// A floating-point number (integers convert).
        var real: Double? {
            switch resolved.value {
            case .real(let d): return d
            case .integer(let i): return Double(i)
            default: return nil
            }
        }

        /// A Boolean (integers: non-zero is true).
        var bool: Bool? {
            switch resolved.value {
            case .bool(let b): return b
            case .integer(let i): return i != 0
            default: return nil
            }
        }

        /// Bytes: inline, or an archived `NSData`/`NSMutableData` (`NS.data`).
        var data: Data? {
            let node = resolved
            switch node.value {
            case .data(let d): return d
            case .object: return node["NS.data"]?.data
            default: return nil
            }
        }

        /// A date: inline, or an archived `NSDate` (`NS.time`, seconds since 2001).
        var date: Date? {
            let node = resolved
            switch node.value {
            case .date(let d): return d
            case .object: return node["NS.time"]?.real.map { Date(timeIntervalSinceReferenceDate: $0) }
            default: return nil
            }
        }

        /// The elements of an archived collection (`NSArray`, `NSSet`, `NSOrderedSet` and their
        /// mutable forms: `NS.objects`), or of an inline array.
        var elements: [Node]? {
            let node = resolved
            let raw: [Value]
            switch node.value {
            case .array(let items):
                raw = items
            case .object(_, let fields):
                guard case .array(let items) = fields["NS.objects"] ?? .null else {
                    return isCollectionClass ? [] : nil
                }
                raw = items
            default:
                return nil
            }
            return raw.map { Node(archive: archive, value: $0).resolved }
        }

        /// The entries of an archived dictionary (`NS.keys` / `NS.objects`), in archive order.
        /// Also reads Core Data's `NSKnownKeysDictionary1` (the runtime's shared-key dictionary:
        /// keys in `searchMapping.keys`, values in `values`, unused slots holding `emptyToken`).
        var entries: [(key: Node, value: Node)]? {
            let node = resolved
            guard case .object(_, let fields) = node.value else { return nil }
            if case .array(let keys) = fields["NS.keys"] ?? .null, case .array(let values) = fields["NS.objects"] ?? .null,
               keys.count == values.count {
                return zip(keys, values).map {
                    (Node(archive: archive, value: $0.0).resolved, Node(archive: archive, value: $0.1).resolved)
                }
            }
            if let keys = node["searchMapping"]?["keys"]?.elements, let values = node["values"]?.elements,
               keys.count == values.count {
                let empty = node["emptyToken"]?.string
                return zip(keys, values).filter { empty == nil || $0.1.string != empty }.map { ($0.0, $0.1) }
            }
            return nil
        }

        /// The entries of an archived dictionary whose keys are strings, in archive order.
        var stringKeyedEntries: [(key: String, value: Node)]? {
            entries?.compactMap { entry in entry.key.string.map { ($0, entry.value) } }
        }

        /// The node as a plain property-list value (strings, numbers, data, dates, arrays and
        /// dictionaries), for user info and default values; `nil` for objects of other classes.
        var propertyListValue: Any? {
            let node = resolved
            switch node.value {
            case .null, .reference: return nil
            case .string(let s): return s
            case .integer(let i): return Int(i)
            case .real(let d): return d
            case .bool(let b): return b
            case .data(let d): return d
            case .date(let d): return d
            case .array(let items): return items.compactMap { Node(archive: archive, value: $0).propertyListValue }
            case .dictionary(let fields): return fields.compactMapValues { Node(archive: archive, value: $0).propertyListValue }
            case .object:
                if let s = node.string { return s }
                if let d = node.date, node.classNames.contains("NSDate") { return d }
                if let d = node.data { return d }
                if let entries = node.stringKeyedEntries {
                    var out: [String: Any] = [:]
                    for (key, value) in entries { out[key] = value.propertyListValue }
                    return out
                }
                if let items = node.elements { return items.compactMap(\.propertyListValue) }
                return nil
            }
        }

        private var isCollectionClass: Bool {
            classNames.contains { ["NSArray", "NSSet", "NSOrderedSet"].contains($0) }
        }
    }
}

/// A keyed archive that cannot be read, with the file it came from.
struct KeyedArchiveError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong with the archive.
    enum Reason: Sendable, Equatable {
        case unreadable(String)
        case notAPropertyList(String)
        case notAKeyedArchive(String)
        case malformedObject(index: Int, String)
        case badReference(Int, count: Int)
    }

    /// The archive's file, if it came from one.
    let file: URL?
    let reason: Reason

    var description: String {
        let place = file.map { "\($0.path): " } ?? ""
        switch reason {
        case .unreadable(let detail): return "\(place)cannot read the file (\(detail))"
        case .notAPropertyList(let detail): return "\(place)not a property list (\(detail))"
        case .notAKeyedArchive(let detail): return "\(place)not an NSKeyedArchiver archive: \(detail)"
        case .malformedObject(let index, let detail): return "\(place)archived object \(index) is malformed: \(detail)"
        case .badReference(let target, let count):
            return "\(place)reference to object \(target) is out of range (the archive has \(count) objects)"
        }
    }
}
