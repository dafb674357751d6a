/// Snapshots in and out of managed objects, and faults.
///
/// A fault is an object whose snapshot is not loaded. Reading or writing a persistent property
/// fires it: the context loads the snapshot from its row cache or the coordinator.
extension NSManagedObject {
    /// Loads the persistent values when the object is a fault.
    func fireFaultIfNeeded() {
        guard faultFlag, let context = managedObjectContext else { return }
        context.fulfillFault(self)
    }

    /// Replaces the persistent values with `snapshot`'s (transient values stay). To-one and
    /// to-many destinations become the context's registered objects (faults when new).
    /// A to-many relationship missing from the snapshot's `toMany` stays a relationship fault:
    /// it is read from the store (one query) the first time it is read or changed
    /// (``toManyList(_:)``).
    ///
    /// The snapshot's values become the object's as they are (one buffer, shared until the
    /// first change), so loading an object of attributes costs no per-attribute work. So do
    /// they for an entity whose one relationship is a to-one, when its destination is already
    /// registered in the context (``keptDestination(of:at:in:destinations:)``): the object keeps
    /// the destination's ID, and its state holds the object (``toOneDestination(at:)``).
    ///
    /// `defaultingTransients`: a fault holding nothing starts its transient properties at their
    /// default values (what ``NSManagedObjectContext/loadAndAwake(_:from:destinations:)`` asks on
    /// a first load). `destinations`: the to-one destinations a run of loads resolved last.
    func load(_ snapshot: consuming ObjectSnapshot, in context: NSManagedObjectContext, defaultingTransients: Bool = false,
              destinations: LastDestination? = nil) {
        // The common case, an entity of attributes loading into its state (a fault's, or a
        // loaded object's being refreshed): the state is written unretained and the snapshot
        // moved in (the general path below retained the state, the layout and the values).
        if let state = state.map(Unmanaged.passUnretained),
           state._withUnsafeGuaranteedRef({ $0.layout === snapshot.layout && $0.layout.holdsOnlyAttributes }) {
            var loaded: ObjectSnapshot? = consume snapshot
            state._withUnsafeGuaranteedRef { $0.loadAttributes(swapping: &loaded) }
            return
        }
        let layout = snapshot.layout
        var kept: KeptDestination?
        if let slot = layout.keptDestinationSlot { kept = Self.keptDestination(of: snapshot, at: slot, in: context, destinations: destinations) }
        let keepsSlots = layout.holdsOnlyAttributes || kept != nil
        guard let current = self.state else {
            // A fault holding nothing (one a fetch, a batch or a relationship made): its state
            // is made loaded, not made empty and then filled field by field.
            let values = keepsSlots
                ? snapshot.slots
                : Self.values(loading: snapshot, over: defaultingTransients ? layout.defaultValues : layout.emptyValues, in: context,
                              destinations: destinations)
            self.state = context.state(loading: snapshot, values: values, holding: kept?.object)
            return
        }
        // The lists logged changes stand for are worked out from the values being replaced.
        current.materializeListLogs()
        let state: ManagedObjectState
        if current.layout === layout {
            state = current
        } else {
            state = ManagedObjectState(isFault: true, layout: layout)
            state.didAwakeFromInsert = current.didAwakeFromInsert
            // Relayout first: the event's changes are recorded by slot.
            current.relayout(to: layout)
            state.eventChanges = current.eventChanges
            state.values = current.values
            self.state = state
        }
        if keepsSlots {
            state.values = snapshot.slots
        } else {
            state.values = Self.values(loading: snapshot, over: state.values, in: context, destinations: destinations)
        }
        state.heldDestination = kept?.object
        state.changed.removeAll()
        state.fetchedSnapshot = nil
        state.committedSnapshot = snapshot
        state.isFault = false
        // Tested first: assigning a literal builds an empty dictionary even when it replaces one.
        if !state.fetchedPropertyResults.isEmpty { state.fetchedPropertyResults = [:] }
    }

