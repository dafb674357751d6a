/// How a merge policy resolves conflicts, with Apple's raw values.
public enum NSMergePolicyType: UInt, Sendable {
    /// The save fails with `NSManagedObjectMergeError` (133020) listing the conflicts.
    case errorMergePolicyType = 0x00
    /// Per property: the store's changes win over the object's.
    case mergeByPropertyStoreTrumpMergePolicyType = 0x01
    /// Per property: the object's changes win over the store's.
    case mergeByPropertyObjectTrumpMergePolicyType = 0x02
    /// The object's whole state overwrites the store's.
    case overwriteMergePolicyType = 0x03
    /// The store's state wins: the object's changes are discarded.
    case rollbackMergePolicyType = 0x04
}

/// A policy that resolves the conflicts a save finds, as a context's ``NSManagedObjectContext/mergePolicy``.
///
/// A save whose objects changed in their backing (the store, through `Z_OPT` or an atomic
/// store's row version) since the context read them hands the conflicts to the context's merge
/// policy. The error policy fails the save; the others change the objects (per property, wholly,
/// or by discarding their changes) and the save goes on with the store's current versions.
/// Subclass and override ``resolve(optimisticLockingConflicts:)`` (call `super` to get the
/// built-in behaviour of ``mergeType``) to resolve conflicts yourself.
///
/// Differences from Apple: the class is immutable and `Sendable`, so that the predefined
/// policies can be global constants in Swift 6 (`NSErrorMergePolicy` and the others are typed
/// `NSMergePolicy`, not `Any`).
// @unchecked Sendable: the only state is the immutable `mergeType`; subclasses that add mutable
// state must guard it themselves.
open class NSMergePolicy: NSObject, @unchecked Sendable {
    /// The kind of resolution this policy applies.
    public let mergeType: NSMergePolicyType

    /// Creates a policy of the given type.
    public init(merge ty: NSMergePolicyType) {
        mergeType = ty
        super.init()
    }

    /// The error policy (the default): conflicts fail the save.
    open class var error: NSMergePolicy { NSErrorMergePolicy }
    /// Per property, the store's changes win.
    open class var mergeByPropertyStoreTrump: NSMergePolicy { NSMergeByPropertyStoreTrumpMergePolicy }
    /// Per property, the object's changes win.
    open class var mergeByPropertyObjectTrump: NSMergePolicy { NSMergeByPropertyObjectTrumpMergePolicy }
    /// The object's state overwrites the store's.
    open class var overwrite: NSMergePolicy { NSOverwriteMergePolicy }
    /// The store's state wins; the object's changes are discarded.
    open class var rollback: NSMergePolicy { NSRollbackMergePolicy }

    /// Resolves every conflict of a save: ``NSMergeConflict``s go to
    /// ``resolve(optimisticLockingConflicts:)`` and ``NSConstraintConflict``s to
    /// ``resolve(constraintConflicts:)``. Throwing fails the save with that error.
    open func resolve(mergeConflicts list: [Any]) throws {
        let locking = list.compactMap { $0 as? NSMergeConflict }
        let constraints = list.compactMap { $0 as? NSConstraintConflict }
        if !locking.isEmpty { try resolve(optimisticLockingConflicts: locking) }
        if !constraints.isEmpty { try resolve(constraintConflicts: constraints) }
    }

