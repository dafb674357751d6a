import Foundation
import GRDB
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// The SQLite store's in-place lightweight migration (`SQLiteStore.migrateInPlace`): data read
/// back through a fresh coordinator with the destination model, object URIs and the store UUID
/// kept, failures leaving the files byte-identical.
@Suite struct SQLiteLightweightMigrationTests {
    typealias S = LightweightMigrationSupport

    // MARK: A library: renamed entity, attribute and relationship; retyped attribute; new
    // non-optional attribute with a default; new entities renumbering the others; to-one becoming
    // an inverse-less to-many; a many-to-many whose join table is renamed by the renumbering.

    static func library(version: Int) -> NSManagedObjectModel {
        let author = NSEntityDescription(), book = NSEntityDescription(), tag = NSEntityDescription()
        author.name = version == 1 ? "Author" : "Writer"
        if version == 2 { author.renamingIdentifier = "Author" }
        book.name = "Book"
        tag.name = "Tag"
        let books = S.relationship("books", to: book, toMany: true)
        let owner = S.relationship(version == 1 ? "author" : "writer", to: author, toMany: false)
        S.inverses(books, owner)
        let tags = S.relationship("tags", to: tag, toMany: true), tagged = S.relationship("books", to: book, toMany: true)
        S.inverses(tags, tagged)
        let featured = S.relationship(version == 1 ? "featuredTag" : "featuredTags", to: tag, toMany: version == 2)
        author.properties = [S.attribute("name", .stringAttributeType), books]
        tag.properties = [S.attribute("label", .stringAttributeType), tagged]
        var entities = [author, book, tag]
        if version == 1 {
            book.properties = [S.attribute("title", .stringAttributeType), S.attribute("pageCount", .integer16AttributeType), owner, tags, featured]
        } else {
            book.properties = [S.attribute("heading", .stringAttributeType, renamedFrom: "title"), S.attribute("pageCount", .integer32AttributeType),
                               S.attribute("pages", .integer32AttributeType, optional: false, defaultValue: 7), owner, tags, featured]
            for name in ["Album", "Award"] {
                let added = NSEntityDescription()
                added.name = name
                added.properties = [S.attribute("name", .stringAttributeType)]
                entities.append(added)
            }
        }
        let model = NSManagedObjectModel()
        model.entities = entities
        model.versionIdentifiers = ["\(version)"]
        return model
    }

    static func libraryMapping() -> NSMappingModel {
        S.mappingModel([
            S.entityMapping("Author", "Writer", type: .transformEntityMappingType, attributes: [S.copy("name")],
                            relationships: [S.related("books", mapping: "BookToBook")]),
            S.entityMapping("Book", "Book", type: .transformEntityMappingType,
                            attributes: [S.copy("heading", from: "title"), S.copy("pageCount"), NSPropertyMapping(name: "pages", valueExpression: nil)],
                            relationships: [S.related("writer", from: "author", mapping: "AuthorToWriter"), S.related("tags", mapping: "TagToTag"),
                                            S.related("featuredTags", from: "featuredTag", mapping: "TagToTag")]),
            S.entityMapping("Tag", "Tag", type: .copyEntityMappingType, attributes: [S.copy("label")],
                            relationships: [S.related("books", mapping: "BookToBook")]),
            S.entityMapping(nil, "Album", type: .addEntityMappingType),
            S.entityMapping(nil, "Award", type: .addEntityMappingType),
        ])
    }

    /// A version 1 library: 3 authors, 6 books, 4 tags.
    static func makeLibrary(at url: URL) throws {
        let (context, _) = try S.context(library(version: 1), at: url)
        try context.performAndWait {
            let authors = (0..<3).map { index -> NSManagedObject in
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue("Author \(index)", forKey: "name")
                return author
            }
            let tags = (0..<4).map { index -> NSManagedObject in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                tag.setValue("tag\(index)", forKey: "label")
                return tag
            }
            for index in 0..<6 {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                book.setValue("Book \(index)", forKey: "title")
                book.setValue(Int16(index * 100), forKey: "pageCount")
                book.setValue(authors[index % 3], forKey: "author")
                book.setValue(Set(tags.enumerated().filter { ($0.offset + index) % 2 == 0 }.map(\.element)), forKey: "tags")
                if index < 4 { book.setValue(tags[index], forKey: "featuredTag") }
            }
            try context.save()
        }
    }

