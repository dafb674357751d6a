import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Binary data of attributes that allow external storage, in Apple's column form
/// (``SQLiteValueCoding/ExternalData``): `0x01` + bytes, or `0x02` + a file name + NUL naming a
/// file in `.<Store>_SUPPORT/_EXTERNAL_DATA/`. The stores are hand-built in that form.
@Suite struct SQLiteExternalDataTests {
    /// A model written as Xcode writes it: `Photo` with an external-storage `image`, an
    /// external-storage transformable `info`, and a plain binary `thumbnail`.
    static func writeModel(in directory: URL) throws -> URL {
        let model = directory.appendingPathComponent("Photos.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Photo" representedClassName="Photo" syncable="YES" codeGenerationType="class">
                <attribute name="image" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="thumbnail" optional="YES" attributeType="Binary"/>
            </entity>
        </model>
        """
        try Data(contents.utf8).write(to: model.appendingPathComponent("contents"))
        return model
    }

    /// A new store at `Photos.sqlite` with one photo per name, written by our store.
    static func makeStore(in directory: URL, photos: [(name: String, image: Data?, thumbnail: Data?)]) throws -> (store: URL, model: URL) {
        let modelURL = try writeModel(in: directory)
        let url = directory.appendingPathComponent("Photos.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: modelURL))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for photo in photos {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
            object.setValue(photo.name, forKey: "name")
            object.setValue(photo.image, forKey: "image")
            object.setValue(photo.thumbnail, forKey: "thumbnail")
        }
        try context.save()
        try coordinator.remove(store)
        return (url, modelURL)
    }

    /// The `image` of every photo, by name, read through a new coordinator.
    static func images(_ url: URL, model: URL) throws -> [String: Data?] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: model))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let photos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo"))
        return Dictionary(uniqueKeysWithValues: photos.map { ($0.value(forKey: "name") as! String, $0.value(forKey: "image") as? Data) })
    }

    @Test func writesTheInlineMarkerAndReadsItBack() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = Data((0..<(SQLiteValueCoding.ExternalData.appleFileThreshold + 10)).map { UInt8($0 % 251) })
        let (url, model) = try Self.makeStore(in: directory, photos: [("small", Data([9, 8, 7]), Data([1, 2])), ("big", big, nil), ("none", nil, nil)])
        let queue = try DatabaseQueue(path: url.path)
        try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT ZNAME, ZIMAGE, ZTHUMBNAIL FROM ZPHOTO")
            let byName = Dictionary(uniqueKeysWithValues: rows.map { ($0["ZNAME"] as String, $0) })
            #expect(byName["small"]?["ZIMAGE"] as Data? == Data([1, 9, 8, 7]), "0x01 then the bytes")
            #expect(byName["small"]?["ZTHUMBNAIL"] as Data? == Data([1, 2]), "a plain binary attribute has no marker")
            #expect((byName["big"]?["ZIMAGE"] as Data?)?.first == 1, "we write even long values in the column")
            #expect((byName["big"]?["ZIMAGE"] as Data?)?.count == big.count + 1)
            #expect(byName["none"]?["ZIMAGE"] as Data? == nil)
        }
        try queue.close()
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".Photos_SUPPORT").path))
        let images = try Self.images(url, model: model)
        #expect(images["small"] == Data([9, 8, 7]))
        #expect(images["big"] == big)
        #expect(images["none"] == .some(nil))
    }

    /// Rewrites the `image` column of `name` as Apple's external reference to a new file.
    static func storeExternally(_ bytes: Data, name: String, in url: URL, fileName: String = UUID().uuidString, writeFile: Bool = true) throws {
        let folder = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if writeFile { try bytes.write(to: folder.appendingPathComponent(fileName)) }
        let reference = Data([2]) + Data(fileName.utf8) + Data([0])
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE ZPHOTO SET ZIMAGE = ? WHERE ZNAME = ?", arguments: [reference, name])
        }
        try queue.close()
    }

    @Test func readsApplesExternalReferences() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, model) = try Self.makeStore(in: directory, photos: [("external", nil, nil), ("inline", Data([5]), nil), ("lost", nil, nil)])
        let bytes = Data((0..<200_000).map { UInt8($0 % 241) })
        try Self.storeExternally(bytes, name: "external", in: url, fileName: "8F3A4E52-7C55-4C36-9D5E-0B6D4F1B2C3A")
        try Self.storeExternally(Data(), name: "lost", in: url, writeFile: false)
        let images = try Self.images(url, model: model)
        #expect(images["external"] == bytes)
        #expect(images["inline"] == Data([5]))
        #expect(images["lost"] == .some(nil), "a missing file reads as nil")
    }

    @Test func externalReferencesAreKeptWhenOtherValuesChange() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, model) = try Self.makeStore(in: directory, photos: [("external", nil, nil)])
        let bytes = Data((0..<150_000).map { UInt8($0 % 239) })
        try Self.storeExternally(bytes, name: "external", in: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: model))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let photo = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).first)
        photo.setValue("renamed", forKey: "name")
        try context.save()
        try coordinator.remove(store)
        #expect(try Self.images(url, model: model)["renamed"] == bytes)
    }

    @Test func markerForms() {
        typealias External = SQLiteValueCoding.ExternalData
        #expect(External.bytes(Data([1, 4, 5]), directory: nil) == Data([4, 5]))
        #expect(External.bytes(Data([1]), directory: nil) == Data())
        #expect(External.bytes(Data(), directory: nil) == Data(), "an empty blob is an empty value")
        #expect(External.bytes(Data([7, 7]), directory: nil) == Data([7, 7]), "an unknown marker leaves the blob as it is")
        #expect(External.fileName(Data([2]) + Data("ABC".utf8) + Data([0])) == "ABC")
        #expect(External.fileName(Data([2]) + Data("ABC".utf8)) == "ABC", "the NUL is optional when reading")
        #expect(External.fileName(Data([2]) + Data("../x".utf8) + Data([0])) == nil, "never a path")
        #expect(External.inline(.null) == .null)
        #expect(External.inline(Data([3]).databaseValue) == Data([1, 3]).databaseValue)
        let store = SQLiteStore(persistentStoreCoordinator: nil, configurationName: nil,
                                at: URL(fileURLWithPath: "/tmp/dir/My Store.sqlite"), options: nil)
        #expect(store.externalDataDirectory?.path == "/tmp/dir/.My Store_SUPPORT/_EXTERNAL_DATA")
    }
}

extension SQLiteExternalDataTests {
    /// SQL sees only the stored form of such data: a nil test compiles, any other comparison
    /// fails the fetch with an error naming it, never a wrong result.
    @Test func onlyNilTestsOfExternalDataCompile() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (url, model) = try Self.makeStore(in: directory, photos: [("a", Data([1]), Data([1])), ("b", nil, Data([2]))])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: model))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        func names(_ format: String, _ arguments: Any...) throws -> [String] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
            request.predicate = NSPredicate(format: format, argumentArray: arguments)
            return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(try names("image != nil") == ["a"])
        #expect(try names("image == nil") == ["b"])
        #expect(try names("thumbnail == %@", Data([2])) == ["b"], "plain binary data compares in SQL")
        let error = #expect(throws: NSError.self) { try names("image == %@", Data([1])) }
        #expect(error?.localizedDescription.contains("image") == true, "\(error?.localizedDescription ?? "")")
        #expect(throws: NSError.self) { try names("%@ == image", Data([1])) }
    }
}
