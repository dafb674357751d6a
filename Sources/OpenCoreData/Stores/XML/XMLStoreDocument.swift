import Foundation

/// One element of an XML store file, as ``XMLStoreDocument/parse(_:)`` reads it.
struct XMLStoreElement {
    var name: String
    /// Attributes in document order.
    var attributes: [(name: String, value: String)] = []
    var children: [XMLStoreElement] = []
    /// The element's character data (entities resolved), children's text excluded.
    var text = ""
    /// The byte range of the element's content (between its start and end tags) in the file.
    var contentRange: Range<Int> = 0..<0
    /// The 1-based line of the start tag, for error messages.
    var line = 1

    subscript(attribute name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    func child(_ name: String) -> XMLStoreElement? {
        children.first { $0.name == name }
    }
}

/// A syntax error in an XML store file, with the line it was found on.
struct XMLStoreSyntaxError: Error, CustomStringConvertible {
    var message: String
    var line: Int
    var description: String { "line \(line): \(message)" }
}

/// The small XML reader and writer the XML store uses: elements, attributes, character data,
/// the five predefined entities and character references, comments, CDATA, processing
/// instructions and a DOCTYPE (skipped). It never traps on bad input: every malformation is an
/// ``XMLStoreSyntaxError``. (Foundation's `XMLParser` would need libxml2 on Linux.)
///
/// Elements nest at most ``maximumDepth`` deep (a store file nests four: `database`, `object`,
/// `attribute`/`relationship`); deeper nesting is a syntax error, so a hostile file can't
/// exhaust the stack of the recursive reader. The limit is libxml2's default, which Apple's XML
/// store parses with.
enum XMLStoreDocument {
    /// How deep elements may nest (the root element is depth 1).
    static let maximumDepth = 256

    /// Parses `data` and returns its root element.
    static func parse(_ data: Data) throws -> XMLStoreElement {
        try [UInt8](data).withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            return try parser.document()
        }
    }

