import Foundation
import Testing
@testable import OpenCoreData

/// The binary store: exact round trips of every value and relationship kind, the file format's
/// header and checksum, Core Data's errors for bad files, read-only, and two coordinators.
@Suite struct BinaryStoreTests {
    /// Saves a graph with every attribute type and relationship kind; returns the saved rows.
    @discardableResult
    static func saveGraph(_ fixture: EveryKindFixture) throws -> [ObjectSnapshot] {
        let boxes = try fixture.newIDs("Box", 2), tags = try fixture.newIDs("Tag", 3)
        let items = try fixture.newIDs("Item", 3) + fixture.newIDs("SpecialItem", 1)
        var rows: [ObjectSnapshot] = []
        rows.append(ObjectSnapshot(objectID: boxes[0], values: ["label": "full"], toMany: ["items": [items[0], items[1], items[3]]]))
        rows.append(ObjectSnapshot(objectID: boxes[1], values: [:], toMany: ["items": []]))
        for (index, tag) in tags.enumerated() {
            rows.append(ObjectSnapshot(objectID: tag, values: ["name": "t\(index)"], toMany: ["items": index == 2 ? [] : [items[0], items[3]]]))
        }
        for (index, id) in items.enumerated() {
            var values = EveryKindModel.hardValues(index: index)
            if index != 2 { values["owner"] = boxes[0] }
            values["next"] = items[(index + 1) % items.count]
            values["ref"] = boxes[1]
            if index == 3 { values["grade"] = Int16(-7) }
            if index == 1 { values = ["str": "only a string", "owner": boxes[0]] }
            let parts = index == 0 ? [items[3], items[1], items[2]] : []
            let itemTags = index == 0 || index == 3 ? [tags[0], tags[1]] : []
            rows.append(ObjectSnapshot(objectID: id, values: values, toMany: ["parts": parts, "tags": itemTags]))
        }
        try fixture.coordinator.save(StoreSaveChanges(inserted: rows))
        return rows
    }

    static func expectSameValues(_ a: [String: Any], _ b: [String: Any], _ context: String) {
        #expect(Set(a.keys) == Set(b.keys), "\(context): keys")
        for (key, value) in a {
            #expect(ModelValues.isEqual(value, b[key]), "\(context).\(key): \(value) vs \(String(describing: b[key]))")
        }
    }

    @Test func everyValueAndRelationshipKindRoundTripsExactly() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Every.binary")
        let saved = try Self.saveGraph(EveryKindFixture(storeType: NSBinaryStoreType, url: url))

