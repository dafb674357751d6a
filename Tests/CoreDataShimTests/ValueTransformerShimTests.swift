// Value transformers as Apple's code declares and registers them, with Foundation and CoreData
// imported side by side: fails to compile if a transformer name becomes ambiguous or unusable.
import Foundation
import CoreData
import Testing

/// Apple's sample pattern: a secure unarchiving transformer with its own allowed classes and name.
final class PointListTransformer: NSSecureUnarchiveFromDataTransformer {
    static let name = NSValueTransformerName(rawValue: String(describing: PointListTransformer.self))

    override static var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSNumber.self] }

    static func register() {
        ValueTransformer.setValueTransformer(PointListTransformer(), forName: name)
    }
}

/// A reversible transformer of its own, as libraries write them.
final class UppercaseTransformer: ValueTransformer {
    static let name = NSValueTransformerName("UppercaseTransformer")
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? { (value as? String).map { Data($0.uppercased().utf8) } }
    override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).map { String(decoding: $0, as: UTF8.self) } }
}

/// Registers its transformers in `init()`, as a library's base test class does in `setUp()`.
@Suite struct ValueTransformerShimTests {
    let container: NSPersistentStoreCoordinator

    init() throws {
        PointListTransformer.register()
        ValueTransformer.setValueTransformer(UppercaseTransformer(), forName: UppercaseTransformer.name)

        let shape = NSEntityDescription()
        shape.name = "Shape"
        let points = NSAttributeDescription()
        points.name = "points"
        points.attributeType = .transformableAttributeType
        points.valueTransformerName = PointListTransformer.name.rawValue
        points.attributeValueClassName = "NSArray"
        let label = NSAttributeDescription()
        label.name = "label"
        label.attributeType = .transformableAttributeType
        label.valueTransformerName = UppercaseTransformer.name.rawValue
        shape.properties = [points, label]
        let model = NSManagedObjectModel()
        model.entities = [shape]
        container = NSPersistentStoreCoordinator(managedObjectModel: model)
        try container.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
    }

    @Test func registeredTransformersAreUsedByManagedObjects() throws {
        #expect(ValueTransformer(forName: PointListTransformer.name) is PointListTransformer)
        #expect(ValueTransformer.valueTransformerNames().contains(UppercaseTransformer.name))
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = container
        let shape = NSEntityDescription.insertNewObject(forEntityName: "Shape", into: context)
        shape.setValue([1, 2.5, 3] as [Any], forKey: "points")
        shape.setValue("square", forKey: "label")
        try context.save()
        context.reset()

        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shape"))
        #expect(fetched.count == 1)
        let values = try #require(fetched.first?.value(forKey: "points") as? [Any])
        #expect(values.count == 3 && values[0] as? Int == 1 && values[1] as? Double == 2.5)
        #expect(fetched.first?.value(forKey: "label") as? String == "SQUARE", "transformed on save, reversed on read")

        let secure = try #require(ValueTransformer(forName: PointListTransformer.name))
        #expect(secure.reverseTransformedValue(["not": "allowed"]) == nil, "a dictionary is not among PointListTransformer's allowed classes")
    }
}