    /// `text` with `&`, `<`, `>` (and `"` when `quotes`) escaped, and control characters other
    /// than tab, newline and carriage return written as character references.
    static func escape(_ text: String, quotes: Bool = false) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            case "\r": result += "&#13;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 { result += "&#\(scalar.value);" } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        var line = 1

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        }

        func error(_ message: String) -> XMLStoreSyntaxError { XMLStoreSyntaxError(message: message, line: line) }

        var atEnd: Bool { position >= bytes.count }

        func peek(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            let start = literal.utf8Start
            for offset in 0..<count where bytes[position + offset] != start[offset] { return false }
            return true
        }

        func byte(at offset: Int) -> UInt8 {
            position + offset < bytes.count ? bytes[position + offset] : 0
        }

        mutating func advance() {
            if bytes[position] == UInt8(ascii: "\n") { line += 1 }
            position += 1
        }

        mutating func skip(until literal: StaticString) throws {
            while !peek(literal) {
                if atEnd { throw error("unterminated markup, expected '\(literal)' (the file ends early)") }
                advance()
            }
            for _ in 0..<literal.utf8CodeUnitCount { advance() }
        }

        mutating func skipWhitespace() {
            while !atEnd {
                let byte = bytes[position]
                guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return }
                advance()
            }
        }

        /// Skips the prolog: XML declaration, comments, processing instructions, DOCTYPE.
        mutating func skipMisc() throws {
            while true {
                skipWhitespace()
                if peek("<?") { try skip(until: "?>") } else if peek("<!--") { try skip(until: "-->") } else if peek("<!DOCTYPE") {
                    var depth = 0
                    while true {
                        if atEnd { throw error("unterminated DOCTYPE") }
                        let byte = bytes[position]
                        advance()
                        if byte == UInt8(ascii: "[") { depth += 1 } else if byte == UInt8(ascii: "]") { depth -= 1 } else if byte == UInt8(ascii: ">"), depth <= 0 { break }
                    }
                } else { return }
            }
        }

        mutating func document() throws -> XMLStoreElement {
            try skipMisc()
            guard peek("<") else { throw error(atEnd ? "the file holds no element" : "expected an element") }
            let root = try element(depth: 1)
            try skipMisc()
            guard atEnd else { throw error("content after the root element") }
            return root
        }

        mutating func name() throws -> String {
            let start = position
            while !atEnd {
                let byte = bytes[position]
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">")
                    || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "<") { break }
                advance()
            }
            guard position > start else { throw error(atEnd ? "the file ends inside a tag" : "expected a name") }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        mutating func element(depth: Int) throws -> XMLStoreElement {
            let startLine = line
            guard depth <= XMLStoreDocument.maximumDepth else {
                throw error("elements nest deeper than \(XMLStoreDocument.maximumDepth) levels")
            }
            advance() // <
            var result = XMLStoreElement(name: try name(), line: startLine)
            while true {
                skipWhitespace()
                if atEnd { throw error("the file ends inside the tag <\(result.name)>") }
                if byte(at: 0) == UInt8(ascii: "/"), byte(at: 1) == UInt8(ascii: ">") {
                    position += 2
                    result.contentRange = position..<position
                    return result
                }
                if byte(at: 0) == UInt8(ascii: ">") {
                    position += 1
                    break
                }
                let attributeName = try name()
                skipWhitespace()
                guard peek("=") else { throw error("expected '=' after attribute \(attributeName) of <\(result.name)>") }
                position += 1
                skipWhitespace()
                guard !atEnd, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                    throw error("expected a quoted value for attribute \(attributeName) of <\(result.name)>")
                }
                let quote = bytes[position]
                advance()
                let start = position
                while !atEnd, bytes[position] != quote { advance() }
                if atEnd { throw error("the file ends inside attribute \(attributeName) of <\(result.name)>") }
                let raw = String(decoding: bytes[start..<position], as: UTF8.self)
                advance()
                result.attributes.append((attributeName, try resolveEntities(raw)))
            }
            let contentStart = position
            var text = ""
            while true {
                if atEnd { throw error("the file ends inside <\(result.name)> opened on line \(startLine) (truncated?)") }
                let current = bytes[position]
                if current != UInt8(ascii: "<") {
                    let start = position
                    while !atEnd, bytes[position] != UInt8(ascii: "<") { advance() }
                    text += try resolveEntities(String(decoding: bytes[start..<position], as: UTF8.self))
                } else if byte(at: 1) == UInt8(ascii: "/") {
                    let contentEnd = position
                    position += 2
                    let closing = try name()
                    guard closing == result.name else {
                        throw error("</\(closing)> closes <\(result.name)> opened on line \(startLine)")
                    }
                    skipWhitespace()
                    guard peek(">") else { throw error("expected '>' after </\(closing)") }
                    position += 1
                    result.text = text
                    result.contentRange = contentStart..<contentEnd
                    return result
                } else if peek("<!--") {
                    try skip(until: "-->")
                } else if peek("<![CDATA[") {
                    position += 9
                    let start = position
                    try skip(until: "]]>")
                    text += String(decoding: bytes[start..<position - 3], as: UTF8.self)
                } else if peek("<?") {
                    try skip(until: "?>")
                } else {
                    result.children.append(try element(depth: depth + 1))
                }
            }
        }

        func resolveEntities(_ raw: String) throws -> String {
            guard raw.contains("&") else { return raw }
            var result = ""
            var rest = raw[...]
            while let ampersand = rest.firstIndex(of: "&") {
                result += rest[..<ampersand]
                guard let semicolon = rest[ampersand...].firstIndex(of: ";") else { throw error("unterminated entity reference") }
                let entity = rest[rest.index(after: ampersand)..<semicolon]
                switch entity {
                case "lt": result += "<"
                case "gt": result += ">"
                case "amp": result += "&"
                case "quot": result += "\""
                case "apos": result += "'"
                default:
                    let value: UInt32?
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                        value = UInt32(entity.dropFirst(2), radix: 16)
                    } else if entity.hasPrefix("#") {
                        value = UInt32(entity.dropFirst())
                    } else {
                        value = nil
                    }
                    guard let value, let scalar = Unicode.Scalar(value) else { throw error("unknown entity &\(entity);") }
                    result.unicodeScalars.append(scalar)
                }
                rest = rest[rest.index(after: semicolon)...]
            }
            return result + rest
        }
    }
}
