import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPostgres

/// ID fetches on the PostgreSQL store: one entity's keys come back as one array value
/// (``SQLFetchStatements/postgresPrimaryKeyArray(_:entity:schema:model:)``), an entity with
/// subentities' IDs as rows with their entity numbers, in the request's order either way.
@Suite("PostgreSQL store: ID fetches", .enabled(if: PostgresTestServer.unavailableReason == nil,
                                                Comment(rawValue: PostgresTestServer.unavailableReason ?? "")))
struct PostgresObjectIDFetchTests {
    @Test func anIDRequestOfOneEntityIsOneArrayOfKeys() throws {
        let model = SQLTestModel.make()
        func request(_ name: String, subentities: Bool) -> NSFetchRequest<NSFetchRequestResult> {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: name)
            request.resultType = .managedObjectIDResultType
            request.includesSubentities = subentities
            return request
        }
        let schema = PostgresCompiledFetchTests.schema
        let item = try #require(model.entitiesByName["Item"]), special = try #require(model.entitiesByName["SpecialItem"])
        let array = try #require(SQLFetchStatements.postgresPrimaryKeyArray(request("Item", subentities: false), entity: item, schema: schema, model: model))
        #expect(array.sql.hasPrefix("SELECT ARRAY(SELECT t0.\"Z_PK\" FROM"), "\(array.sql)")
        #expect(SQLFetchStatements.postgresPrimaryKeyArray(request("SpecialItem", subentities: true), entity: special, schema: schema, model: model) != nil)
        #expect(SQLFetchStatements.postgresPrimaryKeyArray(request("Item", subentities: true), entity: item, schema: schema, model: model) == nil,
                "rows of two entities need their entity numbers")
        let objects = request("Tag", subentities: true)
        objects.resultType = .managedObjectResultType
        #expect(SQLFetchStatements.postgresPrimaryKeyArray(objects, entity: try #require(model.entitiesByName["Tag"]), schema: schema, model: model) == nil)
    }

    @Test func idFetchesReturnTheRightEntitiesInTheRequestsOrder() throws {
        PostgresStore.registerStoreClass()
        let url = try PostgresRemoteChangeTests.freshURL()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SQLTestModel.make())
        try coordinator.addPersistentStore(type: NSPersistentStore.StoreType(rawValue: NSPostgreSQLStoreType), at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            var items: [NSManagedObject] = [], specials: [NSManagedObject] = []
            for index in 0..<6 {
                let special = index % 3 == 2
                let object = NSEntityDescription.insertNewObject(forEntityName: special ? "SpecialItem" : "Item", into: context)
                object.setValue("item \(index)", forKey: "name")
                if special { specials.append(object) } else { items.append(object) }
            }
            try context.save()
            // Results come in primary-key order when nothing else is asked for.
            items.sort { $0.objectID.primaryKey! < $1.objectID.primaryKey! }
            specials.sort { $0.objectID.primaryKey! < $1.objectID.primaryKey! }

            func ids(_ name: String, subentities: Bool = true, sort: [OpenCoreData.NSSortDescriptor] = [], limit: Int = 0, offset: Int = 0) throws -> [NSManagedObjectID] {
                let request = NSFetchRequest<NSManagedObjectID>(entityName: name)
                request.resultType = .managedObjectIDResultType
                request.includesSubentities = subentities
                request.sortDescriptors = sort
                request.fetchLimit = limit
                request.fetchOffset = offset
                return try context.fetch(request)
            }
            let all = (items + specials).sorted { $0.objectID.primaryKey! < $1.objectID.primaryKey! }.map(\.objectID)
            #expect(try ids("Item") == all, "rows of both entities")
            #expect(try ids("Item", subentities: false) == items.map(\.objectID))
            #expect(try ids("Item", subentities: false).allSatisfy { $0.entity.name == "Item" })
            #expect(try ids("SpecialItem") == specials.map(\.objectID))
            #expect(try ids("SpecialItem").allSatisfy { $0.entity.name == "SpecialItem" })
            let descending = [OpenCoreData.NSSortDescriptor(key: "name", ascending: false)]
            let byName = items.sorted { ($0.value(forKey: "name") as! String) > ($1.value(forKey: "name") as! String) }.map(\.objectID)
            #expect(try ids("Item", subentities: false, sort: descending, limit: 2, offset: 1) == Array(byName[1...2]))
            #expect(try ids("Tag").isEmpty, "an empty array has no dimensions")

            // A walk with fetchBatchSize starts from the array of keys.
            let walk = NSFetchRequest<NSManagedObject>(entityName: "Item")
            walk.includesSubentities = false
            walk.fetchBatchSize = 2
            #expect(try context.fetch(walk).map(\.objectID) == items.map(\.objectID))
        }
    }
}