    @Test func libraryMigratesInPlaceKeepingKeysURIsAndUUID() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.sqlite")
        try Self.makeLibrary(at: url)

        let (before, oldStore) = try S.context(Self.library(version: 1), at: url, readOnly: true)
        let uuid = oldStore.identifier
        let oldBooks = try S.fetch(before, "Book", sortedBy: "title")
        let oldTags = try S.fetch(before, "Tag", sortedBy: "label")
        let oldAuthors = try S.fetch(before, "Author", sortedBy: "name")
        let bookURIs = before.performAndWait { oldBooks.map { $0.objectID.uriRepresentation() } }
        let tagURIs = before.performAndWait { oldTags.map { $0.objectID.uriRepresentation() } }
        let authorKeys = before.performAndWait { oldAuthors.map { $0.objectID.uriRepresentation().lastPathComponent } }

        let progress = Progress(totalUnitCount: 0)
        let result = try SQLiteStore.migrateInPlace(at: url, options: nil, sourceModel: Self.library(version: 1),
                                                    destinationModel: Self.library(version: 2), mapping: Self.libraryMapping(), progress: progress)
        #expect(result == .migrated)
        #expect(progress.completedUnitCount == progress.totalUnitCount && progress.totalUnitCount > 0)

        let destinationModel = Self.library(version: 2)
        let (after, store) = try S.context(destinationModel, at: url)
        #expect(store.identifier == uuid)
        #expect(store.metadata[NSStoreModelVersionIdentifiersKey] as? [String] == ["2"])
        #expect((store.metadata[NSStoreModelVersionHashesKey] as? [String: Data]) == destinationModel.entityVersionHashesByName)
        let books = try S.fetch(after, "Book", sortedBy: "heading")
        let tags = try S.fetch(after, "Tag", sortedBy: "label")
        let writers = try S.fetch(after, "Writer", sortedBy: "name")
        after.performAndWait {
            #expect(books.map { $0.objectID.uriRepresentation() } == bookURIs)
            #expect(tags.map { $0.objectID.uriRepresentation() } == tagURIs)
            #expect(writers.map { $0.objectID.uriRepresentation().lastPathComponent } == authorKeys)
            #expect(writers.map { $0.objectID.uriRepresentation().pathComponents.dropLast().last } == Array(repeating: "Writer", count: 3))
            #expect(books.map { $0.value(forKey: "heading") as? String } == (0..<6).map { "Book \($0)" })
            #expect(books.map { ($0.value(forKey: "pageCount") as? NSNumber)?.int32Value } == (0..<6).map { Int32($0 * 100) })
            #expect(books.map { ($0.value(forKey: "pages") as? NSNumber)?.int32Value } == Array(repeating: 7, count: 6))
            for (index, book) in books.enumerated() {
                #expect((book.value(forKey: "writer") as? NSManagedObject)?.value(forKey: "name") as? String == "Author \(index % 3)")
                let tagLabels = Set(((book.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "label") as? String })
                #expect(tagLabels == Set((0..<4).filter { ($0 + index) % 2 == 0 }.map { "tag\($0)" }), "book \(index)")
                let featured = Set(((book.value(forKey: "featuredTags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "label") as? String })
                #expect(featured == (index < 4 ? ["tag\(index)"] : []), "book \(index)")
            }
            for (index, writer) in writers.enumerated() {
                let titles = Set(((writer.value(forKey: "books") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "heading") as? String })
                #expect(titles == Set((0..<6).filter { $0 % 3 == index }.map { "Book \($0)" }))
            }
            let tag0Books = Set(((tags[0].value(forKey: "books") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "heading") as? String })
            #expect(tag0Books == ["Book 0", "Book 2", "Book 4"])
        }
        // Entities renumbered by Apple's rule, Z_MAX kept: a new book gets the next key.
        let queue = try DatabaseQueue(path: url.path)
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as Int64)" } }
        let tables = try queue.read { db in try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")) }
        try queue.close()
        #expect(rows == ["1 Album 0", "2 Award 0", "3 Book 6", "4 Tag 4", "5 Writer 3"])
        #expect(tables.isSuperset(of: ["ZWRITER", "ZBOOK", "ZTAG", "ZALBUM", "ZAWARD", "Z_3TAGS"]))
        #expect(tables.isDisjoint(with: ["ZAUTHOR", "Z_2TAGS"]) && !tables.contains { $0.hasPrefix("_T_") })
        try after.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: after)
            book.setValue("Book 6", forKey: "heading")
            try after.save()
            #expect(book.objectID.uriRepresentation().lastPathComponent == "p7")
        }
    }

    // MARK: Apple-written stores

    @Test func appleSampleModelV1MigratesToVersion2() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("SampleModel_V1.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(at: Fixtures.coreDataPlus("SampleModel/Fixtures/SampleModel_V1.sqlite" + suffix),
                                             to: URL(fileURLWithPath: url.path + suffix))
        }
        let versions = Fixtures.sampleModel
        let v1 = try #require(NSManagedObjectModel(contentsOf: versions.appendingPathComponent("SampleModel.xcdatamodel")))
        let v2 = try #require(NSManagedObjectModel(contentsOf: versions.appendingPathComponent("SampleModel2.xcdatamodel")))

