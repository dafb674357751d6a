import Foundation
import Testing
@testable import OpenCoreData

/// Automatic migration when a store is added with `NSMigratePersistentStoresAutomaticallyOption`:
/// a store written with version 1 of a versioned model (an `.xcdatamodeld` written here) opens
/// with version 2 through the inferred mapping, through a coordinator and through
/// `NSPersistentContainer`; the failure paths leave the store byte-identical.
@Suite struct AutomaticMigrationTests {
    static let fileTypes: [NSPersistentStore.StoreType] = [.sqlite, .xml, .binary]

    static var migrate: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true,
                                              NSInferMappingModelAutomaticallyOption: true] }

    /// V1: `Person` (`name`, `age`), `Item` (`title`).
    static let v1Contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Person" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="age" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            </entity>
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """

    /// V2: `name` renamed `fullName`, a new mandatory `nickname` with a default, `Item` renamed
    /// `Article` (both by renaming identifier).
    /// A version 2 that turns `name` into an integer: nothing can be inferred.
    static var uninferableV2Contents: String {
        v1Contents.replacingOccurrences(of: #"name="name" optional="YES" attributeType="String""#,
                                        with: #"name="name" optional="YES" attributeType="Integer 32""#)
    }

    static let v2Contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Person" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="fullName" optional="YES" attributeType="String" elementID="name"/>
                <attribute name="age" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="nickname" attributeType="String" defaultValueString="none"/>
            </entity>
            <entity name="Article" representedClassName="NSManagedObject" elementID="Item" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """

    /// Writes `Model.xcdatamodeld` with versions `Model` (V1) and `Model 2` (V2, or `v2` when
    /// given) in `folder`, the current one being the last.
    static func writePackage(in folder: URL, v2: String = v2Contents) throws -> URL {
        let package = folder.appendingPathComponent("Model.xcdatamodeld")
        for (name, contents) in [("Model", v1Contents), ("Model 2", v2)] {
            let version = package.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        }
        let current = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Model 2.xcdatamodel</string></dict></plist>
            """
        try Data(current.utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    /// Writes a V1 store of `type` at `url` (Ada, 36; Alan, 41; one item) with `model`; returns its UUID.
    @discardableResult
    static func writeV1Store(_ type: NSPersistentStore.StoreType, at url: URL, model: NSManagedObjectModel) throws -> String {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (name, age) in [("Ada", 36), ("Alan", 41)] {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue(name, forKey: "name")
            person.setValue(Int64(age), forKey: "age")
        }
        NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("Engine", forKey: "title")
        try context.save()
        let uuid = store.identifier ?? ""
        try coordinator.remove(store)
        return uuid
    }

    /// Checks what a V2 context reads from the migrated store.
    static func checkMigrated(_ context: NSManagedObjectContext) throws {
        let people = try MigrationTestModels.fetch("Person", in: context, sortedBy: "fullName")
        #expect(people.map { $0.value(forKey: "fullName") as? String } == ["Ada", "Alan"])
        #expect(people.map { $0.value(forKey: "age") as? Int64 } == [36, 41])
        #expect(people.map { $0.value(forKey: "nickname") as? String } == ["none", "none"])
        let articles = try MigrationTestModels.fetch("Article", in: context, sortedBy: "title")
        #expect(articles.map { $0.value(forKey: "title") as? String } == ["Engine"])
    }

    // MARK: Migrating

    @Test(arguments: fileTypes)
    func storeOfAnOlderVersionMigratesAtOpen(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try Self.writePackage(in: folder)
        let versions = try ModelVersionList.read(at: package)
        #expect(versions.versions.map(\.name) == ["Model", "Model 2"])
        let url = folder.appendingPathComponent("store")
        let uuid = try Self.writeV1Store(type, at: url, model: versions.versions[0].model)

        let model = try NSManagedObjectModel.load(contentsOf: package)
        #expect(model.versionedModelURL == package.standardizedFileURL)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url, options: Self.migrate)
        #expect(store.identifier == uuid, "a migrated store keeps its UUID")
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try Self.checkMigrated(context)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test(arguments: fileTypes)
    func containerLoadedFromAVersionedModelMigrates(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try Self.writePackage(in: folder)
        let url = folder.appendingPathComponent("store")
        try Self.writeV1Store(type, at: url, model: try ModelVersionList.read(at: package).versions[0].model)

        let container = NSPersistentContainer(name: "Model", modelSearchDirectories: [folder])
        let description = NSPersistentStoreDescription(url: url)
        description.type = type.rawValue
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        try Self.checkMigrated(container.viewContext)
    }

    @Test(arguments: fileTypes)
    func withoutTheMigrateOptionTheStoreIsStillIncompatible(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try Self.writePackage(in: folder)
        let url = folder.appendingPathComponent("store")
        try Self.writeV1Store(type, at: url, model: try ModelVersionList.read(at: package).versions[0].model)
        let model = try NSManagedObjectModel.load(contentsOf: package)

        for options: [AnyHashable: Any]? in [nil, Self.migrate.merging([NSReadOnlyPersistentStoreOption: true]) { $1 }] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let error = try #require(throws: NSError.self) {
                try coordinator.addPersistentStore(type: type, at: url, options: options)
            }
            #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        }
        // Not migrated: version 1 still reads it.
        let v1 = try MigrationTestModels.open(type, at: url, model: try ModelVersionList.read(at: package).versions[0].model)
        #expect(try v1.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 2)
    }

    // MARK: Failing

    @Test(arguments: fileTypes)
    func withoutInferenceAndWithoutAMappingModelTheStoreIsUntouched(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try Self.writePackage(in: folder)
        let url = folder.appendingPathComponent("store")
        try Self.writeV1Store(type, at: url, model: try ModelVersionList.read(at: package).versions[0].model)
        let before = MigrationTestModels.bytes(url)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: package))
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(type: type, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true])
        }
        #expect(error.code == NSMigrationMissingMappingModelError)
        #expect(error.userInfo["reason"] as? String == "Can't find mapping model for migration")
        #expect(MigrationTestModels.bytes(url) == before)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test(arguments: fileTypes)
    func aChangeThatCannotBeInferredFailsWithTheMissingMappingError(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try Self.writePackage(in: folder, v2: Self.uninferableV2Contents)
        let url = folder.appendingPathComponent("store")
        try Self.writeV1Store(type, at: url, model: try ModelVersionList.read(at: package).versions[0].model)
        let before = MigrationTestModels.bytes(url)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: package))
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(type: type, at: url, options: Self.migrate)
        }
        #expect(error.code == NSMigrationMissingMappingModelError)
        #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSInferredMappingModelError)
        #expect(MigrationTestModels.bytes(url) == before)
    }

    @Test(arguments: fileTypes)
    func aStoreOfNoKnownVersionFailsWithTheMissingSourceModelError(_ type: NSPersistentStore.StoreType) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try Self.writePackage(in: folder)
        let url = folder.appendingPathComponent("store")
        // Written by a model that is no version of the package; our SQLite stores cache no model.
        let stranger = InferredMigrationTests.model(InferredMigrationTests.entity("Stranger", [InferredMigrationTests.string("x")]))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stranger)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        InferredMigrationTests.insert("Stranger", ["x": "?"], into: context)
        try context.save()
        try coordinator.remove(store)
        let before = MigrationTestModels.bytes(url)

        let current = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: package))
        let error = try #require(throws: NSError.self) {
            try current.addPersistentStore(type: type, at: url, options: Self.migrate)
        }
        #expect(error.code == NSMigrationMissingSourceModelError)
        #expect(MigrationTestModels.bytes(url) == before)
    }

    // MARK: Apple's model cache

    @Test func sqliteStoreOfNoKnownVersionMigratesFromTheModelItCaches() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try FixtureMigrationTests.copyStore("SampleModel_V1.sqlite", to: folder)
        // The V2 version alone: no versioned model to find V1 in.
        let v2 = try FixtureMigrationTests.version("SampleModel2")
        #expect(v2.versionedModelURL == nil)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        let cached = try #require(try SQLiteStore.cachedModel(at: url))
        #expect(cached.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let context = try {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v2)
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.migrate)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }()
        #expect(try FixtureMigrationTests.cars(in: context).count == 125)
        #expect(try FixtureMigrationTests.people(in: context).count == 20)
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "LuxuryCar")) > 0)
    }

    @Test func storesWeWriteCacheNoModel() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        try MigrationTestModels.writeV1Store(.sqlite, at: url)
        #expect(try SQLiteStore.cachedModel(at: url) == nil)
    }
}
