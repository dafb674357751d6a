import Foundation
import OpenCoreData

/// The fixed model the store targets open their input with, and the seeds written with it.
public enum FuzzFixtures {
    /// Version 1 of CoreDataPlus's `SampleModel` (Tests/Fixtures/CoreDataPlus, MIT licence),
    /// the model Apple's Core Data wrote `SampleModel_V1.sqlite` with: inheritance
    /// Car → SportCar → ExpensiveSportCar, Person ↔ cars, transformable, UUID and date attributes.
    public static let modelContents = #"""
<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23E224" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="1">
    <entity name="Car" representedClassName="Car" syncable="YES">
        <attribute name="color" optional="YES" attributeType="Transformable" valueTransformerName="ColorTransformer" customClassName="Color"/>
        <attribute name="currentDrivingSpeed" optional="YES" transient="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
        <attribute name="maker" optional="YES" attributeType="String"/>
        <attribute name="markedForDeletionAsOf" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
        <attribute name="model" optional="YES" attributeType="String"/>
        <attribute name="numberPlate" attributeType="String"/>
        <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
        <uniquenessConstraints>
            <uniquenessConstraint>
                <constraint value="numberPlate"/>
            </uniquenessConstraint>
        </uniquenessConstraints>
    </entity>
    <entity name="ExpensiveSportCar" representedClassName="ExpensiveSportCar" parentEntity="SportCar" syncable="YES">
        <attribute name="isLimitedEdition" optional="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
    </entity>
    <entity name="Person" representedClassName="Person" syncable="YES">
        <attribute name="firstName" optional="YES" attributeType="String"/>
        <attribute name="id" attributeType="UUID" usesScalarValueType="NO" preserveAfterDeletion="YES"/>
        <attribute name="isDriving" transient="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
        <attribute name="lastName" optional="YES" attributeType="String"/>
        <attribute name="updatedAt" attributeType="Date" usesScalarValueType="NO"/>
        <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
        <uniquenessConstraints>
            <uniquenessConstraint>
                <constraint value="firstName"/>
                <constraint value="lastName"/>
            </uniquenessConstraint>
        </uniquenessConstraints>
    </entity>
    <entity name="SportCar" representedClassName="SportCar" parentEntity="Car" syncable="YES"/>
</model>
"""#

    /// The model read from ``modelContents``, loaded once.
    public static func model() throws -> NSManagedObjectModel {
        try cache.withLock { cached in
            if let cached { return cached }
            let model = try FuzzReaders.withScratchFolder { folder in
                let version = folder.appendingPathComponent("SampleModel.xcdatamodel")
                try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
                try Data(modelContents.utf8).write(to: version.appendingPathComponent("contents"))
                return try NSManagedObjectModel.load(contentsOf: version)
            }
            cached = model
            return model
        }
    }

    private static let cache = FuzzModelCache()

    /// Writes seed inputs for the store and compiled-model targets into `folder`: an XML and a
    /// binary store holding a few objects of ``model()``, and the model in OpenCoreData's
    /// compiled format. Returns the files written.
    @discardableResult
    public static func writeSeeds(to folder: URL) throws -> [FuzzTarget: URL] {
        let model = try model()
        var written: [FuzzTarget: URL] = [:]
        for (target, type, name) in [(FuzzTarget.xmlStore, NSXMLStoreType, "seed.xml"),
                                     (.binaryStore, NSBinaryStoreType, "seed.binary")] {
            let url = folder.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: url)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue("Ada", forKey: "firstName")
                person.setValue("Lovelace", forKey: "lastName")
                person.setValue(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), forKey: "id")
                person.setValue(Date(timeIntervalSinceReferenceDate: 600_000_000), forKey: "updatedAt")
                for (index, entity) in ["Car", "SportCar", "ExpensiveSportCar"].enumerated() {
                    let car = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                    car.setValue("AB-\(index)", forKey: "numberPlate")
                    car.setValue("Maker \(index)", forKey: "maker")
                    car.setValue(Date(timeIntervalSinceReferenceDate: 1_000), forKey: "markedForDeletionAsOf")
                    car.setValue(person, forKey: "owner")
                    if entity == "ExpensiveSportCar" { car.setValue(true, forKey: "isLimitedEdition") }
                }
                try context.save()
            }
            written[target] = url
        }
        let compiled = folder.appendingPathComponent("seed.ocdmom")
        try CompiledModelFormat.fileData(for: model).write(to: compiled)
        written[.compiledModel] = compiled
        return written
    }
}

/// The loaded fixture model behind a lock.
final class FuzzModelCache: @unchecked Sendable {
    // `@unchecked`: `value` is only touched inside `lock`.
    private let lock = NSLock()
    private var value: NSManagedObjectModel?

    func withLock<T>(_ body: (inout NSManagedObjectModel?) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
