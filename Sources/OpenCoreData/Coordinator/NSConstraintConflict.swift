/// A uniqueness-constraint conflict: objects that would share the values of a constraint.
///
/// A root context's save builds one per set of shared values (see
/// `NSManagedObjectContext+Constraints.swift`) and hands them to its merge policy.
// @unchecked Sendable: every property is immutable (the objects it names are not Sendable and
// belong to their context's queue, as in Apple).
open class NSConstraintConflict: NSObject, @unchecked Sendable {
    /// The property names of the constraint.
    public let constraint: [String]
    /// The values the conflicting objects share, by property name.
    public let constraintValues: [String: Any]
    /// The object already saved with those values, if any.
    public let databaseObject: NSManagedObject?
    /// The saved object's values, if any.
    public let databaseSnapshot: [String: Any]?
    /// The in-memory objects in conflict.
    public let conflictingObjects: [NSManagedObject]
    /// The values of each conflicting object, in the order of ``conflictingObjects``.
    public let conflictingSnapshots: [[AnyHashable: Any]]

    /// Creates a constraint conflict, as Apple's `init(constraint:databaseObject:databaseSnapshot:conflictingObjects:conflictingSnapshots:)`.
    public init(constraint contraint: [String], databaseObject: NSManagedObject?, databaseSnapshot: [String: Any]?,
                conflictingObjects: [NSManagedObject], conflictingSnapshots: [[AnyHashable: Any]]) {
        constraint = contraint
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots
        var values: [String: Any] = [:]
        for key in contraint {
            if let value = databaseSnapshot?[key] ?? conflictingObjects.first?.value(forKey: key) { values[key] = value }
        }
        constraintValues = values
        super.init()
    }
}
