import OpenCoreData

/// A JSON text that is not a valid value for the `predicate` commands.
struct JSONValueError: Error, CustomStringConvertible, Equatable {
    /// What the JSON was for, e.g. `--object` or `line 3`.
    let source: String
    /// Where in the value the problem is, e.g. `$.items[2]`.
    let path: String
    /// What was wrong.
    let message: String

    var description: String { "invalid JSON in \(source) at \(path): \(message)" }
}

/// Decodes the CLI's JSON value encoding into the values predicates evaluate.
///
/// - JSON `null` is `nil` (inside an array, `NSNull`; inside an object, the key is left out, so
///   reading it gives `nil` as for any missing dictionary key);
/// - `{"$null": true}` is `NSNull`;
/// - `{"$date": "<ISO 8601>"}` is a `Date`;
/// - `{"$set": […]}` is a `Set<AnyHashable>`;
/// - integers are `Int` (`UInt64` past `Int.max`), other numbers `Double`, booleans `Bool`,
///   strings `String`, arrays `[Any]` and objects `[String: Any]` (KVC dictionaries).
enum JSONValueCodec {
    /// Parses `text` and decodes it; `source` names the input in errors.
    static func decode(_ text: String, source: String) throws -> Any? {
        try decode(raw: parse(text, source: source), source: source, path: "$")
    }

    /// Decodes a JSON array of format arguments, for `argumentArray`.
    static func decodeArguments(_ text: String, source: String) throws -> [Any?] {
        try arguments(fromRaw: parse(text, source: source), source: source)
    }

    /// Decodes a JSON object of substitution variables; a `null` binding is `NSNull`.
    static func decodeVariables(_ text: String, source: String) throws -> [String: Any] {
        try variables(fromRaw: parse(text, source: source), source: source)
    }

    static func arguments(fromRaw raw: Any, source: String) throws -> [Any?] {
        guard let array = raw as? [Any] else {
            throw JSONValueError(source: source, path: "$", message: "expected an array of arguments")
        }
        return try array.enumerated().map { index, element in
            try decode(raw: element, source: source, path: "$[\(index)]")
        }
    }

    static func variables(fromRaw raw: Any, source: String) throws -> [String: Any] {
        guard let object = raw as? [String: Any] else {
            throw JSONValueError(source: source, path: "$", message: "expected an object of variables")
        }
        var variables: [String: Any] = [:]
        for (name, element) in object {
            variables[name] = try decode(raw: element, source: source, path: "$.\(name)") ?? NSNull()
        }
        return variables
    }

    static func parse(_ text: String, source: String) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            throw JSONValueError(source: source, path: "$", message: "not valid JSON (\(text))")
        }
    }

    /// Decodes one value produced by `JSONSerialization`.
    static func decode(raw: Any, source: String, path: String) throws -> Any? {
        switch raw {
        case is NSNull:
            return nil
        case let string as String:
            return string
        case let number as NSNumber:
            return decode(number: number)
        case let array as [Any]:
            return try array.enumerated().map { index, element -> Any in
                try decode(raw: element, source: source, path: "\(path)[\(index)]") ?? NSNull()
            }
        case let object as [String: Any]:
            return try decode(object: object, source: source, path: path)
        default:
            throw JSONValueError(source: source, path: path, message: "unsupported JSON value \(raw)")
        }
    }

    private static func decode(number: NSNumber) -> Any {
        switch String(cString: number.objCType) {
        case "c", "B": return number.boolValue
        case "d", "f": return number.doubleValue
        case "Q":
            let value = number.uint64Value
            return value <= UInt64(Int.max) ? Int(value) : value
        default: return number.intValue
        }
    }

    private static func decode(object: [String: Any], source: String, path: String) throws -> Any? {
        if object.count == 1, let (key, value) = object.first {
            switch key {
            case "$null":
                return NSNull()
            case "$date":
                guard let text = value as? String, let date = parseDate(text) else {
                    throw JSONValueError(source: source, path: path, message: "$date needs an ISO 8601 string, not \(value)")
                }
                return date
            case "$set":
                guard let elements = value as? [Any] else {
                    throw JSONValueError(source: source, path: path, message: "$set needs an array, not \(value)")
                }
                var set = Set<AnyHashable>()
                for (index, element) in elements.enumerated() {
                    let decoded = try decode(raw: element, source: source, path: "\(path).$set[\(index)]") ?? NSNull()
                    guard let hashable = decoded as? AnyHashable else {
                        throw JSONValueError(source: source, path: "\(path).$set[\(index)]",
                                             message: "a set element must be a string, number, Boolean, date or null")
                    }
                    set.insert(hashable)
                }
                return set
            default:
                break
            }
        }
        var dictionary: [String: Any] = [:]
        for (key, element) in object {
            if let decoded = try decode(raw: element, source: source, path: "\(path).\(key)") {
                dictionary[key] = decoded
            }
        }
        return dictionary
    }

    /// Parses an ISO 8601 date, with or without fractional seconds, or a plain `YYYY-MM-DD` day (UTC).
    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime],
            [.withInternetDateTime, .withFractionalSeconds],
            [.withFullDate],
        ] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
