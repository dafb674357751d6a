import Foundation

/// The rows a batch delete removes and rewrites, planned over one store's snapshots with the
/// delete rules Apple's SQLite triggers apply to batch deletes:
/// - cascade: the destinations are deleted too (recursively);
/// - nullify: each surviving destination drops its link back (a to-one inverse becomes nil,
///   a to-many inverse loses the deleted object) and its version goes up; when that inverse is
///   mandatory (not optional) the whole request fails, as Apple's "Batch delete failed due to
///   mandatory … nullify inverse" does;
/// - no action: nothing (the destinations keep their link);
/// - deny: not supported for batch deletes; the request fails before anything is read
///   (`NSCoreDataError`, 134060), as Apple's does.
package struct BatchDeletePlan {
    let store: NSPersistentStore
    private var deleted: [NSManagedObjectID: ObjectSnapshot] = [:]
    private var deletedOrder: [NSManagedObjectID] = []
    private var rewritten: [NSManagedObjectID: ObjectSnapshot] = [:]
    private var rewrittenOrder: [NSManagedObjectID] = []
    private var changedKeys: [NSManagedObjectID: Set<String>] = [:]
    /// Mandatory inverses a nullify would empty, by destination: an error unless the
    /// destination is deleted too.
    private var mandatory: [NSManagedObjectID: NSRelationshipDescription] = [:]

    init(store: NSPersistentStore) {
        self.store = store
    }

    /// Deletes `ids` and everything their cascade rules reach.
    mutating func delete(_ ids: [NSManagedObjectID]) throws {
        var checked: Set<ObjectIdentifier> = []
        for entity in Set(ids.map { ObjectIdentifier($0.entity) }).compactMap({ id in ids.first { ObjectIdentifier($0.entity) == id }?.entity }) {
            try Self.checkRules(of: entity, checked: &checked)
        }
        var pending = ids
        while !pending.isEmpty {
            var seen: Set<NSManagedObjectID> = []
            let batch = pending.filter { deleted[$0] == nil && seen.insert($0).inserted }
            pending = []
            for snapshot in try store.snapshots(for: batch) where deleted[snapshot.objectID] == nil {
                let id = snapshot.objectID
                deleted[id] = snapshot
                deletedOrder.append(id)
                for relationship in id.entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) where !relationship.isTransient {
                    let destinations = try self.destinations(of: relationship, in: snapshot)
                    guard !destinations.isEmpty else { continue }
                    switch relationship.deleteRule {
                    case .cascadeDeleteRule:
                        pending += destinations
                    case .nullifyDeleteRule:
                        guard let inverse = relationship.inverseRelationship else { continue }
                        for destination in destinations { try nullify(inverse, of: destination, dropping: id) }
                    case .noActionDeleteRule, .denyDeleteRule:
                        continue
                    }
                }
            }
        }
    }

    /// The save that carries the plan out: the deleted objects' snapshots, and the surviving
    /// destinations rewritten without their links to them.
    func changes() throws -> StoreSaveChanges {
        if let (id, inverse) = mandatory.first(where: { deleted[$0.key] == nil }) {
            throw Self.mandatoryInverseError(inverse, object: id, store: store)
        }
        var changes = StoreSaveChanges()
        changes.deleted = deletedOrder.compactMap { deleted[$0] }
        for id in rewrittenOrder where deleted[id] == nil {
            guard let snapshot = rewritten[id] else { continue }
            changes.updated.append(snapshot)
            changes.changedKeys[id] = changedKeys[id]
        }
        return changes
    }

    /// The error of a nullify that would leave `object`'s mandatory `inverse` empty, in Apple's words.
    package static func mandatoryInverseError(_ inverse: NSRelationshipDescription, object id: NSManagedObjectID, store: NSPersistentStore) -> NSError {
        let kind = inverse.isToMany ? (inverse.inverseRelationship?.isToMany == true ? "MTM" : "OTM") : "OTO"
        return PersistentStoreErrors.make(NSPersistentStoreSaveError,
            "Batch delete failed due to mandatory \(kind) nullify inverse on \(inverse.entity?.name ?? "?")/\(inverse.name) (object \(id)).",
            stores: [store], userInfo: [NSAffectedObjectsErrorKey: [id]])
    }

    /// Removes `dropped` from `inverse` of `destination`.
    private mutating func nullify(_ inverse: NSRelationshipDescription, of destination: NSManagedObjectID,
                                  dropping dropped: NSManagedObjectID) throws {
        guard deleted[destination] == nil else { return }
        var snapshot: ObjectSnapshot
        if let known = rewritten[destination] {
            snapshot = known
        } else {
            guard let read = try store.snapshots(for: [destination]).first else { return }
            snapshot = read
            rewrittenOrder.append(destination)
        }
        if inverse.isToMany {
            let current = try snapshot.toMany[inverse.name] ?? store.relatedObjectIDs(for: inverse, of: destination)
            let remaining = current.filter { $0 != dropped }
            snapshot.toMany[inverse.name] = remaining
            if remaining.isEmpty, !inverse.isOptional || inverse.minCount > 0 { mandatory[destination] = inverse }
        } else {
            guard snapshot[inverse.name] as? NSManagedObjectID == dropped else {
                rewritten[destination] = snapshot
                return
            }
            snapshot[inverse.name] = nil
            if !inverse.isOptional { mandatory[destination] = inverse }
        }
        rewritten[destination] = snapshot
        changedKeys[destination, default: []].insert(inverse.name)
    }

    /// The destinations of `relationship` in `snapshot`.
    private func destinations(of relationship: NSRelationshipDescription, in snapshot: ObjectSnapshot) throws -> [NSManagedObjectID] {
        if relationship.isToMany {
            return try snapshot.toMany[relationship.name] ?? store.relatedObjectIDs(for: relationship, of: snapshot.objectID)
        }
        return (snapshot[relationship.name] as? NSManagedObjectID).map { [$0] } ?? []
    }

    /// Fails when the entity of one of `objectIDs`, or an entity their cascades reach, has a
    /// deny rule.
    package static func checkRules(of objectIDs: [NSManagedObjectID]) throws {
        var checked: Set<ObjectIdentifier> = []
        var last: NSEntityDescription?
        for id in objectIDs where id.entity !== last {
            last = id.entity
            try checkRules(of: id.entity, checked: &checked)
        }
    }

    /// Fails when `entity`, or an entity its cascades reach, has a deny rule.
    static func checkRules(of entity: NSEntityDescription, checked: inout Set<ObjectIdentifier>) throws {
        guard checked.insert(ObjectIdentifier(entity)).inserted else { return }
        for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
            switch relationship.deleteRule {
            case .denyDeleteRule:
                throw PersistentStoreErrors.make(NSCoreDataError,
                    "Delete rule is not supported for batch deletes: \(entity.name ?? "?").\(relationship.name) has the deny rule.",
                    userInfo: ["Reason": "Delete rule is not supported for batch deletes",
                               "Relationship": "\(entity.name ?? "?").\(relationship.name)"])
            case .cascadeDeleteRule:
                if let destination = relationship.destinationEntity {
                    for candidate in [destination] + destination.allSubentities { try checkRules(of: candidate, checked: &checked) }
                }
            default:
                continue
            }
        }
    }
}
