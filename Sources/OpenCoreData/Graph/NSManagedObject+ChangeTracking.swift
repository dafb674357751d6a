/// What changed in an object since it was last read or saved.
///
/// Values in these dictionaries follow Core Data: attributes as their values, to-one
/// relationships as the destination object, to-many as `Set<NSManagedObject>` (`NSOrderedSet`
/// when ordered), and nil as `NSNull`.
extension NSManagedObject {
    /// The persistent properties whose current value differs from the last fetched or saved one,
    /// with their new values. For a new object: every persistent property that has a value.
    public func changedValues() -> [String: Any] {
        guard !faultFlag else { return [:] }
        var result: [String: Any] = [:]
        for property in entity.properties where !property.isTransient && !(property is NSFetchedPropertyDescription) {
            if differsFromCommitted(property) { result[property.name] = read(property) ?? NSNull() }
        }
        return result
    }

    /// Whether any persistent property differs from its last fetched or saved value.
    public var hasPersistentChangedValues: Bool {
        guard !faultFlag else { return false }
        return entity.properties.contains { property in
            !property.isTransient && !(property is NSFetchedPropertyDescription) && differsFromCommitted(property)
        }
    }

    /// The last fetched or saved values of `keys` (all persistent properties when nil); empty for
    /// an object that was never saved.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        guard let committed = committedSnapshot, let context = managedObjectContext else { return [:] }
        let properties = keys.map { $0.compactMap { entity.propertiesByName[$0] } }
            ?? entity.properties.filter { !$0.isTransient && !($0 is NSFetchedPropertyDescription) }
        var result: [String: Any] = [:]
        for property in properties where !property.isTransient {
            switch property {
            case let relationship as NSRelationshipDescription where relationship.isToMany:
                let ids = committed.toMany[relationship.name] ?? fulfillToManyFault(relationship.name)?.objects.map(\.objectID) ?? []
                let objects = ids.map { context.object(with: $0) }
                result[relationship.name] = relationship.isOrdered ? NSOrderedSet(array: objects) : Set(objects)
            case is NSRelationshipDescription:
                result[property.name] = (committed.values[property.name] as? NSManagedObjectID).map { context.object(with: $0) } ?? NSNull()
            case is NSAttributeDescription:
                result[property.name] = committed.values[property.name] ?? NSNull()
            default:
                break
            }
        }
        return result
    }

    /// The properties changed since the context last processed pending changes, with their values
    /// before that event (`NSNull` for nil).
    public func changedValuesForCurrentEvent() -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, old) in eventChanges {
            if let relationship = entity.relationshipsByName[key], relationship.isToMany {
                let list = (old as? ObjectList) ?? ObjectList()
                result[key] = relationship.isOrdered ? NSOrderedSet(array: list.objects) : list.set
            } else {
                result[key] = ValueComparison.unwrap(old) ?? NSNull()
            }
        }
        return result
    }

    /// Whether the current value of `property` differs from the committed snapshot (a new
    /// object counts every value as changed).
    func differsFromCommitted(_ property: NSPropertyDescription) -> Bool {
        let committed = committedSnapshot
        switch property {
        case let relationship as NSRelationshipDescription where relationship.isToMany:
            if isToManyFault(relationship.name) { return false }
            let current = toManyList(relationship.name).objects.map(\.objectID)
            guard let committed else { return !current.isEmpty }
            let old = committed.toMany[relationship.name] ?? []
            return relationship.isOrdered ? current != old : Set(current) != Set(old)
        case is NSRelationshipDescription:
            let current = (storage[property.name] as? NSManagedObject)?.objectID
            guard let committed else { return current != nil }
            return current != committed.values[property.name] as? NSManagedObjectID
        default:
            let current = storage[property.name]
            guard let committed else { return current != nil }
            let old = committed.values[property.name]
            // Values loaded or set keep their attribute's Swift type: compare those directly.
            if let current, let old, let same = ValueComparison.sameTypeEqual(current, old) { return !same }
            return !ValueComparison.isEqualConstant(current, old)
        }
    }
}