    /// What an object loading `snapshot` keeps of its to-one destination, in `slot` (the
    /// entity's one relationship, ``EntityLayout/keptDestinationSlot``).
    enum KeptDestination {
        /// The snapshot names no destination.
        case none
        /// The destination, registered in the context: the object holds it while its slot keeps
        /// the ID.
        case object(NSManagedObject)

        /// The destination to hold, if any.
        var object: NSManagedObject? {
            if case .object(let object) = self { object } else { nil }
        }
    }

    /// What an object loading `snapshot` keeps of the to-one destination in `slot` when it keeps
    /// the snapshot's values as they are, the destination as its ID; nil when the destination
    /// must be resolved into a slot buffer of the object's own (``values(loading:over:in:destinations:)``).
    ///
    /// Resolving needed that buffer, written slot by slot: one more allocation a row, in a
    /// prefetch of children that name their parent. A destination already registered in
    /// `context` under a permanent ID is kept as its ID in the slot, and held by the state
    /// (``ManagedObjectState/heldDestination``), so that the object holds its destination
    /// as Core Data's objects do (and as a resolved slot does). A destination not registered
    /// yet is made a fault by resolving, as before: the memo of a run of loads
    /// (``LastDestination``) then finds it for the rows that follow. Temporary IDs (a parent
    /// context's new objects) change when the object is saved, so they are resolved. Only in a
    /// plain context: a subclass's override of ``NSManagedObjectContext/object(with:)`` is
    /// called for every destination.
    private static func keptDestination(of snapshot: borrowing ObjectSnapshot, at slot: Int, in context: NSManagedObjectContext,
                                        destinations: LastDestination?) -> KeptDestination? {
        // Matched in place: matching `snapshot.slots[slot]` copied the value out first (about
        // 70 instructions a row, the copy and its release).
        let (isNone, id) = snapshot.slots.withUnsafeBufferPointer { slots -> (Bool, NSManagedObjectID?) in
            if case .objectID(let id) = slots[slot] { return (false, id) }
            return (slots[slot].isNone, nil)
        }
        guard let id else { return isNone ? KeptDestination.none : nil }
        guard !id.isTemporaryID, type(of: context) == NSManagedObjectContext.self else { return nil }
        let registered = destinations.map { $0.registeredObject(with: id, slot: slot, in: context) } ?? context.registry[id]
        return registered.map(KeptDestination.object)
    }

    /// The values an object holding `current` has once `snapshot` (of its layout) is loaded:
    /// the snapshot's attributes, its to-one and to-many destinations as objects of `context`
    /// (nil: a to-many relationship not loaded), and the transient values of `current`.
    ///
    /// Built slot by slot into a buffer of their own: writing the destinations into the
    /// snapshot's buffer, which its row shares, first copied all of it (through the runtime
    /// when slot buffers were `ContiguousArray`s, about 500 instructions for a row of four slots).
    private static func values(loading snapshot: borrowing ObjectSnapshot, over current: SlotValues,
                               in context: NSManagedObjectContext, destinations: LastDestination?) -> SlotValues {
        let layout = snapshot.layout
        let count = layout.count
        return snapshot.slots.withUnsafeBufferPointer { loaded in
            SlotValues(count: count) { values in
                for slot in 0..<count {
                    let value: SlotValue
                    if layout.isTransient[slot] {
                        value = current[slot]
                    } else {
                        switch layout.kinds[slot] {
                        case .attribute:
                            value = loaded[slot]
                        case .toOne:
                            value = loaded[slot].objectID.map { id in
                                .object(destinations?.object(with: id, slot: slot, in: context) ?? context.object(with: id))
                            } ?? loaded[slot]
                        case .toMany:
                            value = snapshot.toMany[layout.properties[slot].name].map { ids in
                                .other(ObjectList(ids.map { context.object(with: $0) }))
                            } ?? .none
                        }
                    }
                    (values + slot).initialize(to: value)
                }
            }
        }
    }

