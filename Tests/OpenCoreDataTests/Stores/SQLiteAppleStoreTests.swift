import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Stores written by Apple's Core Data (the CoreDataPlus fixtures), opened with the models that
/// wrote them — always from a copy, never in place.
@Suite struct SQLiteAppleStoreTests {
    /// A copy of a fixture store with its -wal/-shm files, in a new temporary directory.
    static func copy(_ relativePath: String) throws -> (directory: URL, store: URL) {
        let directory = try Fixtures.temporaryDirectory()
        let source = Fixtures.coreDataPlus(relativePath)
        let target = directory.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] {
            let file = URL(fileURLWithPath: source.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.copyItem(at: file, to: URL(fileURLWithPath: target.path + suffix))
            }
        }
        return (directory, target)
    }

    static func model(_ index: Int) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: Fixtures.coreDataPlus(SQLiteSchemaTests.cases[index].model))
    }

    static func count(_ coordinator: NSPersistentStoreCoordinator, _ entity: String, subentities: Bool = true) throws -> Int {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity)
        request.resultType = .countResultType
        request.includesSubentities = subentities
        guard case .count(let count) = try coordinator.executeFetch(request) else { return -1 }
        return count
    }

    @Test(arguments: [true, false])
    func sampleModelV1Opens(readOnly: Bool) throws {
        let (directory, url) = try Self.copy(SQLiteSchemaTests.cases[0].store)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model(0))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                       options: [NSReadOnlyPersistentStoreOption: readOnly])
        #expect(store.identifier == "753753D3-A961-4901-AB05-8CC48B1D3853")
        #expect(try Self.count(coordinator, "Car") == 125)
        #expect(try Self.count(coordinator, "Car", subentities: false) == 115)
        #expect(try Self.count(coordinator, "SportCar") == 10)
        #expect(try Self.count(coordinator, "ExpensiveSportCar") == 5)
        #expect(try Self.count(coordinator, "Person") == 20)

        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "firstName == %@ AND lastName == %@", "Victoria", "Coster")
        let victoria = try #require(try context.fetch(request).first)
        #expect(victoria.value(forKey: "id") as? UUID == UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115"))
        #expect((victoria.value(forKey: "updatedAt") as? Date)?.timeIntervalSinceReferenceDate == 639503569.638733)
        #expect((victoria.value(forKey: "cars") as? Set<NSManagedObject>)?.isEmpty == true)
        request.predicate = NSPredicate(format: "firstName == %@ AND lastName == %@", "Theodora", "Stone")
        let theodora = try #require(try context.fetch(request).first)
        let cars = try #require(theodora.value(forKey: "cars") as? Set<NSManagedObject>)
        #expect(cars.count == 100)
        #expect(Set(cars.compactMap { $0.value(forKey: "model") as? String }) == ["Panda"])

        let limited = NSFetchRequest<NSManagedObject>(entityName: "ExpensiveSportCar")
        limited.predicate = NSPredicate(format: "isLimitedEdition == YES")
        #expect(Set(try context.fetch(limited).compactMap { $0.value(forKey: "maker") as? String }) == ["BMW", "Mercedes-Benz"])

        if readOnly {
            victoria.setValue("Vicky", forKey: "firstName")
            #expect(throws: NSError.self) { try context.save() }
        }
    }

    @Test func sampleModelV1StaysValidAfterOurWrites() throws {
        let (directory, url) = try Self.copy(SQLiteSchemaTests.cases[0].store)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try Self.model(0)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue("Ada", forKey: "firstName")
        person.setValue("Lovelace", forKey: "lastName")
        person.setValue(UUID(), forKey: "id")
        person.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000), forKey: "updatedAt")
        let car = NSEntityDescription.insertNewObject(forEntityName: "SportCar", into: context)
        car.setValue("Ferrari", forKey: "maker")
        car.setValue("F40", forKey: "model")
        car.setValue("OCD-1", forKey: "numberPlate")
        car.setValue(person, forKey: "owner")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "lastName == %@", "Coster")
        let victoria = try #require(try context.fetch(request).first)
        victoria.setValue("Vic", forKey: "firstName")
        try context.save()

        try SQLiteStoreTests.inspect(url) { (db: Database) throws in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            let rows = try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            #expect(rows.map { "\($0["Z_NAME"] as String)=\($0["Z_MAX"] as Int)" } == ["Car=126", "SportCar=0", "ExpensiveSportCar=0", "Person=21"])
            #expect(try Int.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ZCAR") == 126)
            #expect(try Int.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ZPERSON") == 21)
            #expect(try Int.fetchOne(db, sql: "SELECT Z_OPT FROM ZPERSON WHERE ZLASTNAME = 'Coster'") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT Z_ENT FROM ZCAR WHERE ZNUMBERPLATE = 'OCD-1'") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT ZOWNER FROM ZCAR WHERE ZNUMBERPLATE = 'OCD-1'") == 21)
            let plist = try #require(try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
            let metadata = try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
            #expect(metadata["NSStoreType"] as? String == "SQLite")
            #expect(metadata["NSStoreModelVersionHashes"] != nil)
        }
        // And it opens again.
        let again = NSPersistentStoreCoordinator(managedObjectModel: model)
        try again.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect(try Self.count(again, "Person") == 21)
    }

    @Test func otherFixturesOpen() throws {
        for (index, expected) in [(1, ["Car": 125, "Person": 20]), (2, ["User": 12])] {
            let (directory, url) = try Self.copy(SQLiteSchemaTests.cases[index].store)
            defer { try? FileManager.default.removeItem(at: directory) }
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model(index))
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSReadOnlyPersistentStoreOption: true])
            for (entity, count) in expected { #expect(try Self.count(coordinator, entity) == count, "\(entity)") }
        }
    }

    @Test func aDifferentSchemaIsIncompatible() throws {
        let (directory, url) = try Self.copy(SQLiteSchemaTests.cases[0].store)
        defer { try? FileManager.default.removeItem(at: directory) }
        // V1's store with V2's model: Car lost `color` and Person lost `id`.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model(1))
        do {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSReadOnlyPersistentStoreOption: true])
            Issue.record("opening V1 with the V2 model must fail")
        } catch let error as NSError {
            #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
            #expect(error.localizedDescription.contains("ZCAR") || error.localizedDescription.contains("ZPERSON"), "\(error.localizedDescription)")
        }
        // Ignoring versioning opens it anyway.
        let lenient = NSPersistentStoreCoordinator(managedObjectModel: try Self.model(1))
        try lenient.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                       options: [NSReadOnlyPersistentStoreOption: true, NSIgnorePersistentStoreVersioningOption: true])
    }

    @Test func aFileThatIsNotAStoreIsCorrupt() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("junk.sqlite")
        try Data("this is not a database, just text long enough to be read".utf8).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model(0))
        do {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            Issue.record("junk must not open")
        } catch let error as NSError {
            #expect(error.code == NSFileReadCorruptFileError)
            #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
        }
    }
}
