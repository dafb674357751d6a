import Foundation
import Testing
@testable import OpenCoreData

/// The shared file plumbing of the file stores: atomic writes, reading errors, fingerprints.
@Suite struct XMLStoreAtomicFileTests {
    @Test func writesAtomicallyAndChangesTheFingerprint() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.bin")
        #expect(AtomicFile.fingerprint(of: url) == nil)
        #expect(try AtomicFile.read(url, storeType: "Test") == nil, "no file: a new store")
        let first = try AtomicFile.write(Data("one".utf8), to: url)
        let second = try AtomicFile.write(Data("two".utf8), to: url)
        #expect(first != second, "every write replaces the file")
        #expect(AtomicFile.fingerprint(of: url) == second)
        let read = try #require(try AtomicFile.read(url, storeType: "Test"))
        #expect(read.data == Data("two".utf8))
        #expect(read.fingerprint == second)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["store.bin"], "no temporary file stays behind")
    }

    @Test func emptyFilesAndDirectoriesAreErrorsNamingTheFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.xml")
        try Data().write(to: empty)
        let error = try #require(throws: NSError.self) { try AtomicFile.read(empty, storeType: NSXMLStoreType) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == empty.path)
        let folder = try #require(throws: NSError.self) { try AtomicFile.read(directory, storeType: NSXMLStoreType) }
        #expect(folder.userInfo[NSFilePathErrorKey] as? String == directory.path)
    }

    @Test func writeIntoAMissingDirectoryFailsNamingTheFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/store.xml")
        let error = try #require(throws: NSError.self) { try AtomicFile.write(Data("x".utf8), to: url) }
        #expect(error.code == NSFileWriteUnknownError)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
    }

    @Test func sniffsStoreTypes() {
        #expect(AtomicFile.sniffStoreType(Data("SQLite format 3\0rest".utf8)) == NSSQLiteStoreType)
        #expect(AtomicFile.sniffStoreType(Data(AtomicFile.binaryMagic + [1, 2])) == NSBinaryStoreType)
        #expect(AtomicFile.sniffStoreType(Data("<?xml version=\"1.0\"?>\n<database>".utf8)) == NSXMLStoreType)
        #expect(AtomicFile.sniffStoreType(Data("<?xml version=\"1.0\"?>\n<plist>".utf8)) == nil)
        #expect(AtomicFile.sniffStoreType(Data("hello".utf8)) == nil)
    }
}
