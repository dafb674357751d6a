import Foundation
import Testing
@testable import OpenCoreData

/// The CoreDataPlus fixture stores, written by Apple's Core Data, migrated through their own
/// model versions: V1 → V2 with the inferred mapping (the entity `ExpensiveSportCar` renamed
/// `LuxuryCar` by its renaming identifier) and V2 → V3 with the `V2toV3` mapping model, read
/// from Xcode's `.xcmappingmodel` and from the Apple-compiled `.cdm`, whose custom entity
/// policy (``V2to3MakerPolicy``) turns each car's `maker` string into a `Maker` object.
@Suite struct FixtureMigrationTests {
    static let folder = Fixtures.coreDataPlus("SampleModel/Fixtures")
    static let mappingFiles = [Fixtures.coreDataPlus("SampleModel/MappingModels/V2toV3.xcmappingmodel"),
                               Fixtures.coreDataPlus("SampleModel/Fixtures/V2toV3.cdm")]

    static func version(_ name: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel.appendingPathComponent("\(name).xcdatamodel"))
    }

    /// Copies the fixture store `name` (with its `-wal` and `-shm`) into `folder`.
    static func copyStore(_ name: String, to folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        for suffix in ["", "-wal", "-shm"] {
            let source = Self.folder.appendingPathComponent(name + suffix)
            if FileManager.default.fileExists(atPath: source.path) {
                try FileManager.default.copyItem(at: source, to: URL(fileURLWithPath: url.path + suffix))
            }
        }
        return url
    }

    /// The `V2toV3` mapping model at `url`, its policy class name made findable.
    ///
    /// The fixture names the policy `REPLACE_AT_RUNTIME.V2to3MakerPolicy`, a placeholder its
    /// authors replace at run time with the module of the test target (no runtime, Apple's or
    /// ours, can find a class by that name). A porting user does the same: sets
    /// `entityMigrationPolicyClassName` to the module-qualified Swift name,
    /// `String(reflecting: V2to3MakerPolicy.self)`, which our lookup finds (Linux has no
    /// Objective-C class table, so an unqualified name is never found).
    static func mapping(_ url: URL) throws -> NSMappingModel {
        let mapping = try NSMappingModel.load(contentsOf: url)
        for entityMapping in mapping.entityMappings
        where entityMapping.entityMigrationPolicyClassName == "REPLACE_AT_RUNTIME.V2to3MakerPolicy" {
            entityMapping.entityMigrationPolicyClassName = String(reflecting: V2to3MakerPolicy.self)
        }
        return mapping
    }

    static func openStore(_ url: URL, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        try MigrationTestModels.open(.sqlite, at: url, model: model)
    }

    // MARK: What the stores hold

    /// One car as the tests compare it: every stored attribute, its entity and its owner.
    struct CarRow: Hashable, CustomStringConvertible {
        var plate: String, entity: String, maker: String?, model: String?, owner: String?
        var limitedEdition: Bool?, deletion: Date?
        var description: String { "\(entity) \(plate) \(maker ?? "-") \(model ?? "-") \(owner ?? "-") \(limitedEdition.map(String.init) ?? "-")" }
    }

    struct PersonRow: Hashable {
        var name: String, updatedAt: Date?, plates: [String]
    }

    static func name(of person: NSManagedObject?) -> String? {
        guard let person else { return nil }
        return "\(person.value(forKey: "firstName") as? String ?? "") \(person.value(forKey: "lastName") as? String ?? "")"
    }

    /// Every car (subentities included); `renamed` maps source entity names to destination ones.
    static func cars(in context: NSManagedObjectContext, renamed: [String: String] = [:]) throws -> Set<CarRow> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Car")
        return Set(try context.fetch(request).map { car in
            let entity = car.entity.name ?? ""
            let hasFlag = car.entity.attributesByName["isLimitedEdition"] != nil
            return CarRow(plate: car.value(forKey: "numberPlate") as? String ?? "", entity: renamed[entity] ?? entity,
                          maker: car.entity.attributesByName["maker"] != nil ? car.value(forKey: "maker") as? String : nil,
                          model: car.value(forKey: "model") as? String, owner: name(of: car.value(forKey: "owner") as? NSManagedObject),
                          limitedEdition: hasFlag ? (car.value(forKey: "isLimitedEdition") as? Bool ?? false) : nil,
                          deletion: car.value(forKey: "markedForDeletionAsOf") as? Date)
        })
    }

    static func people(in context: NSManagedObjectContext) throws -> Set<PersonRow> {
        Set(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map { person in
            let cars = person.value(forKey: "cars") as? Set<NSManagedObject> ?? []
            return PersonRow(name: name(of: person) ?? "", updatedAt: person.value(forKey: "updatedAt") as? Date,
                             plates: cars.compactMap { $0.value(forKey: "numberPlate") as? String }.sorted())
        })
    }

    // MARK: V1 → V2, inferred

    /// Migrates the V1 fixture (copied into `folder`) to V2 with the inferred mapping and
    /// checks every value; returns the migrated store's URL.
    @discardableResult
    static func migrateV1ToV2(in folder: URL) throws -> URL {
        let url = try copyStore("SampleModel_V1.sqlite", to: folder)
        let v1 = try version("SampleModel"), v2 = try version("SampleModel2")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let (carsBefore, peopleBefore): (Set<CarRow>, Set<PersonRow>) = try {
            let context = try openStore(url, model: v1)
            defer { removeStores(of: context) }
            return (try cars(in: context, renamed: ["ExpensiveSportCar": "LuxuryCar"]), try people(in: context))
        }()
        #expect(carsBefore.count == 125)
        #expect(peopleBefore.count == 20)
        #expect(carsBefore.filter { $0.entity == "LuxuryCar" }.count == 5)
        #expect(carsBefore.filter { $0.entity == "SportCar" }.count == 5)

        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let luxury = try #require(mapping.entityMappings.first { $0.destinationEntityName == "LuxuryCar" })
        #expect(luxury.sourceEntityName == "ExpensiveSportCar", "the renaming identifier matches the renamed entity")
        try MigrationRunner.migrate(storeAt: url, type: NSSQLiteStoreType, options: nil, from: v1, to: v2, mapping: nil)

        let migrated = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: migrated))
        #expect(migrated[NSStoreUUIDKey] as? String == metadata[NSStoreUUIDKey] as? String)
        let context = try openStore(url, model: v2)
        defer { removeStores(of: context) }
        let carsAfter = try cars(in: context)
        #expect(carsAfter.count == carsBefore.count)
        #expect(carsAfter == carsBefore, "\(carsAfter.symmetricDifference(carsBefore).sorted { $0.plate < $1.plate })")
        #expect(try people(in: context) == peopleBefore)
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "LuxuryCar")) == 5)
        return url
    }

    static func removeStores(of context: NSManagedObjectContext) {
        guard let coordinator = context.persistentStoreCoordinator else { return }
        for store in coordinator.persistentStores { try? coordinator.remove(store) }
    }

    @Test func v1MigratesToV2WithTheInferredMapping() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.migrateV1ToV2(in: folder)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("migrating") }.isEmpty)
    }

    // MARK: V2 → V3, mapping model and custom policy

    /// Migrates the V2 store at `url` to V3 with the mapping model at `mappingURL` and checks
    /// what the mapping and the policy made.
    static func migrateV2ToV3(_ url: URL, mappingURL: URL) throws {
        let v2 = try version("SampleModel2"), v3 = try version("SampleModel3")
        let (carsBefore, peopleBefore): (Set<CarRow>, Set<PersonRow>) = try {
            let context = try openStore(url, model: v2)
            defer { removeStores(of: context) }
            return (try cars(in: context), try people(in: context))
        }()
        #expect(carsBefore.count == 125)
        let mapping = try mapping(mappingURL)
        #expect(mapping.fits(sourceModel: v2, destinationModel: v3))
        try MigrationRunner.migrate(storeAt: url, type: NSSQLiteStoreType, options: nil, from: v2, to: v3, mapping: mapping)

        let context = try openStore(url, model: v3)
        defer { removeStores(of: context) }
        // The cars keep their values, without the `maker` string V3 dropped.
        let carsAfter = try cars(in: context)
        #expect(carsAfter == Set(carsBefore.map { var car = $0; car.maker = nil; return car }))
        #expect(try people(in: context) == peopleBefore)

        // The policy made one Maker per maker name, holding that maker's cars.
        let makerOf = Dictionary(uniqueKeysWithValues: carsBefore.map { ($0.plate, $0.maker) })
        let makers = try MigrationTestModels.fetch("Maker", in: context, sortedBy: "name")
        #expect(makers.count == 10)
        #expect(makers.map { $0.value(forKey: "name") as? String ?? "" }
                == Set(carsBefore.compactMap(\.maker)).sorted())
        var carsMade = 0
        for maker in makers {
            let name = maker.value(forKey: "name") as? String
            let cars = maker.value(forKey: "cars") as? Set<NSManagedObject> ?? []
            carsMade += cars.count
            for car in cars {
                #expect(makerOf[car.value(forKey: "numberPlate") as? String ?? ""] == name)
                #expect(car.value(forKey: "createdBy") as? NSManagedObject == maker)
            }
        }
        #expect(carsMade == 125)
        #expect(makers.first { $0.value(forKey: "name") as? String == "FIAT" }.map { ($0.value(forKey: "cars") as? Set<NSManagedObject>)?.count } == 103)

        // previousOwners (from `$source.owner`) and previousCars (from `$source.cars`).
        var owned = 0
        for car in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car")) {
            let previous = car.value(forKey: "previousOwners") as? Set<NSManagedObject> ?? []
            if let owner = car.value(forKey: "owner") as? NSManagedObject {
                owned += 1
                #expect(previous == [owner])
                #expect((owner.value(forKey: "previousCars") as? Set<NSManagedObject>)?.contains(car) == true)
            } else {
                #expect(previous.isEmpty)
            }
        }
        #expect(owned == 118)
        // The migrated store saves with the V3 model (uniqueness constraints, inverses).
        makers.first?.setValue("--FIAT--", forKey: "name")
        try context.save()
    }

    @Test(arguments: mappingFiles)
    func v2FixtureMigratesToV3WithTheMappingModel(_ mappingURL: URL) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.copyStore("SampleModel_V2.sqlite", to: folder)
        try Self.migrateV2ToV3(url, mappingURL: mappingURL)
    }

    @Test(arguments: mappingFiles)
    func v1MigratesToV2ThenToV3(_ mappingURL: URL) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.migrateV1ToV2(in: folder)
        try Self.migrateV2ToV3(url, mappingURL: mappingURL)
    }

    /// Without the class name rewritten, the placeholder class can't be found: 134170 naming
    /// it, and the store is as it was.
    @Test func thePlaceholderPolicyClassIsNamedInTheError() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try Self.copyStore("SampleModel_V2.sqlite", to: folder)
        let before = MigrationTestModels.bytes(url)
        let mapping = try NSMappingModel.load(contentsOf: Self.mappingFiles[1])
        let error = try #require(throws: NSError.self) {
            try MigrationRunner.migrate(storeAt: url, type: NSSQLiteStoreType, options: nil, from: try Self.version("SampleModel2"),
                                        to: try Self.version("SampleModel3"), mapping: mapping)
        }
        #expect(error.code == NSEntityMigrationPolicyError)
        #expect(error.localizedDescription.contains("REPLACE_AT_RUNTIME.V2to3MakerPolicy"))
        #expect(MigrationTestModels.bytes(url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["SampleModel_V2.sqlite"])
    }
}

/// The fixture's custom policy for the car mappings: after the default instance creation, links
/// each car to the `Maker` named by the source car's `maker` string, making one `Maker` per name
/// (kept in the manager's `userInfo` so no fetch is needed).
final class V2to3MakerPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                             manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let makerName = sInstance.value(forKey: "maker") as? String,
              let car = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first
        else { return }
        var makers = manager.userInfo?["makers"] as? [String: NSManagedObject] ?? [:]
        let maker = makers[makerName] ?? {
            let maker = NSEntityDescription.insertNewObject(forEntityName: "Maker", into: manager.destinationContext)
            maker.setValue(makerName, forKey: "name")
            return maker
        }()
        makers[makerName] = maker
        var userInfo = manager.userInfo ?? [:]
        userInfo["makers"] = makers
        manager.userInfo = userInfo
        maker.mutableSetValue(forKey: "cars").add(car)
    }
}
