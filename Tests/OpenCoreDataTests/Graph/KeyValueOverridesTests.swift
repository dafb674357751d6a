import Foundation
import Testing
@testable import OpenCoreData

/// A typed subclass that overrides nothing validation reads through.
class PlainGauge: NSManagedObject {
    var level: Int64? {
        get { managedValue(forKey: "level") }
        set { setManagedValue(newValue, forKey: "level") }
    }
    var label: String? {
        get { managedValue(forKey: "label") }
        set { setManagedValue(newValue, forKey: "label") }
    }
    /// A method of its own: a new vtable entry, not an override.
    func describeLevel() -> String { "\(level ?? -1)" }
}

/// A subclass of a plain one, still overriding nothing.
final class PlainerGauge: PlainGauge {}

/// One subclass per method validation reads through, each overriding only that method.
final class GaugeOverridingValue: PlainGauge {
    override func value(forKey key: String) -> Any? { key == "level" ? Int64(99) : super.value(forKey: key) }
}
class GaugeOverridingValueThrowing: PlainGauge {
    override func valueThrowing(forKey key: String) throws -> Any? { try super.valueThrowing(forKey: key) }
}
final class GaugeOverridingValidateValue: PlainGauge {
    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        if key == "label", value as? String == "bad" {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError, userInfo: [NSValidationKeyErrorKey: key])
        }
        try super.validateValue(&value, forKey: key)
    }
}
/// Counts the access hooks (`value(forKey:)` runs them around each read).
final class GaugeCountingAccess: PlainGauge {
    var accesses = 0
    override func willAccessValue(forKey key: String?) { accesses += 1 }
}
final class GaugeOverridingDidAccess: PlainGauge {
    override func didAccessValue(forKey key: String?) {}
}
/// Inherits an override from its superclass.
final class GaugeInheritingAnOverride: GaugeOverridingValueThrowing {}

/// Validation reads an object's values from its slots when its class overrides none of the
/// methods `value(forKey:)` runs and `validateValue(_:forKey:)`, found in the class's vtable;
/// the answers are the ones those methods would give, and a class that overrides any of them
/// is read through them.
@Suite struct KeyValueOverridesTests {
    @Test func classesThatOverrideNothingAreFoundSo() {
        #expect(!KeyValueOverrides.overridesValueAccess(NSManagedObject.self))
        #expect(!KeyValueOverrides.overridesValueAccess(PlainGauge.self))
        #expect(!KeyValueOverrides.overridesValueAccess(PlainerGauge.self))
        #expect(!KeyValueOverrides.overridesValueAccess(StudentEntity.self))
    }

    @Test(arguments: [GaugeOverridingValue.self, GaugeOverridingValueThrowing.self, GaugeOverridingValidateValue.self,
                      GaugeCountingAccess.self, GaugeOverridingDidAccess.self, GaugeInheritingAnOverride.self,
                      HookedStudent.self, ValidatedPerson.self, ValidationTestObject.self] as [NSManagedObject.Type])
    func classesThatOverrideAnyOfTheMethodsAreFoundSo(_ type: NSManagedObject.Type) {
        #expect(KeyValueOverrides.overridesValueAccess(type), "\(type)")
    }

    /// `Gauge`: `level` a mandatory Int64 at most 10, `label` an optional string; the model
    /// frozen by a coordinator with an in-memory store.
    private func context(registering type: NSManagedObject.Type) throws -> NSManagedObjectContext {
        let entity = GraphTestModel.entity("Gauge")
        let level = GraphTestModel.attribute("level", .integer64AttributeType, optional: false)
        level.setValidationPredicates([NSPredicate(format: "SELF <= 10")], withValidationWarnings: ["too high"])
        entity.properties = [level, GraphTestModel.attribute("label", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        model.register(type, forEntityName: "Gauge")
        let context = GraphTestModel.context(model: model)
        _ = try context.persistentStoreCoordinator?.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        return context
    }

    /// The error codes and keys a save of one gauge with `level` and `label` gives (empty when it saves).
    private func saveErrors(_ type: NSManagedObject.Type, level: Int64?, label: String?) throws -> [String] {
        let context = try context(registering: type)
        let gauge = NSEntityDescription.insertNewObject(forEntityName: "Gauge", into: context)
        #expect(Swift.type(of: gauge) == type)
        if let typed = gauge as? PlainGauge {
            typed.level = level
            typed.label = label
        } else {
            gauge.setValue(level, forKey: "level")
            gauge.setValue(label, forKey: "label")
        }
        do {
            try context.save()
            return []
        } catch let error as NSError {
            let errors = (error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [error]
            return errors.map { "\($0.code) \($0.userInfo[NSValidationKeyErrorKey] ?? "")" }.sorted()
        }
    }

    /// A plain subclass read from its slots fails and passes exactly as `NSManagedObject` does.
    @Test func aPlainSubclassIsValidatedAsNSManagedObjectIs() throws {
        for type in [NSManagedObject.self, PlainGauge.self, PlainerGauge.self, GaugeOverridingValueThrowing.self] as [NSManagedObject.Type] {
            #expect(try saveErrors(type, level: nil, label: nil) == ["1570 level"], "\(type)")
            #expect(try saveErrors(type, level: 11, label: "x") == ["1550 level"], "\(type)")
            #expect(try saveErrors(type, level: 3, label: "bad") == [], "\(type)")
        }
    }

    /// Overrides still run at save: the value `value(forKey:)` answers is the one validated, a
    /// `validateValue(_:forKey:)` override's rule applies, and the access hooks are called.
    @Test func overridesRunAtSave() throws {
        #expect(try saveErrors(GaugeOverridingValidateValue.self, level: 3, label: "bad") == ["1550 label"])
        #expect(try saveErrors(GaugeOverridingValidateValue.self, level: 3, label: "good") == [])
        #expect(try saveErrors(GaugeOverridingValue.self, level: 3, label: nil) == ["1550 level"], "the override's 99 is validated")

        let context = try context(registering: GaugeCountingAccess.self)
        let counting = try #require(NSEntityDescription.insertNewObject(forEntityName: "Gauge", into: context) as? GaugeCountingAccess)
        counting.level = 1
        counting.accesses = 0
        try context.save()
        #expect(counting.accesses >= 2, "validation read both properties through value(forKey:)")
    }
}
