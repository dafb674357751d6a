import Foundation

/// The key of the migration manager in the variables a value expression is evaluated with (`$manager`).
public let NSMigrationManagerKey = "manager"
/// The key of the source instance in the variables of a value expression (`$source`).
public let NSMigrationSourceObjectKey = "source"
/// The key of the destination instance in the variables of a value expression (`$destination`).
public let NSMigrationDestinationObjectKey = "destination"
/// The key of the current entity mapping in the variables of a value expression (`$entityMapping`).
public let NSMigrationEntityMappingKey = "entityMapping"
/// The key of the current property mapping in the variables of a value expression (`$propertyMapping`).
public let NSMigrationPropertyMappingKey = "propertyMapping"
/// The key of the entity migration policy in the variables of a value expression (`$entityPolicy`).
public let NSMigrationEntityPolicyKey = "entityPolicy"

/// Customizes how the instances of one entity mapping are migrated.
///
/// The migration manager makes one policy per entity mapping (of the class the mapping's
/// ``NSEntityMapping/entityMigrationPolicyClassName`` names, else this class) and calls, in
/// three stages over all the mappings: ``begin(_:with:)``, ``createDestinationInstances(forSource:in:manager:)``
/// for each source instance and ``endInstanceCreation(forMapping:manager:)``; then
/// ``createRelationships(forDestination:in:manager:)`` for each destination instance and
/// ``endRelationshipCreation(forMapping:manager:)``; then ``performCustomValidation(forMapping:manager:)``
/// and ``end(_:manager:)``.
///
/// Differs from Apple, where `FUNCTION($entityPolicy, "selector:", …)` in a value expression sends
/// any Objective-C message to the policy: Linux has no Objective-C runtime, so a subclass answers
/// such calls by overriding ``respondsToPredicateFunction(_:)`` and
/// ``performPredicateFunction(_:arguments:)`` (the ``PredicateFunctionTarget`` protocol every
/// `FUNCTION` receiver may adopt), or by registering the selector for its class with
/// ``PredicateFunctionRegistry/register(_:on:_:)``. Swift subclasses are found by their
/// module-qualified class name (`MyApp.SplitNamePolicy`), as managed object classes are, and
/// need the `required init()` they inherit.
open class NSEntityMigrationPolicy: NSObject, PredicateFunctionTarget, @unchecked Sendable {
    // @unchecked Sendable: a policy is made and used by the one thread that runs its migration.

    /// Creates a policy. The migration manager creates policies through this initializer.
    public required override init() {
        super.init()
    }

    /// Called at the start of `mapping`, before any of its instances is created. Does nothing.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination instance(s) for `sInstance`.
    ///
    /// The default, as Apple's: one instance of the mapping's destination entity in the
    /// manager's destination context, its attributes set from the mapping's attribute mappings
    /// (value expressions evaluated with `$source`, `$destination`, `$manager`, `$entityMapping`,
    /// `$propertyMapping` and `$entityPolicy`; a nil value leaves the attribute's default), and
    /// the pair associated with ``NSMigrationManager/associate(sourceInstance:withDestinationInstance:for:)``.
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping,
                                         manager: NSMigrationManager) throws {
        let destination = try manager.newDestinationInstance(for: mapping)
        try manager.applyAttributeMappings(of: mapping, source: sInstance, destination: destination, policy: self)
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called when every instance of `mapping` was created. Does nothing.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets the relationships of `dInstance` from the mapping's relationship mappings, evaluated
    /// for the source instance associated with it (Apple's default).
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping,
                                  manager: NSMigrationManager) throws {
        try manager.applyRelationshipMappings(of: mapping, destination: dInstance, policy: self)
    }

    /// Called when the relationships of every destination instance of `mapping` were set. Does nothing.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Validates the migrated instances of `mapping` in ways the model's rules do not. Does
    /// nothing; the destination objects are validated against the destination model when the
    /// destination context saves.
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called at the end of `mapping`, after its validation stage. Does nothing.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    // MARK: FUNCTION($entityPolicy, …)

    /// Whether the policy answers `FUNCTION($entityPolicy, selector, …)`. The base class answers
    /// no selector; override it together with ``performPredicateFunction(_:arguments:)``.
    /// Not in Apple's API (see the type's discussion).
    open func respondsToPredicateFunction(_ selector: String) -> Bool { false }

    /// The result of `FUNCTION($entityPolicy, selector, arguments…)`, for a selector
    /// ``respondsToPredicateFunction(_:)`` accepts. The base class throws
    /// ``PredicateEvaluationError/unknownSelector(selector:receiverType:)``.
    open func performPredicateFunction(_ selector: String, arguments: [Any?]) throws -> Any? {
        throw PredicateEvaluationError.unknownSelector(selector: selector, receiverType: String(reflecting: Swift.type(of: self)))
    }
}

/// Finding entity migration policy classes by name.
enum MigrationPolicyClasses {
    /// The policy class `name` names (module-qualified for Swift classes), or `nil`.
    static func lookUp(_ name: String) -> NSEntityMigrationPolicy.Type? {
        ManagedObjectClasses.lookUpClass(name, as: NSEntityMigrationPolicy.self)
    }

    /// A new policy for `mapping`: of its ``NSEntityMapping/entityMigrationPolicyClassName``, else
    /// the base class. Throws `NSEntityMigrationPolicyError` (134170) naming a class that can't be found.
    static func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty,
              name != "NSEntityMigrationPolicy" else { return NSEntityMigrationPolicy() }
        guard let type = lookUp(name) else {
            throw MigrationErrors.make(
                NSEntityMigrationPolicyError,
                "The entity mapping '\(mapping.name ?? "?")' needs the entity migration policy class '\(name)', which can't be found; Swift classes must be named with their module (MyApp.\(name.split(separator: ".").last.map(String.init) ?? name)) and subclass NSEntityMigrationPolicy.",
                userInfo: ["entityMigrationPolicyClassName": name, "entityMapping": mapping.name ?? ""])
        }
        return type.init()
    }
}
