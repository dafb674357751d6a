import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Why ``XMLDocumentInput`` refused some data.
struct XMLDocumentInputError: Error, CustomStringConvertible {
    let description: String
}

/// The one way XML from outside becomes an `XMLDocument`.
///
/// swift-corelibs-foundation's `XMLDocument(data:options:)` dereferences a NULL pointer when
/// libxml2 builds no document: empty data, data whose first character is NUL (in the encoding
/// libxml2 detects), and an unsupported `encoding` in the declaration, where libxml2 stops before
/// starting a document (found by trying each such input). So the first character is checked and
/// `XMLParser` (libxml2's push parser) must read the data without an error before `XMLDocument`
/// is built; a document without a root element is refused too.
enum XMLDocumentInput {
    /// The document in `data`, or an error saying why it is not one.
    static func document(from data: Data) throws(XMLDocumentInputError) -> XMLDocument {
        guard startsWithContent(data) else {
            throw XMLDocumentInputError(description: data.isEmpty ? "not an XML document (the file is empty)"
                                                                  : "not an XML document (it starts with a NUL character)")
        }
        let checker = XMLParser(data: data)
        guard checker.parse(), checker.parserError == nil else {
            let code = (checker.parserError as NSError?)?.code ?? 0
            throw XMLDocumentInputError(description:
                "not an XML document: it is not well-formed XML (parser error \(code) at line \(checker.lineNumber), column \(checker.columnNumber))")
        }
        let document: XMLDocument
        do {
            document = try XMLDocument(data: data, options: [])
        } catch {
            throw XMLDocumentInputError(description: "not an XML document: \(error.localizedDescription)")
        }
        guard document.rootElement() != nil else {
            throw XMLDocumentInputError(description: "not an XML document (it has no root element)")
        }
        return document
    }

    /// Whether the first character of `data` is not NUL, reading it in the encoding libxml2
    /// detects from the first bytes (a byte-order mark, or `<` / `<?` in UTF-16 or UTF-32);
    /// libxml2 builds no document when it is NUL or missing.
    private static func startsWithContent(_ data: Data) -> Bool {
        let bytes = Array(data.prefix(4))
        let (skip, width): (Int, Int)
        switch bytes {
        case _ where bytes.starts(with: [0xFF, 0xFE, 0, 0]) || bytes.starts(with: [0, 0, 0xFE, 0xFF]): (skip, width) = (4, 4)
        case _ where bytes.starts(with: [0xEF, 0xBB, 0xBF]): (skip, width) = (3, 1)
        case _ where bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]): (skip, width) = (2, 2)
        case [0, 0, 0, 0x3C], [0x3C, 0, 0, 0]: (skip, width) = (0, 4)
        case [0, 0x3C, 0, 0x3F], [0x3C, 0, 0x3F, 0]: (skip, width) = (0, 2)
        default: (skip, width) = (0, 1)
        }
        let unit = data.dropFirst(skip).prefix(width)
        return unit.count == width && unit.contains { $0 != 0 }
    }
}
