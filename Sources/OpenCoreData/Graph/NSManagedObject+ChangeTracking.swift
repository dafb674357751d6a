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
        for slot in changedPersistentSlots() { result[layout.properties[slot].name] = read(slot: slot) ?? NSNull() }
        return result
    }

    /// Whether any persistent property differs from its last fetched or saved value.
    public var hasPersistentChangedValues: Bool {
        guard !faultFlag, let state else { return false }
        let layout = state.layout
        for slot in 0..<layout.count where !layout.isTransient[slot] && differsFromCommitted(slot: slot) { return true }
        return false
    }

    /// The slots of the persistent properties whose value differs from the last fetched or saved
    /// one: only slots written since are compared. Empty for a fault.
    func changedPersistentSlots() -> [Int] {
        guard !faultFlag, let state else { return [] }
        let layout = state.layout
        var slots: [Int] = []
        for slot in 0..<layout.count where !layout.isTransient[slot] && differsFromCommitted(slot: slot) { slots.append(slot) }
        return slots
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
                result[property.name] = (committed[property.name] as? NSManagedObjectID).map { context.object(with: $0) } ?? NSNull()
            case is NSAttributeDescription:
                result[property.name] = committed[property.name] ?? NSNull()
            default:
                break
            }
        }
        return result
    }

    /// The properties changed since the context last processed pending changes, with their values
    /// before that event (`NSNull` for nil).
    public func changedValuesForCurrentEvent() -> [String: Any] {
        // Checked: the old values of to-many relationships are worked out here, in the state.
        checkConcurrency("changedValuesForCurrentEvent()")
        var result: [String: Any] = [:]
        let layout = self.layout
        state?.materializeListLogs()
        for change in eventChanges {
            let key = layout.properties[change.slot].name
            let old = change.old.any()
            if layout.kinds[change.slot] == .toMany, let relationship = layout.properties[change.slot] as? NSRelationshipDescription {
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
        guard let slot = slot(forKey: property.name) else { return false }
        return differsFromCommitted(slot: slot)
    }

    /// ``differsFromCommitted(_:)`` by slot. A slot not written since the values were loaded or
    /// saved is unchanged without comparing.
    func differsFromCommitted(slot: Int) -> Bool {
        guard let state else { return false }
        let committed = state.committedSnapshot
        if committed != nil && !state.changed.contains(slot) { return false }
        let layout = state.layout
        switch layout.kinds[slot] {
        case .toMany:
            let name = layout.properties[slot].name
            if isToManyFault(name) { return false }
            let current = toManyList(at: slot).objects.map(\.objectID)
            guard let committed else { return !current.isEmpty }
            let old = committed.toMany[name] ?? []
            let relationship = unsafeDowncast(layout.properties[slot], to: NSRelationshipDescription.self)
            return relationship.isOrdered ? current != old : Set(current) != Set(old)
        case .toOne:
            let current = state.values[slot].destinationID
            guard let committed else { return current != nil }
            return current != committed[layout.properties[slot].name] as? NSManagedObjectID
        case .attribute:
            let current = state.values[slot]
            guard let committed else { return !current.isNone }
            let old = committed.layout === layout ? committed.slots[slot] : SlotValue(committed[layout.properties[slot].name])
            // Values loaded or set keep their attribute's Swift type: compare those directly.
            if let same = current.sameCaseEqual(old) { return !same }
            let currentValue = current.any(), oldValue = old.any()
            if let currentValue, let oldValue, let same = ValueComparison.sameTypeEqual(currentValue, oldValue) { return !same }
            return !ValueComparison.isEqualConstant(currentValue, oldValue)
        }
    }
}