        let reopened = try EveryKindFixture(storeType: NSBinaryStoreType, url: url)
        var loaded: [String: ObjectSnapshot] = [:]
        for name in ["Box", "Tag", "Item", "SpecialItem"] {
            for row in try reopened.all(name) { loaded[row.objectID.uriRepresentation().absoluteString] = row }
        }
        #expect(loaded.count == saved.count)
        for row in saved {
            let uri = row.objectID.uriRepresentation().absoluteString
            let again = try #require(loaded[uri], "\(uri) is loaded")
            #expect(again.version == 1)
            #expect(again.objectID.entity.name == row.objectID.entity.name)
            Self.expectSameValues(row.values, again.values, uri)
            for (name, ids) in row.toMany {
                let relationship = row.objectID.entity.relationshipsByName[name]!
                let urisBefore = ids.map { $0.uriRepresentation().absoluteString }
                let urisAfter = (again.toMany[name] ?? []).map { $0.uriRepresentation().absoluteString }
                if relationship.isOrdered {
                    #expect(urisBefore == urisAfter, "\(uri).\(name) keeps its order")
                } else {
                    #expect(Set(urisBefore) == Set(urisAfter), "\(uri).\(name)")
                }
            }
        }
        let first = try #require(loaded[saved.first { $0.objectID.entity.name == "Item" }!.objectID.uriRepresentation().absoluteString])
        #expect((first.values["when"] as? Date)?.timeIntervalSinceReferenceDate == 445_103_622.123_456_7, "dates keep every bit")
        #expect(first.values["dec"] as? Decimal == Decimal(string: "12345678901234567890.1234567890"), "Decimal without loss")
        #expect(first.values["i64"] as? Int64 == Int64.min + 1)
        #expect(first.values["scratch"] == nil, "transient attributes are not stored")
        #expect(try reopened.coordinator.permanentObjectIDs(for: [(reopened.entity("SpecialItem"), nil)])[0].primaryKey == 5,
                "the key counter of the Item tree survives reopening")
    }

    @Test func fileStartsWithMagicAndVersionAndEndsWithItsChecksum() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Header.binary")
        try Self.saveGraph(EveryKindFixture(storeType: NSBinaryStoreType, url: url))
        let data = try Data(contentsOf: url)
        #expect(Array(data.prefix(8)) == AtomicFile.binaryMagic)
        #expect(Array(data[8..<12]) == [1, 0, 0, 0])
        let checksum = data.suffix(4).withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        #expect(data.dropLast(4).withUnsafeBytes { CRC32.checksum($0) } == checksum)
        #expect(AtomicFile.sniffStoreType(data) == NSBinaryStoreType)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: url)
        #expect(metadata[NSStoreTypeKey] as? String == NSBinaryStoreType)
        #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.count == 4)
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0) } == 0)
    }

    /// The error adding a store at `url` throws.
    static func openError(_ url: URL, type: String = NSBinaryStoreType) throws -> NSError {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: EveryKindModel.make())
        return try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        }
    }

    @Test func badFilesThrowCoreDataErrorsNamingTheFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Good.binary")
        try Self.saveGraph(EveryKindFixture(storeType: NSBinaryStoreType, url: url))
        let good = try Data(contentsOf: url)
        let bad = directory.appendingPathComponent("Bad.binary")

        func expectError(_ data: Data, _ code: Int, _ what: String) throws {
            try data.write(to: bad)
            let error = try Self.openError(bad)
            #expect(error.domain == NSCocoaErrorDomain, "\(what)")
            #expect(error.code == code, "\(what): \(error)")
            #expect(error.userInfo[NSFilePathErrorKey] as? String == bad.path, "\(what) names the file")
        }
        // Truncated anywhere: header, metadata, tables, objects, checksum.
        for length in [0, 3, 8, 15, 20, good.count / 3, good.count / 2, good.count - 5, good.count - 1] {
            try expectError(good.prefix(length), NSFileReadCorruptFileError, "truncated to \(length) bytes")
        }
        // One flipped bit anywhere after the header fails the checksum.
        for offset in [16, 40, good.count / 2, good.count - 6, good.count - 2] {
            var flipped = good
            flipped[offset] ^= 0x10
            try expectError(flipped, NSFileReadCorruptFileError, "bit flipped at \(offset)")
        }
        // A newer format version, with a valid checksum.
        var newer = Data(good.dropLast(4))
        newer[8] = 2
        let crc = newer.withUnsafeBytes { CRC32.checksum($0) }
        withUnsafeBytes(of: crc.littleEndian) { newer.append(contentsOf: $0) }
        try expectError(newer, NSPersistentStoreInvalidTypeError, "format version 2")
        // Other store types and other files.
        try expectError(Data("SQLite format 3\0".utf8) + Data(count: 100), NSPersistentStoreInvalidTypeError, "an SQLite file")
        try expectError(Data(#"<?xml version="1.0"?><!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd"><database></database>"#.utf8),
                        NSPersistentStoreInvalidTypeError, "an XML store")
        try expectError(Data("hello, world\n".utf8), NSPersistentStoreInvalidTypeError, "a text file")
        // Metadata reading sees the same errors.
        try good.prefix(good.count / 2).write(to: bad)
        let metadataError = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: bad)
        }
        #expect(metadataError.code == NSFileReadCorruptFileError)
    }

    @Test func aChangedModelIsRefusedUnlessVersioningIsIgnored() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Store.binary")
        let fixture = try EveryKindFixture(storeType: NSBinaryStoreType, url: url)
        try Self.saveGraph(fixture)
        let model = EveryKindModel.make()
        model.entitiesByName["Tag"]!.properties.append({ let a = NSAttributeDescription(); a.name = "color"; a.attributeType = .stringAttributeType; return a }())
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let incompatible = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url, options: nil)
        }
        #expect(incompatible.code == NSPersistentStoreIncompatibleVersionHashError)
        // Ignoring versioning, the store opens with the changed model and keeps what still fits.
        try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url,
                                           options: [NSIgnorePersistentStoreVersioningOption: true])
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Tag")
        guard case .snapshots(let tags) = try coordinator.executeFetch(request) else { Issue.record("no snapshots"); return }
        #expect(tags.compactMap { $0.values["name"] as? String }.sorted() == ["t0", "t1", "t2"])
    }

    @Test func readOnlyStoresRefuseSavesAndLeaveTheFileAlone() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("ReadOnly.binary")
        try Self.saveGraph(EveryKindFixture(storeType: NSBinaryStoreType, url: url))
        let before = try Data(contentsOf: url)
        let readOnly = try EveryKindFixture(storeType: NSBinaryStoreType, url: url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(readOnly.store.isReadOnly)
        #expect(try readOnly.all("Tag").count == 3)
        let id = try readOnly.newIDs("Tag", 1)[0]
        let error = try #require(throws: NSError.self) {
            try readOnly.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["name": "new"])]))
        }
        #expect(error.code == NSPersistentStoreSaveError)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aSecondCoordinatorsSaveIsDetected() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Shared.binary")
        let first = try EveryKindFixture(storeType: NSBinaryStoreType, url: url)
        try Self.saveGraph(first)
        let second = try EveryKindFixture(storeType: NSBinaryStoreType, url: url)
        let id = try second.newIDs("Tag", 1)[0]
        try second.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["name": "second"])]))
        let afterSecond = try Data(contentsOf: url)

        let other = try first.newIDs("Tag", 1)[0]
        let error = try #require(throws: NSError.self) {
            try first.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: other, values: ["name": "first"])]))
        }
        #expect(error.code == NSManagedObjectMergeError)
        #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
        #expect(try Data(contentsOf: url) == afterSecond, "the second coordinator's save is not overwritten")
        let reopened = try EveryKindFixture(storeType: NSBinaryStoreType, url: url)
        #expect(try reopened.all("Tag").compactMap { $0.values["name"] as? String }.sorted() == ["second", "t0", "t1", "t2"])
    }

    @Test func valuesTheFormatCannotHoldFailTheSaveNamingTheAttribute() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Values.binary")
        let fixture = try EveryKindFixture(storeType: NSBinaryStoreType, url: url)
        let id = try fixture.newIDs("Item", 1)[0]
        final class Opaque {}
        let error = try #require(throws: NSError.self) {
            try fixture.coordinator.save(StoreSaveChanges(inserted: [ObjectSnapshot(objectID: id, values: ["info": Opaque()])]))
        }
        #expect(error.code == NSPersistentStoreSaveError)
        #expect((error.userInfo[NSLocalizedDescriptionKey] as? String)?.contains("'info' of entity 'Item'") == true)
        #expect(try fixture.all("Item").isEmpty, "a failed save changes nothing")
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