        func carFacts(_ context: NSManagedObjectContext, _ cars: [NSManagedObject]) -> [String] {
            context.performAndWait {
                cars.map { car in
                    let owner = car.value(forKey: "owner") as? NSManagedObject
                    let entity = car.entity.name == "ExpensiveSportCar" ? "LuxuryCar" : car.entity.name ?? ""
                    let uri = car.objectID.uriRepresentation()
                    return [entity, uri.host ?? "", uri.lastPathComponent, car.value(forKey: "numberPlate") as? String ?? "-",
                            car.value(forKey: "maker") as? String ?? "-", car.value(forKey: "model") as? String ?? "-",
                            "\((car.value(forKey: "markedForDeletionAsOf") as? Date)?.timeIntervalSinceReferenceDate ?? -1)",
                            owner?.value(forKey: "firstName") as? String ?? "-", owner?.value(forKey: "lastName") as? String ?? "-",
                            "\(car.entity.name == "ExpensiveSportCar" || car.entity.name == "LuxuryCar" ? "\(car.value(forKey: "isLimitedEdition") ?? "nil")" : "")"]
                        .joined(separator: "|")
                }
            }
        }
        let (before, _) = try S.context(v1, at: url, readOnly: true)
        let oldCars = carFacts(before, try S.fetch(before, "Car", sortedBy: "numberPlate"))
        let oldPeople = try before.performAndWait {
            try S.fetch(before, "Person", sortedBy: "updatedAt").map { person in
                "\(person.objectID.uriRepresentation().lastPathComponent) \(person.value(forKey: "firstName") ?? "-") \(person.value(forKey: "lastName") ?? "-") \((person.value(forKey: "cars") as? Set<NSManagedObject>)?.count ?? -1)"
            }
        }
        #expect(oldCars.count == 125 && oldPeople.count == 20)

        let carAttributes = ["maker", "markedForDeletionAsOf", "model", "numberPlate"].map { S.copy($0) }
        let owner = S.related("owner", mapping: "PersonToPerson")
        let mapping = S.mappingModel([
            S.entityMapping("Car", "Car", type: .transformEntityMappingType, attributes: carAttributes, relationships: [owner]),
            S.entityMapping("SportCar", "SportCar", type: .transformEntityMappingType, attributes: carAttributes, relationships: [owner]),
            S.entityMapping("ExpensiveSportCar", "LuxuryCar", type: .transformEntityMappingType,
                            attributes: carAttributes + [S.copy("isLimitedEdition")], relationships: [owner]),
            S.entityMapping("Person", "Person", type: .transformEntityMappingType,
                            attributes: ["firstName", "lastName", "updatedAt"].map { S.copy($0) },
                            relationships: [S.related("cars", mapping: "CarToCar")]),
        ])
        #expect(try SQLiteStore.migrateInPlace(at: url, options: nil, sourceModel: v1, destinationModel: v2, mapping: mapping, progress: nil) == .migrated)

