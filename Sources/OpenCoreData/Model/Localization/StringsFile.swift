/// Reads `.strings` files: the old-style property list Apple uses for localized strings, with
/// or without the surrounding braces (`"key" = "value";`), with comments, in UTF-8 or UTF-16.
/// XML and binary property lists holding a string dictionary are accepted too.
struct StringsFile {
    /// Why a strings file could not be read; `offset` counts characters.
    struct ParseError: Error, CustomStringConvertible {
        var offset: Int
        var message: String
        var description: String { "\(message) at character \(offset)" }
    }

    /// Parses the file's bytes into its key-value pairs.
    static func parse(_ data: Data) throws -> [String: String] {
        if data.starts(with: Array("bplist".utf8)) || data.starts(with: Array("<?xml".utf8)) {
            let plist = try PropertyListInput.propertyList(from: data)
            guard let dictionary = plist as? [String: Any] else { throw ParseError(offset: 0, message: "not a dictionary") }
            return dictionary.compactMapValues { $0 as? String }
        }
        var parser = Parser(characters: Array(try decode(data)))
        return try parser.parseFile()
    }

    private static func decode(_ data: Data) throws -> String {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            guard let text = String(data: data, encoding: .utf16) else { throw ParseError(offset: 0, message: "bad UTF-16") }
            return text
        }
        if bytes.count >= 2, bytes[0] != 0, bytes[1] == 0, let text = String(data: data, encoding: .utf16LittleEndian) {
            return text
        }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(bytes.dropFirst(3)) : data
        guard let text = String(data: body, encoding: .utf8) else { throw ParseError(offset: 0, message: "not UTF-8 or UTF-16 text") }
        return text
    }

    private struct Parser {
        var characters: [Character]
        var index = 0

        mutating func parseFile() throws -> [String: String] {
            skipTrivia()
            let braced = peek == "{"
            if braced { index += 1 }
            var result: [String: String] = [:]
            while true {
                skipTrivia()
                guard let next = peek else { break }
                if braced, next == "}" {
                    index += 1
                    break
                }
                let key = try parseString()
                skipTrivia()
                if peek == ";" {
                    index += 1
                    result[key] = key
                    continue
                }
                try expect("=")
                skipTrivia()
                result[key] = try parseString()
                skipTrivia()
                try expect(";")
            }
            skipTrivia()
            if peek != nil { throw ParseError(offset: index, message: "unexpected text after the strings") }
            return result
        }

        var peek: Character? { index < characters.count ? characters[index] : nil }

        mutating func expect(_ character: Character) throws {
            guard peek == character else { throw ParseError(offset: index, message: "expected '\(character)'") }
            index += 1
        }

        mutating func skipTrivia() {
            while let character = peek {
                if character.isWhitespace {
                    index += 1
                } else if character == "/", index + 1 < characters.count, characters[index + 1] == "*" {
                    index += 2
                    while index < characters.count, !(characters[index] == "*" && index + 1 < characters.count && characters[index + 1] == "/") {
                        index += 1
                    }
                    index = min(index + 2, characters.count)
                } else if character == "/", index + 1 < characters.count, characters[index + 1] == "/" {
                    while let c = peek, !c.isNewline { index += 1 }
                } else {
                    return
                }
            }
        }

        mutating func parseString() throws -> String {
            guard let first = peek else { throw ParseError(offset: index, message: "expected a string") }
            if first != "\"" {
                var word = ""
                while let c = peek, c.isLetter || c.isNumber || "_$+/:.-".contains(c) {
                    word.append(c)
                    index += 1
                }
                if word.isEmpty { throw ParseError(offset: index, message: "expected a string") }
                return word
            }
            index += 1
            var text = ""
            while let c = peek {
                index += 1
                switch c {
                case "\"":
                    return text
                case "\\":
                    guard let escaped = peek else { break }
                    index += 1
                    switch escaped {
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    case "r": text.append("\r")
                    case "U", "u":
                        var hex = ""
                        while hex.count < 4, let h = peek, h.isHexDigit {
                            hex.append(h)
                            index += 1
                        }
                        if let scalar = UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) { text.unicodeScalars.append(scalar) }
                    default: text.append(escaped)
                    }
                default:
                    text.append(c)
                }
            }
            throw ParseError(offset: index, message: "unterminated string")
        }
    }
}
