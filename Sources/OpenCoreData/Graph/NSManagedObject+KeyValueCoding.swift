extension NSManagedObject: KeyValueCoding {
    /// The value at a dotted key path (`inClass.name`, `students.@count`). Traps where a key is
    /// unknown; ``valueThrowing(forKeyPath:)`` throws instead.
    public func value(forKeyPath keyPath: String) -> Any? {
        do { return try KeyValueAccess.value(forKeyPath: keyPath, of: self) } catch { preconditionFailure("\(error)") }
    }

    /// Sets the value at a dotted key path: every key but the last is read, the last is set on
    /// the managed object reached. Traps when an intermediate value is not a managed object.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        var components = keyPath.split(separator: ".").map(String.init)
        guard let last = components.popLast() else { return }
        var target: NSManagedObject = self
        for key in components {
            guard let next = target.value(forKey: key) as? NSManagedObject else {
                preconditionFailure("setValue(_:forKeyPath:) '\(keyPath)': '\(key)' of entity \(target.entity.name ?? "?") is not a managed object")
            }
            target = next
        }
        target.setValue(value, forKey: last)
    }

    /// The values of `keys`, `NSNull` standing for nil, as Foundation's key-value coding returns
    /// them. Traps for a key that is not a property of the entity.
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        var result: [String: Any] = [:]
        for key in keys { result[key] = value(forKey: key) ?? NSNull() }
        return result
    }

    /// Sets each value of `keyedValues` with ``setValue(_:forKey:)``, `NSNull` setting nil, as
    /// Foundation's key-value coding does.
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (key, value) in keyedValues { setValue(value, forKey: key) }
    }

    /// The throwing form of ``setValue(_:forKey:)``. Not in Apple's API.
    public func setValueThrowing(_ value: Any?, forKey key: String) throws {
        guard let slot = slot(forKey: key) else {
            guard entity.propertiesByName[key] != nil else { throw unknownKey(key) }
            throw ManagedObjectAccessError.readOnlyProperty(entity: entity.name ?? "?", key: key)
        }
        checkConcurrency("setValue(_:forKey: \"\(key)\")")
        // A value that already has its attribute's Swift type is kept as it is.
        if let exactType = exactType(ofSlot: slot), let stored = SlotValue(value, exactly: exactType) {
            setExactValue(consume stored, at: slot, key: key)
            return
        }
        let layout = self.layout
        let value = ValueComparison.unwrap(value).flatMap { ValueComparison.isNSNull($0) ? nil : $0 }
        switch layout.kinds[slot] {
        case .attribute:
            // Safe: the slot's kind says it is an attribute.
            let attribute = unsafeDowncast(layout.properties[slot], to: NSAttributeDescription.self)
            if value == nil, !attribute.isOptional, ManagedValueConversion.isScalar(attribute) {
                willChangeValue(forKey: key)
                setNilValueForKey(key)
                didChangeValue(forKey: key)
                return
            }
            // A value of the wrong type or out of range is kept as given: validation reports it
            // at save (1550, 1610, 1620), as Core Data does.
            willChangeValue(forKey: key)
            setStoredValue(value.map { PropertyValueCoercion.stored($0, for: attribute) }, at: slot)
            didChangeValue(forKey: key)
        case .toMany:
            let relationship = unsafeDowncast(layout.properties[slot], to: NSRelationshipDescription.self)
            guard let objects = ManagedValueConversion.objects(in: value) else {
                throw ManagedObjectAccessError.unacceptableRelationshipValue(
                    entity: entity.name ?? "?", key: key, given: ValueComparison.typeName(value))
            }
            try replaceToMany(relationship, with: objects)
        case .toOne:
            let relationship = unsafeDowncast(layout.properties[slot], to: NSRelationshipDescription.self)
            guard value == nil || value is NSManagedObject else {
                throw ManagedObjectAccessError.unacceptableRelationshipValue(
                    entity: entity.name ?? "?", key: key, given: ValueComparison.typeName(value))
            }
            try setToOne(relationship, to: value as? NSManagedObject)
        }
    }

    // MARK: To-many proxies

    /// A live, mutable view of a to-many relationship: changes go through the context with
    /// inverse maintenance and undo. Traps when `key` is not a to-many relationship.
    ///
    /// Differs from Apple: returns a ``ManagedSet`` (Foundation's `NSMutableSet` can't be
    /// subclassed usefully on Linux) with the same method names.
    public func mutableSetValue(forKey key: String) -> ManagedSet {
        ManagedSet(owner: self, relationship: toManyRelationship(key))
    }

    /// A live, mutable view of an ordered to-many relationship. Traps when `key` is not a
    /// to-many relationship. Differs from Apple: a ``ManagedOrderedSet``.
    public func mutableOrderedSetValue(forKey key: String) -> ManagedOrderedSet {
        ManagedOrderedSet(owner: self, relationship: toManyRelationship(key))
    }

    private func toManyRelationship(_ key: String) -> NSRelationshipDescription {
        guard let property = entity.propertiesByName[key] else { preconditionFailure("\(unknownKey(key))") }
        guard let relationship = property as? NSRelationshipDescription, relationship.isToMany else {
            preconditionFailure("\(ManagedObjectAccessError.notToMany(entity: entity.name ?? "?", key: key))")
        }
        return relationship
    }

    // MARK: Typed accessors (used by the `@Managed` macro)

    /// The value of a property as `T`: numbers are converted between widths (`Int` reads an
    /// `Integer 32` attribute), to-many values cast to `Set<Sub>` or `NSOrderedSet`, and nil reads
    /// as nil for an optional `T`. Traps when the value can't be a `T`. Not in Apple's API: the
    /// `@Managed` macro's getters call it.
    ///
    /// An attribute or relationship is read as Apple's generated accessors read it: the access
    /// hooks around the stored value, not through ``value(forKey:)``.
    public func managedValue<T>(forKey key: String, as type: T.Type = T.self) -> T {
        let raw: Any?
        if let slot = slot(forKey: key) {
            checkConcurrency("\(key)")
            willAccessValue(forKey: key)
            // A loaded object's attribute stored as exactly `T`, the common case: the slot's
            // value is read from the state unretained (the object holds it, and nothing here
            // replaces it), once, without retaining the layout.
            let wanted = ObjectIdentifier(T.self)
            if let state = state.map(Unmanaged.passUnretained), let stored = state._withUnsafeGuaranteedRef({ state -> SlotValue? in
                guard !state.isFault, state.layout.kinds[slot] == .attribute else { return nil }
                let stored = state.values[slot]
                return stored.inlineType == wanted ? stored : nil
            }) {
                didAccessValue(forKey: key)
                return stored.inlineValue(as: T.self)
            }
            if layout.kinds[slot] == .attribute {
                // An attribute's value of type `T` exactly comes out of its slot unboxed.
                if state?.isFault ?? true, !layout.isTransient[slot] { fireFaultIfNeeded() }
                let stored = slotValue(at: slot)
                didAccessValue(forKey: key)
                // Called from another module (a `@Managed` accessor), this function runs
                // unspecialized: a `T?` in it would look up `Optional<T>`'s metadata at every
                // call (about 330 instructions, a seventh of W8b; see `converted`).
                if stored.inlineType == ObjectIdentifier(T.self) { return stored.inlineValue(as: T.self) }
                raw = stored.any()
            } else {
                raw = read(slot: slot)
                didAccessValue(forKey: key)
            }
        } else if let probe = entity as? KeyPathProbeEntity {
            return probe.record(key, as: T.self)
        } else {
            raw = value(forKey: key)
        }
        return converted(raw, forKey: key, as: T.self)
    }

    /// ``managedValue(forKey:as:)``'s value when it is not stored as exactly `T`. Apart, so that
    /// the accessor's common path does not look up `Optional<T>`'s metadata, which this needs
    /// and which the runtime looks up at the function's entry.
    @inline(never)
    private func converted<T>(_ raw: Any?, forKey key: String, as type: T.Type) -> T {
        // A stored value already of type `T` is taken as it is, then one cast, before the
        // general conversion, which first strips nested optionals.
        if let raw {
            if let value = ValueComparison.exact(raw, as: T.self) { return value }
            if let value = raw as? T { return value }
        }
        if let value = ManagedValueConversion.cast(raw, to: T.self) { return value }
        preconditionFailure("Property '\(key)' of entity \(entity.name ?? "?") holds \(raw == nil ? "nil" : ValueComparison.typeName(raw)), which can't be read as \(T.self)")
    }

    /// Sets a property from a typed value (an optional's nil stores nil). Not in Apple's API: the
    /// `@Managed` macro's setters call it. Traps where ``setValue(_:forKey:)`` traps.
    ///
    /// A property is set as Apple's generated setters set it: the change hooks around the
    /// stored value, not through ``setValue(_:forKey:)`` (an override of it does not run). An
    /// attribute's value of its exact Swift type (`Int64` for Integer 64…) goes into its slot
    /// unboxed; other values are converted as ``setValueThrowing(_:forKey:)`` converts them.
    public func setManagedValue<T>(_ value: T, forKey key: String) {
        if let slot = slot(forKey: key), let stored = SlotValue(inline: value) {
            // Only attributes have an exact type.
            if let exactType = exactType(ofSlot: slot), stored.inlineType == exactType {
                checkConcurrency("\(key)")
                setExactValue(consume stored, at: slot, key: key)
                return
            }
        }
        do { try setValueThrowing(ValueComparison.unwrap(value), forKey: key) } catch { preconditionFailure("\(error)") }
    }

    // MARK: Internals

    func unknownKey(_ key: String) -> KeyValueCodingError {
        .unknownKey(key: key, owner: "entity \(entity.name ?? "?")")
    }

    /// Reads a property without access hooks, firing the fault for persistent properties.
    func read(_ property: NSPropertyDescription) -> Any? {
        if let fetched = property as? NSFetchedPropertyDescription { return fetchedPropertyValue(fetched) }
        guard let slot = slot(forKey: property.name) else { return nil }
        return read(slot: slot)
    }

    /// Reads the value in `slot` without access hooks, firing the fault for persistent properties.
    @inline(__always)
    func read(slot: Int) -> Any? {
        if holdsLoadedAttribute(at: slot) { return loadedAttribute(at: slot) }
        if state?.isFault ?? true, !withLayout({ $0.isTransient[slot] }) {
            fireFaultIfNeeded()
            // The first read of a fault, as common as the others: the fast path again.
            if holdsLoadedAttribute(at: slot) { return loadedAttribute(at: slot) }
        }
        // The state exists once the fault fired (or the object is new): read its layout once.
        let layout = state?.layout ?? self.layout
        switch layout.kinds[slot] {
        case .attribute:
            return state?.values[slot].anyInPlace()
        case .toOne:
            return toOneDestination(at: slot)
        case .toMany:
            let list = toManyList(at: slot)
            return unsafeDowncast(layout.properties[slot], to: NSRelationshipDescription.self).isOrdered
                ? NSOrderedSet(array: list.objects) : list.set
        }
    }

    /// Whether `slot` is an attribute of a loaded object: the common case of ``read(slot:)``,
    /// read by ``loadedAttribute(at:)``. The state is read unretained (the object holds it,
    /// and nothing here replaces it).
    @inline(__always)
    private func holdsLoadedAttribute(at slot: Int) -> Bool {
        guard let state = state.map(Unmanaged.passUnretained) else { return false }
        return state._withUnsafeGuaranteedRef { !$0.isFault && $0.layout.kinds[slot] == .attribute }
    }

    /// The value in `slot` of the loaded object's state (``holdsLoadedAttribute(at:)``), read
    /// in place (``SlotValue/anyInPlace()``). Returned as `Any?`, not wrapped in another
    /// optional for "not loaded": unwrapping that moved the existential again.
    @inline(__always)
    private func loadedAttribute(at slot: Int) -> Any? {
        Unmanaged.passUnretained(state.unsafelyUnwrapped)._withUnsafeGuaranteedRef { state in
            state.values.withUnsafeBufferPointer { $0[slot].anyInPlace() }
        }
    }

    /// The destinations of a to-many relationship as stored (fault already fired by the caller);
    /// a relationship fault is read from the store first.
    func toManyList(_ key: String) -> ObjectList {
        guard let slot = slot(forKey: key) else { return ObjectList() }
        return toManyList(at: slot)
    }

    /// ``toManyList(_:)`` by slot.
    func toManyList(at slot: Int) -> ObjectList {
        if let list = storedValue(at: slot) as? ObjectList { return list }
        return fulfillToManyFault(layout.properties[slot].name) ?? ObjectList()
    }

    func primitiveStoredValue(forKey key: String) -> Any? {
        guard let property = entity.propertiesByName[key] else { preconditionFailure("\(unknownKey(key))") }
        return read(property)
    }

    func setPrimitiveStoredValue(_ value: Any?, forKey key: String) {
        guard let slot = slot(forKey: key) else {
            if entity.propertiesByName[key] == nil { preconditionFailure("\(unknownKey(key))") }
            return  // a fetched property: nothing to store
        }
        let value = ValueComparison.unwrap(value).flatMap { ValueComparison.isNSNull($0) ? nil : $0 }
        let layout = self.layout
        if !layout.isTransient[slot] { fireFaultIfNeeded() }
        switch layout.kinds[slot] {
        case .toMany:
            guard let objects = ManagedValueConversion.objects(in: value) else {
                preconditionFailure("\(ManagedObjectAccessError.unacceptableRelationshipValue(entity: entity.name ?? "?", key: key, given: ValueComparison.typeName(value)))")
            }
            setStoredValue(ObjectList(objects), at: slot)
        case .attribute:
            let attribute = unsafeDowncast(layout.properties[slot], to: NSAttributeDescription.self)
            setStoredValue(value.map { PropertyValueCoercion.stored($0, for: attribute) }, at: slot)
        case .toOne:
            setStoredValue(value, at: slot)
        }
    }

    /// The one place stored values change: stores the value, then records the change in the
    /// context (change tracking, the current event's old values, undo). No hooks. A to-many
    /// relationship fault is read first, so the old value is the real one.
    func setStoredValue(_ value: Any?, at slot: Int) {
        setSlotValue(SlotValue(value), at: slot)
    }

    /// Sets an attribute's value of its exact Swift type (which its type rules accept as it is)
    /// between the change hooks: the common path of ``setValueThrowing(_:forKey:)`` and
    /// ``setManagedValue(_:forKey:)``.
    private func setExactValue(_ value: consuming SlotValue, at slot: Int, key: String) {
        willChangeValue(forKey: key)
        setSlotValue(consume value, at: slot)
        didChangeValue(forKey: key)
    }

    /// ``setStoredValue(_:at:)`` of a slot's value.
    func setSlotValue(_ value: consuming SlotValue, at slot: Int) {
        // A loaded object's attribute or to-one, the common case: its state is used unretained
        // (the object holds it, and nothing here replaces it), saving the retains and releases
        // of the state and its layout that reading them as properties costs, about a third of
        // a key-value set's atomic operations.
        if let state = state.map(Unmanaged.passUnretained),
           state._withUnsafeGuaranteedRef({ !$0.isFault && $0.layout.kinds[slot] != .toMany }) {
            state._withUnsafeGuaranteedRef { state in
                state.changed.insert(slot)
                // Swapped, not copied: `value` takes the old value.
                swap(&state.values[slot], &value)
                // Read unretained: a set runs on the context's queue (see `unretainedContext`).
                unretainedContext?._withUnsafeGuaranteedRef { context in
                    // Moved out of `value` (a capture), not copied.
                    var old = SlotValue.none
                    swap(&old, &value)
                    context.recordChange(of: self, state: state, slot: slot, oldValue: consume old)
                }
            }
            return
        }
        let layout = self.layout
        if !layout.isTransient[slot] {
            fireFaultIfNeeded()
            if layout.kinds[slot] == .toMany, slotValue(at: slot).isNone { _ = fulfillToManyFault(layout.properties[slot].name) }
        }
        let old = putSlotValue(value, at: slot)
        managedObjectContext?.recordChange(of: self, slot: slot, oldValue: old)
    }

    /// Makes `change` to the list of the to-many relationship in `slot` in place and records it
    /// for change tracking as ``setStoredValue(_:at:)`` does (no hooks; a relationship fault is
    /// read first). Undo gets the inverse change, not the list as it was.
    ///
    /// The list leaves its slot while it changes, so that changing it copies nothing. Setting a
    /// changed copy, as other values are set, copied the whole list at every change (and keeping
    /// it for undo did, until undo recorded the inverse, and keeping it as the event's old value
    /// did, until the event logged the inverses: ``ListChangeLog``): adding n destinations one
    /// at a time cost O(n²).
    ///
    /// Differs from Apple: after undo of a removal from an unordered relationship the member is
    /// last in the relationship's order (the order `objectIDs(forRelationshipNamed:)` reports),
    /// not where it was. An `NSSet` has no order either.
    func changeToManyList(at slot: Int, _ change: ObjectList.Change) {
        fireFaultIfNeeded()
        var list = toManyList(at: slot)
        let state = ensuredState
        let context = managedObjectContext
        let isOrdered = (layout.properties[slot] as? NSRelationshipDescription)?.isOrdered == true
        // Dropping the slot's reference leaves `list` the only one.
        _ = exchangeSlotValue(.none, at: slot, in: state)
        // The inverse is logged when this event logs the slot's changes already (made with
        // recording suspended too: the log is read back from the list), or starts to.
        let log = state.listLog(ofSlot: slot)
        let needsInverse = log != nil || context?.undoManager != nil || context?.startsListLog(in: state, slot: slot) == true
        let inverse = needsInverse ? list.inverse(of: change, keepingPosition: isOrdered) : nil
        list.apply(change)
        // An ordered relationship is read by index (`ManagedOrderedSet`), which a list with
        // holes answers in O(n): its holes go at once (a removal costs O(n), as it did).
        if isOrdered { list.closeHoles() }
        let count = list.count
        _ = exchangeSlotValue(.other(list), at: slot, in: state)
        if let log {
            log.record(inverse)
            // A log longer than half the list becomes the list, so it holds no more entries
            // than the list has members. Working an unordered list out is one copy plus O(1) per
            // entry, paid for by the changes logged; an ordered list's positional re-insertions
            // cost O(n) each, as the removals they undo did.
            if log.count > max(8, count / 2) { state.materializeListLogs(slot: slot) }
        }
        context?.recordListChange(of: self, state: state, slot: slot, inverse: inverse)
    }

    /// ``setStoredValue(_:at:)`` by key (nothing for a key with no slot).
    func setStoredValue(_ value: Any?, forKey key: String) {
        if let slot = slot(forKey: key) { setStoredValue(value, at: slot) }
    }

    /// Puts back a value recorded for undo: the change hooks run and the change is recorded again
    /// (so that redo works).
    func restoreStoredValue(_ value: Any?, forKey key: String) {
        restoring(key) { setStoredValue(value, forKey: key) }
    }

    /// Puts back one change of a to-many relationship's list recorded for undo, as
    /// ``restoreStoredValue(_:forKey:)`` puts back a value.
    func restoreListChange(_ change: ObjectList.Change, forKey key: String) {
        guard let slot = slot(forKey: key) else { return }
        restoring(key) { changeToManyList(at: slot, change) }
    }

    /// Runs `restore` between the change hooks of `key`, then wakes the object for an undo.
    private func restoring(_ key: String, _ restore: () -> Void) {
        willChangeValue(forKey: key)
        restore()
        didChangeValue(forKey: key)
        if managedObjectContext?.undoManager?.isUndoing == true { awakeFromSnapshotEvents(.undoUpdate) }
    }
}
