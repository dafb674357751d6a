import Foundation

extension KeyedArchive {
    /// How deeply archived collections may nest before unarchiving stops with an error (also
    /// what stops a collection that contains itself).
    static let maximumValueDepth = 256

    /// The root object of the keyed archive `data` as a bridged Swift value (what Apple's
    /// `NSKeyedUnarchiver` returns, bridged): `String`, `Int`/`Double`/`Bool`, `Date`, `Data`,
    /// `URL`, `UUID`, `[Any]`, `[String: Any]` (`[AnyHashable: Any]` for other keys),
    /// `Set<AnyHashable>`, `NSOrderedSet`, `NSNull`. With `allowedClassNames`, every object must be
    /// of one of those classes or a subclass (inline strings count as `NSString`, numbers as
    /// `NSNumber`, bytes as `NSData`), as secure coding requires. Throws
    /// ``TransformableValueError`` saying what is wrong.
    static func bridgedValue(of data: Data, allowedClassNames: Set<String>?) throws -> Any {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data)
        } catch let error as KeyedArchiveError {
            throw TransformableValueError("the data is not a keyed archive (\(error))")
        }
        let root = try archive.topNode()
        if root.isNull { throw TransformableValueError("the archive's root object is nil") }
        // Objects shared by reference are unarchived at every place they appear, so a small
        // archive could stand for 2^256 values: a budget of visits bounds the work.
        var budget = max(1 << 20, data.count * 16)
        return try root.bridgedValue(allowedClassNames: allowedClassNames, depth: 0, budget: &budget)
    }
}

extension KeyedArchive.Node {
    /// This node as a bridged Swift value (see ``KeyedArchive/bridgedValue(of:allowedClassNames:)``).
    /// `budget` counts down the objects still allowed to be visited.
    func bridgedValue(allowedClassNames: Set<String>?, depth: Int, budget: inout Int) throws -> Any {
        budget -= 1
        guard budget >= 0 else {
            throw TransformableValueError("the archive stands for too many objects once its shared objects are expanded")
        }
        guard depth < KeyedArchive.maximumValueDepth else {
            throw TransformableValueError("the archive nests deeper than \(KeyedArchive.maximumValueDepth) levels (or contains itself)")
        }
        let node = resolved
        func check(_ classes: [String]) throws {
            guard let allowed = allowedClassNames else { return }
            guard classes.contains(where: allowed.contains) else {
                throw TransformableValueError(
                    "the archive holds an object of class \(classes.first ?? "?"), which is not among the allowed classes (\(allowed.sorted().joined(separator: ", ")))")
            }
        }
        func child(_ item: KeyedArchive.Node) throws -> Any {
            try item.bridgedValue(allowedClassNames: allowedClassNames, depth: depth + 1, budget: &budget)
        }
        switch node.value {
        case .null: return NSNull()
        case .reference: throw TransformableValueError("the archive holds a dangling reference")
        case .string(let string): try check(["NSString"]); return string
        case .integer(let int): try check(["NSNumber"]); return Int(int)
        case .real(let double): try check(["NSNumber"]); return double
        case .bool(let bool): try check(["NSNumber"]); return bool
        case .data(let data): try check(["NSData"]); return data
        case .date(let date): try check(["NSDate"]); return date
        case .array, .dictionary:
            throw TransformableValueError("the archive holds a bare property-list collection, not an archived object")
        case .object(let classes, _):
            try check(classes)
            let known = Set(classes)
            if known.contains("NSNull") { return NSNull() }
            if known.contains("NSString"), let string = node.string { return string }
            if known.contains("NSDate"), let date = node.date { return date }
            if known.contains("NSData"), let data = node.data { return data }
            if known.contains("NSUUID"), let bytes = node["NS.uuidbytes"]?.data, bytes.count == 16 {
                return bytes.withUnsafeBytes { raw in
                    UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
                }
            }
            if known.contains("NSURL") {
                guard let relative = node["NS.relative"]?.string else {
                    throw TransformableValueError("an archived NSURL has no NS.relative string")
                }
                let base = try node["NS.base"].map { base -> URL in
                    guard let url = try child(base) as? URL else { throw TransformableValueError("an archived NSURL's NS.base is not a URL") }
                    return url
                }
                guard let url = URL(string: relative, relativeTo: base) else {
                    throw TransformableValueError("an archived NSURL holds '\(relative.prefix(80))', which is not a URL")
                }
                return url
            }
            if known.contains("NSDictionary") {
                guard let entries = node.entries else {
                    throw TransformableValueError("an archived \(classes.first ?? "NSDictionary") has no matching NS.keys and NS.objects")
                }
                var values: [AnyHashable: Any] = [:]
                for (key, value) in entries {
                    guard let hashable = try child(key) as? AnyHashable else {
                        throw TransformableValueError("an archived dictionary has a key that is not hashable")
                    }
                    values[hashable] = try child(value)
                }
                var byString: [String: Any] = [:]
                for (key, value) in values {
                    guard let string = key.base as? String else { return values }
                    byString[string] = value
                }
                return byString
            }
            if known.contains("NSArray") || known.contains("NSSet") || known.contains("NSOrderedSet"),
               let elements = node.elements {
                var items: [Any] = []
                for element in elements { items.append(try child(element)) }
                if known.contains("NSArray") { return items }
                if known.contains("NSOrderedSet") { return NSOrderedSet(array: items) }
                var set = Set<AnyHashable>()
                for item in items {
                    guard let hashable = item as? AnyHashable else {
                        throw TransformableValueError("an archived set holds an element that is not hashable")
                    }
                    set.insert(hashable)
                }
                return set
            }
            throw TransformableValueError("the archive holds an object of class \(classes.first ?? "?"), which can't be unarchived on this platform")
        }
    }
}
