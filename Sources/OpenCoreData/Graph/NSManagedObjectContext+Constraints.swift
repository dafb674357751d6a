import Foundation

/// Uniqueness constraints at save: a root context's save finds the objects that would share
/// the values of a constraint (with each other, or with a row already in a store) and hands them
/// to the merge policy as ``NSConstraintConflict``s before anything is written.
///
/// A constraint declared on an entity holds across that entity and its subentities. Objects
/// with a nil value in a constraint never conflict (as SQLite's unique indexes, which Apple's
/// stores use). A child context's save does not check: constraints are checked where the
/// changes reach a store, as in Apple.
extension NSManagedObjectContext {
    /// Objects sharing one constraint's values, and the key those values make.
    private struct ConstraintGroup {
        let constraint: UniquenessConstraint
        let values: [Any]
        var objects: [NSManagedObject]
    }

    /// Checks the pending changes against every uniqueness constraint, has the merge policy
    /// resolve the conflicts, and checks again (a bounded number of times) until none is left.
    ///
    /// The error policy fails with `NSManagedObjectConstraintMergeError` (133021) listing the
    /// conflicts under `NSPersistentStoreSaveConflictsErrorKey`.
    func resolveConstraintConflicts() throws {
        guard parentBacking == nil, let coordinator = coordinatorStorage,
              coordinator.managedObjectModel.entities.contains(where: { !$0.uniquenessConstraints.isEmpty }) else { return }
        for _ in 0...Self.maximumConflictResolutions {
            let conflicts = try constraintConflicts(in: coordinator)
            if conflicts.isEmpty { return }
            try mergePolicyObject.resolve(constraintConflicts: conflicts)
            processPendingChanges()
        }
        throw NSMergePolicy.constraintError(try constraintConflicts(in: coordinator))
    }

    /// The constraint conflicts of the pending inserts and updates, in the order of the
    /// constraints and then of the objects.
    func constraintConflicts(in coordinator: NSPersistentStoreCoordinator) throws -> [NSConstraintConflict] {
        var groups: [[AnyHashable]: ConstraintGroup] = [:]
        var order: [[AnyHashable]] = []
        var constraintsByEntity: [ObjectIdentifier: [UniquenessConstraint]] = [:]
        func add(_ object: NSManagedObject, onlyChanged: Bool) {
            let entity = object.entity
            let constraints = constraintsByEntity[ObjectIdentifier(entity)] ?? {
                let found = UniquenessConstraint.all(of: entity)
                constraintsByEntity[ObjectIdentifier(entity)] = found
                return found
            }()
            guard !constraints.isEmpty else { return }
            let changed = onlyChanged ? Set(object.changedValues().keys) : []
            let snapshot = object.persistentSnapshot()
            for constraint in constraints {
                if onlyChanged, !constraint.names.contains(where: changed.contains) { continue }
                let values = constraint.names.map { snapshot[$0] }
                guard values.allSatisfy({ $0 != nil }) else { continue }
                let key = constraint.key(values.map { $0! })
                if groups[key] == nil {
                    groups[key] = ConstraintGroup(constraint: constraint, values: values.map { $0! }, objects: [])
                    order.append(key)
                }
                groups[key]?.objects.append(object)
            }
        }
        for object in insertedList.objects { add(object, onlyChanged: false) }
        for object in updatedList.objects where !object.faultFlag { add(object, onlyChanged: true) }
        guard !groups.isEmpty else { return [] }

        // The stored rows holding each group's values, one fetch per constraint and chunk.
        var stored: [[AnyHashable]: [NSManagedObjectID]] = [:]
        var byConstraint: [[AnyHashable]: [ConstraintGroup]] = [:]
        var constraintOrder: [[AnyHashable]] = []
        for key in order {
            guard let group = groups[key] else { continue }
            let id = group.constraint.identity
            if byConstraint[id] == nil { constraintOrder.append(id) }
            byConstraint[id, default: []].append(group)
        }
        for id in constraintOrder {
            guard let list = byConstraint[id], let constraint = list.first?.constraint else { continue }
            for (key, snapshots) in try constraint.storedSnapshots(matching: list.map(\.values), fetch: coordinator.executeFetch) {
                stored[key] = snapshots.map(\.objectID)
            }
        }
        var conflicts: [NSConstraintConflict] = []
        for key in order {
            guard let group = groups[key] else { continue }
            let members = Set(group.objects.map(\.objectID))
            // Rows whose object this context deletes, or changed away from these values, are
            // no conflict: the save removes or rewrites them.
            let databaseID = (stored[key] ?? []).first { id in
                guard !members.contains(id) else { return false }
                guard let object = registry[id] else { return true }
                if deletedList.contains(object) { return false }
                let snapshot = object.persistentSnapshot()
                return object.faultFlag || group.constraint.key(group.constraint.names.map { snapshot[$0] ?? NSNull() }) == key
            }
            guard group.objects.count > 1 || databaseID != nil else { continue }
            let databaseObject = databaseID.map { object(with: $0) }
            databaseObject?.fireFaultIfNeeded()
            conflicts.append(NSConstraintConflict(
                constraint: group.constraint.names, databaseObject: databaseObject,
                databaseSnapshot: databaseObject?.committedSnapshot?.values,
                conflictingObjects: group.objects,
                conflictingSnapshots: group.objects.map { object in
                    var values: [AnyHashable: Any] = [:]
                    for (name, value) in object.persistentSnapshot().values { values[name] = value }
                    return values
                }))
        }
        return conflicts
    }

