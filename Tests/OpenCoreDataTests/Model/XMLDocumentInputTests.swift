import Foundation
import Testing
@testable import OpenCoreData

/// Data on which FoundationXML's `XMLDocument(data:)` would dereference a NULL document (libxml2
/// builds none) is refused by ``XMLDocumentInput`` with a clear error, in the model reader too.
@Suite struct XMLDocumentInputTests {
    /// Inputs with no document in them, as bytes.
    static let notDocuments: [(String, [UInt8])] = [
        ("empty", []), ("one NUL", [0]), ("four NULs", [0, 0, 0, 0]), ("a NUL then an element", [0] + Array("<model/>".utf8)),
        ("spaces", Array("  \n\t ".utf8)), ("UTF-8 BOM", [0xEF, 0xBB, 0xBF]), ("UTF-8 BOM and NUL", [0xEF, 0xBB, 0xBF, 0]),
        ("UTF-16 BOMs", [0xFF, 0xFE]), ("UTF-16BE BOM", [0xFE, 0xFF]), ("UTF-32 BOM", [0xFF, 0xFE, 0, 0]),
        ("UTF-16 BOM and NULs", [0xFF, 0xFE, 0, 0, 0, 0]), ("text", Array("abc".utf8)),
        ("declaration only", Array("<?xml version=\"1.0\"?>".utf8)), ("comment only", Array("<!-- c -->".utf8)),
        ("processing instruction only", Array("<?pi x?>\n".utf8)), ("doctype only", Array("<!DOCTYPE model>".utf8)),
        ("unsupported encoding", Array("<?xml version=\"1.0\" encoding=\"bogus-8\"?><model/>".utf8)),
        ("UTF-16BE NUL", [0, 0, 0, 0x3C]), ("UTF-16 without BOM, NUL after", [0x3C, 0, 0x3F, 0, 0, 0]),
        ("UTF-16 declaration, no element", [0xFF, 0xFE] + Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
    ]

    @Test(arguments: notDocuments.map(\.0))
    func refusedWithAClearError(name: String) throws {
        let bytes = try #require(Self.notDocuments.first { $0.0 == name }?.1)
        #expect(throws: XMLDocumentInputError.self) { try XMLDocumentInput.document(from: Data(bytes)) }
        let file = URL(fileURLWithPath: "/models/M.xcdatamodel/contents")
        do {
            _ = try XcodeModelContentsReader(file: file).read(Data(bytes))
            Issue.record("\(name): read as a model")
        } catch let error as ManagedObjectModelError {
            #expect(error.kind == .malformedXML)
            #expect(error.message.contains("not an XML document"), "\(error)")
            #expect(error.description.contains("M.xcdatamodel/contents"))
        }
    }

    @Test func documentsAreStillRead() throws {
        let utf16: [UInt8] = [0xFF, 0xFE] + Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?><model/>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let inputs: [[UInt8]] = [Array("<model/>".utf8), [0xEF, 0xBB, 0xBF] + Array("\n <model a=\"1\"><entity/></model>".utf8), utf16]
        for bytes in inputs {
            let document = try XMLDocumentInput.document(from: Data(bytes))
            #expect(document.rootElement()?.name == "model")
        }
    }
}
