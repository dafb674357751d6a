import Foundation
import OpenCoreData

/// The benchmark's model, built in code, and the Core Data schema it maps to (DESIGN decision 5).
///
/// - `Item`: ten `Integer 64` attributes `a0` … `a9` (table `ZITEM`, columns `ZA0` … `ZA9`).
/// - `Parent`: `index` (`Integer 64`); `children` ↔ `Child.parent` (to-many, cascade).
/// - `Child`: `value` (`Integer 64`); `parent` (to-one, table `ZCHILD`, column `ZPARENT`).
enum BenchModel {
    static let itemKeys = (0..<10).map { "a\($0)" }
    static let itemColumns = (0..<10).map { "ZA\($0)" }

    static func make() -> NSManagedObjectModel {
        let item = entity("Item", itemKeys.map { attribute($0) })
        let parent = entity("Parent", [attribute("index")])
        let child = entity("Child", [attribute("value")])

        let children = NSRelationshipDescription()
        children.name = "children"
        children.maxCount = 0
        children.deleteRule = .cascadeDeleteRule
        children.destinationEntity = child
        let parentRelationship = NSRelationshipDescription()
        parentRelationship.name = "parent"
        parentRelationship.maxCount = 1
        parentRelationship.destinationEntity = parent
        children.inverseRelationship = parentRelationship
        parentRelationship.inverseRelationship = children
        parent.properties += [children]
        child.properties += [parentRelationship]

        let model = NSManagedObjectModel()
        model.entities = [child, item, parent]
        return model
    }

    private static func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = "NSManagedObject"
        entity.properties = properties
        return entity
    }

    private static func attribute(_ name: String) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = .integer64AttributeType
        attribute.isOptional = true
        return attribute
    }

    /// Core Data's DDL for the model, as Apple's Core Data writes it (root entities numbered in
    /// alphabetical order: Child 1, Item 2, Parent 3). Used to build the data sets while
    /// OpenCoreData's SQLite store is not available; otherwise the store creates the schema.
    static let fallbackSchema = """
        PRAGMA journal_mode = WAL;
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Child', 0, 0), (2, 'Item', 0, 0), (3, 'Parent', 0, 0);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
        CREATE TABLE ZCHILD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZVALUE INTEGER, ZPARENT INTEGER );
        CREATE INDEX ZCHILD_ZPARENT_INDEX ON ZCHILD (ZPARENT);
        CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \(itemColumns.map { "\($0) INTEGER" }.joined(separator: ", ")) );
        CREATE TABLE ZPARENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZINDEX INTEGER );
        """
}

/// The deterministic values of the data sets, so every engine's checksum can be compared.
enum BenchValues {
    /// Attribute `k` of item `pk` in a data set of `count` items. `a0` is a permutation of
    /// `0..<count` (the indexed, sorted column of W3 and the selector of W6); `a2` is in `0..<100`.
    @inline(__always) static func item(_ pk: Int64, _ k: Int, count: Int64) -> Int64 {
        switch k {
        case 0: return (pk &* 7919) % count
        case 1: return pk % 1000
        case 2: return (pk &* 31) % 100
        case 9: return pk
        default: return pk &* Int64(k)
        }
    }

    @inline(__always) static func childValue(_ pk: Int64) -> Int64 { pk % 997 }
}