    // MARK: Resolution

    /// Applies a built-in policy to one constraint conflict: one object survives (the stored
    /// one when there is one, else the first conflicting object), takes the others'
    /// relationships, and the others are deleted.
    ///
    /// Object trump and overwrite copy the others' attribute values onto the survivor (the
    /// changed ones for object trump, all for overwrite; later objects win), so the stored row
    /// is updated; store trump and rollback keep the survivor's values. Differs from Apple only
    /// where Apple's choice is undocumented: which in-memory object survives, and the order in
    /// which several objects' values are applied.
    func resolveConstraintConflict(_ conflict: NSConstraintConflict, as type: NSMergePolicyType) {
        let objects = conflict.conflictingObjects.filter { $0.managedObjectContext === self && !deletedList.contains($0) }
        let survivor: NSManagedObject
        if let stored = conflict.databaseObject, stored.managedObjectContext === self, !deletedList.contains(stored) {
            survivor = stored
        } else if let first = objects.first {
            survivor = first
        } else {
            return
        }
        let objectWins = type == .mergeByPropertyObjectTrumpMergePolicyType || type == .overwriteMergePolicyType
        let constrained = Set(conflict.constraint)
        for loser in objects where loser !== survivor {
            // Object trump takes what the object set (all it has, for a new object); overwrite all.
            let changed = type == .overwriteMergePolicyType ? nil : Set(loser.changedValues().keys)
            for property in loser.entity.properties where !property.isTransient && !constrained.contains(property.name) {
                guard survivor.entity.propertiesByName[property.name] != nil else { continue }
                let key = property.name
                switch property {
                case let relationship as NSRelationshipDescription where relationship.isToMany:
                    let destinations = ManagedValueConversion.objects(in: loser.value(forKey: key)) ?? []
                    guard !destinations.isEmpty else { continue }
                    let existing = ManagedValueConversion.objects(in: survivor.value(forKey: key)) ?? []
                    let merged = existing + destinations.filter { d in !existing.contains { $0 === d } }
                    loser.setValue(relationship.isOrdered ? NSOrderedSet() : Set<NSManagedObject>(), forKey: key)
                    survivor.setValue(relationship.isOrdered ? NSOrderedSet(array: merged) : Set(merged), forKey: key)
                case is NSRelationshipDescription:
                    guard let destination = loser.value(forKey: key) as? NSManagedObject else { continue }
                    let take = objectWins || survivor.value(forKey: key) == nil
                    loser.setValue(nil, forKey: key)
                    if take { survivor.setValue(destination, forKey: key) }
                default:
                    guard objectWins, changed?.contains(key) ?? true else { continue }
                    survivor.setValue(loser.value(forKey: key), forKey: key)
                }
            }
            delete(loser)
        }
    }
}