    /// Drops the persistent values and becomes a fault (hooks around). A fault left with no
    /// transient values drops its whole state, so it is as small as a fresh fault.
    func turnIntoFault(keepingTransients: Bool = true) {
        willTurnIntoFault()
        let dropsState = state.map { !$0.didAwakeFromInsert && (!keepingTransients || $0.layout.transientSlots.isEmpty) } ?? false
        if dropsState {
            // Nothing would be left: the whole state goes at once (what the branch below ends
            // with), not emptied field by field first.
            dropState()
        } else if let state {
            let layout = state.layout
            state.heldDestination = nil
            if keepingTransients, !layout.transientSlots.isEmpty {
                let current = state.values
                state.values = layout.emptyValues
                for slot in layout.transientSlots { state.values[slot] = current[slot] }
            } else {
                state.values = layout.emptyValues
            }
            state.changed.removeAll()
            state.fetchedPropertyResults = [:]
            state.clearEventChanges()
            state.fetchedSnapshot = nil
            state.isFault = true
            if !state.didAwakeFromInsert && state.hasNoValues { dropState() }
        }
        didTurnIntoFault()
    }

    /// Drops the whole state. When nothing else holds it, the context keeps it for a fault it
    /// loads next (``NSManagedObjectContext/spareStates``).
    private func dropState() {
        guard var dropped = state else { return }
        state = nil
        guard isKnownUniquelyReferenced(&dropped), let context = unretainedContext else { return }
        context._withUnsafeGuaranteedRef { $0.recycle(dropped) }
    }

    /// The object's persistent state as a store sees it: attributes by name, to-one
    /// destinations as IDs in `values`, to-many destinations as IDs in `toMany`, and the version
    /// last read.
    ///
    /// Attribute values are taken as stored: every setter keeps values converted by
    /// ``PropertyValueCoercion/stored(_:for:)`` (and validation passed before a save), so the
    /// values are shared with the snapshot and only relationships and transient slots are
    /// rewritten.
    func persistentSnapshot() -> ObjectSnapshot {
        let layout = self.layout
        var snapshot = ObjectSnapshot(objectID: objectID, layout: layout, slots: state?.values ?? layout.emptyValues,
                                      version: committedSnapshot?.version ?? 0)
        for slot in layout.transientSlots where !snapshot.slots[slot].isNone { snapshot.slots[slot] = .none }
        for slot in layout.relationshipSlots where !layout.isTransient[slot] {
            if layout.kinds[slot] == .toMany {
                if !snapshot.slots[slot].isNone { snapshot.slots[slot] = .none }
                let name = layout.properties[slot].name
                // A relationship fault is unchanged: the store keeps what it has.
                guard !isToManyFault(name) else { continue }
                snapshot.toMany[name] = toManyList(at: slot).objects.map(\.objectID)
            } else if let destination = snapshot.slots[slot].destination {
                snapshot.slots[slot] = .objectID(destination.objectID)
            }
        }
        return snapshot
    }

    // MARK: Fetched properties

    /// The results of a fetched property, fetched on first read with `$FETCH_SOURCE` bound to the
    /// object and `$FETCHED_PROPERTY` to the description. Empty without a context or request,
    /// and when the fetch fails (the error is logged; Apple's would raise).
    func fetchedPropertyValue(_ property: NSFetchedPropertyDescription) -> [Any] {
        if let cached = fetchedPropertyResults[property.name] { return cached }
        guard let context = managedObjectContext, let template = property.fetchRequest,
              let request = template.copy() as? NSFetchRequest<NSFetchRequestResult> else { return [] }
        request.predicate = template.predicate?.withSubstitutionVariables([
            "FETCH_SOURCE": self, "FETCHED_PROPERTY": property,
        ])
        if request.entity == nil, let name = request.entityName {
            request.entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name]
        }
        // A fetch that fails (a store row it can't read, say) is logged, not cached: the
        // property reads as empty until a fetch succeeds.
        guard let results = context.reportingStoreError(firing: objectID, property: property.name, {
            try context.fetch(request).map { $0 as Any }
        }) else { return [] }
        fetchedPropertyResults[property.name] = results
        return results
    }
}