    /// Resolves optimistic-locking conflicts as ``mergeType`` says.
    ///
    /// - error: throws `NSManagedObjectMergeError` (133020) with the list under
    ///   `NSPersistentStoreSaveConflictsErrorKey`;
    /// - store trump: each property the store changed takes the store's value; the object's
    ///   other changes stay;
    /// - object trump: each property the object changed keeps the object's value; the others
    ///   take the store's;
    /// - overwrite: the object's whole state is written over the store's;
    /// - rollback: the object takes the store's state and loses its changes.
    ///
    /// Each object then counts as having read the store's current version, so the save goes on.
    /// An object deleted in the store (``NSMergeConflict/newVersionNumber`` 0) stays deleted
    /// under store trump and rollback (it leaves the context); object trump and overwrite
    /// insert it again with the object's state. An object the context deleted is deleted
    /// anyway, except under rollback, which brings it back with the store's values.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        if mergeType == .errorMergePolicyType { throw Self.mergeError(list) }
        for conflict in list {
            guard let object = conflict.sourceObject, let context = object.managedObjectContext else { continue }
            context.resolveConflict(conflict, of: object, as: mergeType)
        }
    }

    /// Resolves uniqueness-constraint conflicts (objects that would share the values of a
    /// constraint, with each other or with a stored row) as ``mergeType`` says.
    ///
    /// - error: throws `NSManagedObjectConstraintMergeError` (133021) with the list under
    ///   `NSPersistentStoreSaveConflictsErrorKey`;
    /// - object trump and overwrite: the stored object (or, with none, the first conflicting
    ///   object) survives and takes the others' values (changed ones for object trump, all for
    ///   overwrite), so the stored row is updated in place;
    /// - store trump and rollback: the survivor keeps its values.
    ///
    /// In every case the survivor takes the others' relationships and the others are deleted,
    /// so one save ends with one object per set of values.
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        if mergeType == .errorMergePolicyType { throw Self.constraintError(list) }
        for conflict in list {
            let context = conflict.databaseObject?.managedObjectContext
                ?? conflict.conflictingObjects.lazy.compactMap(\.managedObjectContext).first
            context?.resolveConstraintConflict(conflict, as: mergeType)
        }
    }

    /// `NSManagedObjectConstraintMergeError` (133021) for `conflicts`.
    static func constraintError(_ conflicts: [NSConstraintConflict]) -> NSError {
        let described = conflicts.map { conflict in
            let values = conflict.constraint.map { "\($0) = \(conflict.constraintValues[$0].map { "\($0)" } ?? "nil")" }
            let entity = (conflict.databaseObject ?? conflict.conflictingObjects.first)?.entity.name ?? "?"
            return "\(entity) (\(values.joined(separator: ", ")))" + (conflict.databaseObject != nil ? " already stored" : "")
        }
        return NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectConstraintMergeError, userInfo: [
            NSLocalizedDescriptionKey: "Could not merge changes: \(conflicts.count) uniqueness constraint conflict(s): \(described.joined(separator: "; ")).",
            NSPersistentStoreSaveConflictsErrorKey: conflicts,
        ])
    }

    /// `NSManagedObjectMergeError` (133020) for `conflicts`.
    static func mergeError(_ conflicts: [NSMergeConflict]) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectMergeError, userInfo: [
            NSLocalizedDescriptionKey: "Could not merge changes: \(conflicts.count) object(s) changed since they were read (\(conflicts.map { $0.sourceObjectID.description }.joined(separator: ", "))).",
            NSPersistentStoreSaveConflictsErrorKey: conflicts,
            NSAffectedObjectsErrorKey: conflicts.map(\.sourceObjectID),
        ])
    }

    open override var description: String { "<NSMergePolicy \(mergeType)>" }
}

/// The error merge policy (the default). Differs from Apple: typed `NSMergePolicy`, not `Any`.
public let NSErrorMergePolicy = NSMergePolicy(merge: .errorMergePolicyType)
/// The per-property, store-wins merge policy.
public let NSMergeByPropertyStoreTrumpMergePolicy = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
/// The per-property, object-wins merge policy.
public let NSMergeByPropertyObjectTrumpMergePolicy = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
/// The policy under which the object's state overwrites the store's.
public let NSOverwriteMergePolicy = NSMergePolicy(merge: .overwriteMergePolicyType)
/// The policy under which the store's state wins and the object's changes are discarded.
public let NSRollbackMergePolicy = NSMergePolicy(merge: .rollbackMergePolicyType)
