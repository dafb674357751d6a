import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// The schema mapping against the DDL Apple's Core Data wrote into the fixture stores.
@Suite struct SQLiteSchemaTests {
    struct Case: Sendable, CustomStringConvertible {
        let store: String
        let model: String
        var description: String { store }
    }

    static let cases: [Case] = [
        Case(store: "SampleModel/Fixtures/SampleModel_V1.sqlite", model: "SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"),
        Case(store: "SampleModel/Fixtures/SampleModel_V2.sqlite", model: "SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"),
        Case(store: "SampleModel3/Fixtures/SampleModel3_V1.sqlite", model: "SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel"),
    ]

    /// `sqlite_master` of a copy of a fixture store: (type, name, sql) with whitespace normalised.
    static func fixtureDDL(_ relativePath: String) throws -> Set<String> {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("store.sqlite")
        try FileManager.default.copyItem(at: Fixtures.coreDataPlus(relativePath), to: copy)
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: copy.path, configuration: configuration)
        return try queue.read { db in
            Set(try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").map { row in
                "\(row["type"] as String) \(row["name"] as String): \(normalized(row["sql"]))"
            })
        }
    }

    static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func ourDDL(_ schema: SQLiteSchema) -> Set<String> {
        Set(schema.createStatements(dialect: SQLiteDialect()).map { statement in
            let words = statement.split(separator: " ")
            let isIndex = words[1] == "INDEX" || words[2] == "INDEX"
            let name = isIndex ? (words[1] == "INDEX" ? words[2] : words[3]) : words[2]
            return "\(isIndex ? "index" : "table") \(name): \(normalized(statement))"
        })
    }

    @Test(arguments: cases)
    func createStatementsMatchApplesDDL(_ fixture: Case) throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.coreDataPlus(fixture.model))
        let schema = SQLiteSchema(model: model)
        #expect(Self.ourDDL(schema) == (try Self.fixtureDDL(fixture.store)))
    }

    @Test func entityNumbersFollowApplesOrder() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.coreDataPlus(Self.cases[0].model))
        let schema = SQLiteSchema(model: model)
        #expect(schema.entities.map(\.name) == ["Car", "SportCar", "ExpensiveSportCar", "Person"])
        #expect(schema.entities.map(\.superNumber) == [0, 1, 2, 0])
        #expect(schema.entity(named: "ExpensiveSportCar")?.tableName == "ZCAR")
        #expect(schema.entity(named: "ExpensiveSportCar")?.rootNumber == 1)
        #expect(schema.entity(named: "SportCar")?.kindNumbers == [2, 3])
        #expect(schema.entity(named: "Car")?.toOne["owner"]?.column == "ZOWNER")
        #expect(schema.entity(named: "Car")?.toOne["owner"]?.entityColumn == nil)
        #expect(schema.entity(named: "Person")?.toMany["cars"] == .inverseForeignKey(table: "ZCAR", column: "ZOWNER", orderColumn: nil, destinationName: "Car"))
        #expect(schema.entity(named: "Person")?.attributes["isDriving"] == nil, "transient attributes get no column")
        #expect(schema.entity(named: "Person")?.attributes["id"]?.type == .blob)
    }

    /// A model with every relationship kind: the shapes of decision 5.
    static func relationshipModel() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        func relationship(_ name: String, _ destination: NSEntityDescription, toMany: Bool, ordered: Bool = false) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            relationship.isOrdered = ordered
            return relationship
        }
        let note = NSEntityDescription(), tag = NSEntityDescription(), folder = NSEntityDescription()
        let smartFolder = NSEntityDescription(), item = NSEntityDescription()
        note.name = "Note"; tag.name = "Tag"; folder.name = "Folder"; smartFolder.name = "SmartFolder"; item.name = "Item"
        let tags = relationship("tags", tag, toMany: true), notes = relationship("notes", note, toMany: true)
        tags.inverseRelationship = notes; notes.inverseRelationship = tags
        let folderNotes = relationship("notes", note, toMany: true, ordered: true), noteFolder = relationship("folder", folder, toMany: false)
        folderNotes.inverseRelationship = noteFolder; noteFolder.inverseRelationship = folderNotes
        let items = relationship("items", item, toMany: true, ordered: true)
        let itemNotes = relationship("notes", note, toMany: true)
        items.inverseRelationship = itemNotes; itemNotes.inverseRelationship = items
        note.properties = [attribute("title", .stringAttributeType), attribute("created", .dateAttributeType),
                           attribute("rating", .doubleAttributeType), attribute("pinned", .booleanAttributeType),
                           attribute("body", .binaryDataAttributeType), attribute("count", .integer32AttributeType),
                           tags, noteFolder, items]
        tag.properties = [attribute("name", .stringAttributeType), notes]
        folder.properties = [attribute("name", .stringAttributeType), folderNotes]
        smartFolder.properties = [attribute("query", .stringAttributeType)]
        item.properties = [attribute("name", .stringAttributeType), itemNotes]
        folder.subentities = [smartFolder]
        let model = NSManagedObjectModel()
        model.entities = [note, tag, folder, smartFolder, item]
        return model
    }

    @Test func relationshipShapes() throws {
        let schema = SQLiteSchema(model: Self.relationshipModel())
        #expect(schema.entities.map(\.name) == ["Folder", "SmartFolder", "Item", "Note", "Tag"])
        let ddl = schema.createStatements(dialect: SQLiteDialect())
        #expect(ddl.contains("CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOUNT INTEGER, ZPINNED INTEGER, ZFOLDER INTEGER, Z1_FOLDER INTEGER, Z_FOK_FOLDER INTEGER, ZCREATED TIMESTAMP, ZRATING FLOAT, ZTITLE VARCHAR, ZBODY BLOB )"))
        #expect(ddl.contains("CREATE TABLE ZFOLDER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZQUERY VARCHAR )"))
        #expect(ddl.contains("CREATE INDEX ZFOLDER_Z_ENT_INDEX ON ZFOLDER (Z_ENT)"))
        #expect(ddl.contains("CREATE INDEX ZNOTE_ZFOLDER_INDEX ON ZNOTE (ZFOLDER)"))
        // Item (3) ↔ Note (4): named after the lower entity number; ordered items add Z_FOK_.
        #expect(ddl.contains("CREATE TABLE Z_3NOTES ( Z_3ITEMS INTEGER, Z_4NOTES INTEGER, Z_FOK_3ITEMS INTEGER, PRIMARY KEY (Z_3ITEMS, Z_4NOTES) )"))
        // Join-table column names are unique across the schema: the second Z_4NOTES gets a counter.
        #expect(ddl.contains("CREATE TABLE Z_4TAGS ( Z_4NOTES1 INTEGER, Z_5TAGS INTEGER, PRIMARY KEY (Z_4NOTES1, Z_5TAGS) )"))
        #expect(ddl.contains("CREATE INDEX Z_4TAGS_Z_5TAGS_INDEX ON Z_4TAGS (Z_5TAGS, Z_4NOTES1)"))
        let noteMapping = try #require(schema.entity(named: "Note"))
        #expect(noteMapping.toMany["tags"] == .joinTable(name: "Z_4TAGS", sourceColumn: "Z_4NOTES1", destinationColumn: "Z_5TAGS", orderColumn: nil))
        #expect(noteMapping.toMany["items"] == .joinTable(name: "Z_3NOTES", sourceColumn: "Z_4NOTES", destinationColumn: "Z_3ITEMS", orderColumn: "Z_FOK_3ITEMS"))
        #expect(schema.entity(named: "SmartFolder")?.toMany["notes"] == .inverseForeignKey(table: "ZNOTE", column: "ZFOLDER", orderColumn: "Z_FOK_FOLDER", destinationName: "Note"))
    }
}