        let (after, _) = try S.context(v2, at: url)
        #expect(carFacts(after, try S.fetch(after, "Car", sortedBy: "numberPlate")) == oldCars)
        #expect(try S.fetch(after, "LuxuryCar", sortedBy: "numberPlate").count == 5)
        #expect(try S.fetch(after, "SportCar", sortedBy: "numberPlate").count == 10)
        let people = try after.performAndWait {
            try S.fetch(after, "Person", sortedBy: "updatedAt").map { person in
                "\(person.objectID.uriRepresentation().lastPathComponent) \(person.value(forKey: "firstName") ?? "-") \(person.value(forKey: "lastName") ?? "-") \((person.value(forKey: "cars") as? Set<NSManagedObject>)?.count ?? -1)"
            }
        }
        #expect(people == oldPeople)
        #expect(throws: (any Error).self) { _ = try S.context(v1, at: url, readOnly: true) }
    }

    // MARK: Not applicable, failures

    static func killModelStore(in directory: URL, items: Int) throws -> URL {
        let url = directory.appendingPathComponent("Items.sqlite")
        let (context, _) = try S.context(MigrationKillModel.make(version: 1), at: url)
        try context.performAndWait {
            let groups = (0..<max(1, items / 100)).map { index -> NSManagedObject in
                let group = NSEntityDescription.insertNewObject(forEntityName: "Group", into: context)
                group.setValue("group \(index)", forKey: "title")
                return group
            }
            for index in 0..<items {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(Int64(index), forKey: "index")
                item.setValue("item \(index)", forKey: "name")
                item.setValue(groups[index % groups.count], forKey: "group")
            }
            try context.save()
        }
        return url
    }

    @Test func customEntityMappingIsNotApplicableAndLeavesTheFileAlone() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.killModelStore(in: directory, items: 10)
        let bytes = S.bytes(url)
        let mapping = MigrationKillModel.mapping()
        mapping.entityMappings[1].entityMigrationPolicyClassName = "Tests.SplitPolicy"
        let result = try SQLiteStore.migrateInPlace(at: url, options: nil, sourceModel: MigrationKillModel.make(version: 1),
                                                    destinationModel: MigrationKillModel.make(version: 2), mapping: mapping, progress: nil)
        guard case .notApplicable(let reason) = result else { Issue.record("migrated with a custom policy"); return }
        #expect(reason.description.contains("Tests.SplitPolicy"))
        #expect(S.bytes(url) == bytes)

        let computed = MigrationKillModel.mapping()
        computed.entityMappings[1].attributeMappings?[1] = NSPropertyMapping(name: "label", valueExpression: NSExpression(format: "$source.name + 'x'"))
        let second = try SQLiteStore.migrateInPlace(at: url, options: nil, sourceModel: MigrationKillModel.make(version: 1),
                                                    destinationModel: MigrationKillModel.make(version: 2), mapping: computed, progress: nil)
        #expect(second != .migrated)
        #expect(S.bytes(url) == bytes)
    }

    @Test(arguments: ["create", "copy ZITEM", "validate", "replace", "bookkeeping", "history", "metadata"])
    func anErrorHalfWayLeavesTheFilesByteIdentical(step: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.killModelStore(in: directory, items: 50)
        let bytes = S.bytes(url)
        struct Injected: Error {}
        #expect(throws: (any Error).self) {
            _ = try SQLiteStore.migrateInPlace(at: url, options: nil, configurationName: nil, sourceModel: MigrationKillModel.make(version: 1),
                                               destinationModel: MigrationKillModel.make(version: 2), mapping: MigrationKillModel.mapping(),
                                               progress: nil, afterStep: { if $0 == step { throw Injected() } })
        }
        #expect(S.bytes(url) == bytes)
        let (context, _) = try S.context(MigrationKillModel.make(version: 1), at: url, readOnly: true)
        #expect(try S.fetch(context, "Item", sortedBy: "index").count == 50)
    }

    @Test func aMissingMandatoryValueFailsWithTheRowAndLeavesTheFilesByteIdentical() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.killModelStore(in: directory, items: 5)
        let bytes = S.bytes(url)
        let destination = MigrationKillModel.make(version: 2)
        destination.entitiesByName["Item"]?.attributesByName["weight"]?.defaultValue = nil
        do {
            _ = try SQLiteStore.migrateInPlace(at: url, options: nil, sourceModel: MigrationKillModel.make(version: 1),
                                               destinationModel: destination, mapping: MigrationKillModel.mapping(), progress: nil)
            Issue.record("migrated rows without a mandatory value")
        } catch let error as NSError {
            #expect(error.code == NSMigrationError)
            #expect(error.localizedDescription.contains("weight"))
            #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSValidationMissingMandatoryPropertyError)
        }
        #expect(S.bytes(url) == bytes)
    }
}
