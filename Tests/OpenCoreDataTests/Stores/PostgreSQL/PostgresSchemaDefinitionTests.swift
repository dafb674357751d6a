import Foundation
import Testing
import OpenCoreData
import PostgresNIO
@testable import OpenCoreDataPostgres

/// A model's tables created in a real PostgreSQL schema: Core Data's names, native types.
@Suite("PostgreSQL schema", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                    Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresSchemaDefinitionTests {
    /// `Item` with an attribute of every stored type, `Tag` ↔ many-to-many `items`, `Shelf` with
    /// `items` ↔ to-one `shelf`; `Item.name` indexed.
    static func model() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        func relationship(_ name: String, _ destination: NSEntityDescription, toMany: Bool) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            return relationship
        }
        let item = NSEntityDescription(), tag = NSEntityDescription(), shelf = NSEntityDescription()
        item.name = "Item"
        tag.name = "Tag"
        shelf.name = "Shelf"
        let tags = relationship("tags", tag, toMany: true), items = relationship("items", item, toMany: true)
        tags.inverseRelationship = items
        items.inverseRelationship = tags
        let onShelf = relationship("shelf", shelf, toMany: false), shelved = relationship("items", item, toMany: true)
        onShelf.inverseRelationship = shelved
        shelved.inverseRelationship = onShelf
        let types: [(String, NSAttributeType)] = [
            ("small", .integer16AttributeType), ("medium", .integer32AttributeType), ("large", .integer64AttributeType),
            ("price", .decimalAttributeType), ("score", .doubleAttributeType), ("ratio", .floatAttributeType),
            ("name", .stringAttributeType), ("flag", .booleanAttributeType), ("when", .dateAttributeType),
            ("blob", .binaryDataAttributeType), ("identifier", .UUIDAttributeType), ("link", .URIAttributeType),
        ]
        let name = attribute("name", .stringAttributeType)
        item.properties = types.map { $0.0 == "name" ? name : attribute($0.0, $0.1) } + [tags, onShelf]
        item.indexes = [NSFetchIndexDescription(name: "byName", elements: [NSFetchIndexElementDescription(property: name, collationType: .binary)])]
        tag.properties = [attribute("label", .stringAttributeType), items]
        shelf.properties = [attribute("label", .stringAttributeType), shelved]
        let model = NSManagedObjectModel()
        model.entities = [item, tag, shelf]
        return model
    }

    @Test func tablesHaveCoreDatasNamesAndNativeTypes() throws {
        let schema = "schema_" + UUID().uuidString.prefix(8).lowercased()
        let definition = PostgresSchemaDefinition(model: Self.model(), schema: schema)
        let bridge = PostgresConnectionBridge(location: try PostgresStoreLocation(url: try PostgresTestServer.server().url()))
        defer { bridge.close() }
        let statements = definition.statements
        let columns: [String] = try bridge.wait { client in
            try await client.withConnection { connection in
                let logger = Logger(label: "test")
                // Twice: the second run finds everything there and changes nothing.
                for statement in statements + statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                var columns: [String] = []
                let rows = try await connection.query("""
                    SELECT table_name, column_name, data_type FROM information_schema.columns \
                    WHERE table_schema = \(schema) ORDER BY table_name, ordinal_position
                    """, logger: logger)
                for try await (table, column, type) in rows.decode((String, String, String).self) { columns.append("\(table).\(column) \(type)") }
                let indexes = try await connection.query("SELECT indexdef FROM pg_indexes WHERE schemaname = \(schema)", logger: logger)
                for try await definition in indexes.decode(String.self) { columns.append("index: \(definition)") }
                return columns
            }
        }
        let item = columns.filter { $0.hasPrefix("ZITEM.") }
        #expect(Array(item.prefix(3)) == ["ZITEM.Z_PK bigint", "ZITEM.Z_ENT integer", "ZITEM.Z_OPT integer"])
        for expected in ["ZITEM.ZSMALL smallint", "ZITEM.ZMEDIUM integer", "ZITEM.ZLARGE bigint", "ZITEM.ZPRICE numeric",
                         "ZITEM.ZSCORE double precision", "ZITEM.ZRATIO real", "ZITEM.ZNAME text", "ZITEM.ZFLAG boolean",
                         "ZITEM.ZWHEN double precision", "ZITEM.ZBLOB bytea", "ZITEM.ZIDENTIFIER uuid", "ZITEM.ZLINK text",
                         "ZITEM.ZSHELF bigint"] {
            #expect(item.contains(expected), "\(expected) in \(item)")
        }
        #expect(columns.contains { $0.hasPrefix("Z_PRIMARYKEY.Z_MAX bigint") })
        #expect(columns.contains { $0.hasPrefix("Z_METADATA.Z_PLIST bytea") })
        let joinTables = Set(columns.filter { $0.hasPrefix("Z_") && $0.contains("TAGS") }.map { String($0.prefix { $0 != "." }) })
        #expect(joinTables.count == 1)
        // The fetch index on Item.name, nulls first as compiled fetches sort, and the join
        // table's reverse index.
        #expect(columns.contains { $0.hasPrefix("index: ") && $0.contains("ZITEM") && $0.contains("(\"ZNAME\" NULLS FIRST)") },
                "\(columns.filter { $0.hasPrefix("index") })")
        #expect(columns.filter { $0.hasPrefix("index: ") && $0.contains("TAGS") && $0.contains("_INDEX") }.count == 1)
        #expect(definition.primaryKeyRows.map(\.name).sorted() == ["Item", "Shelf", "Tag"])
    }
}
