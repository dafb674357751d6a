/// Undo and redo of the context's changes.
///
/// Every recorded change registers its inverse on ``NSManagedObjectContext/undoManager``: an
/// attribute or relationship value (per object and side, so inverses come back too), an
/// insertion, a deletion. Registrations made between two `processPendingChanges()` calls form one
/// event group, which `processPendingChanges()` closes.
extension NSManagedObjectContext {
    /// Processes pending changes, then undoes the last event group.
    public func undo() {
        checkConcurrency("undo()")
        guard let undoManager else { return }
        processPendingChanges()
        undoManager.undo()
        settleAfterUndo()
    }

    /// Processes pending changes, then redoes the last undone group.
    public func redo() {
        checkConcurrency("redo()")
        guard let undoManager else { return }
        processPendingChanges()
        undoManager.redo()
        settleAfterUndo()
    }

    /// After undo or redo: objects back at their committed values are no longer updated, and
    /// the change notification is posted (without a new undo group).
    private func settleAfterUndo() {
        for object in updatedList where !object.hasPersistentChangedValues && !hasTransientChanges(object) {
            updatedList.remove(object)
            eventUpdated.remove(object)
        }
        pendingDeletions.removeAll()
        dropDeletedInsertions()
        postObjectsDidChange()
    }

    private func hasTransientChanges(_ object: NSManagedObject) -> Bool {
        let layout = object.layout
        return object.eventChanges.contains { layout.isTransient[$0.slot] }
    }

    /// Undoes an insertion: the object leaves the inserted list and the registry; redo inserts it
    /// again. When the object was saved since, undoing its insertion deletes it.
    func undoInsertion(of object: NSManagedObject) {
        if object.hasCommittedSnapshot || object.faultFlag {
            if !deletedList.contains(object) { markDeleted(object) }
            object.awakeFromSnapshotEvents(.undoInsertion)
            return
        }
        insertedList.remove(object)
        updatedList.remove(object)
        if !eventInserted.remove(object) { eventDeleted.insert(object) }
        registry.remove(object, id: object.objectID)
        undoManager?.registerUndo(withTarget: self) { context in context.insert(object) }
        object.awakeFromSnapshotEvents(.undoInsertion)
    }

    /// Records a change of `slot` for undo and change tracking (called after the value
    /// changed, with the value before).
    func recordChange(of object: NSManagedObject, slot: Int, oldValue: consuming SlotValue) {
        guard let state = object.state else { return }
        recordChange(of: object, state: state, slot: slot, oldValue: oldValue)
    }

    /// ``recordChange(of:slot:oldValue:)`` given the object's state (passed on unretained by a
    /// caller that holds it).
    func recordChange(of object: NSManagedObject, state: ManagedObjectState, slot: Int, oldValue: consuming SlotValue) {
        // A to-one destination kept as its ID (see `NSManagedObject.keptDestination(_:)`) is
        // recorded as its object (the event's old value and undo give objects), read before
        // the state lets go of it: the slot no longer keeps that ID.
        if case .objectID(let id) = oldValue, state.layout.kinds[slot] == .toOne {
            let kept = recordingSuspended == 0 ? object.keptDestination(id) : nil
            state.heldDestination = nil
            if let kept { oldValue = .object(kept) }
        }
        guard recordingSuspended == 0 else { return }
        // The old value moves into the event's list; undo gets a copy, when an undo manager
        // records, registered after the event's change as before.
        if let undoManager {
            let forUndo = copy oldValue
            recordEventChange(of: object, state: state, slot: slot, oldValue: oldValue)
            let key = object.layout.properties[slot].name
            undoManager.registerUndo(withTarget: object) { object in object.restoreStoredValue(forUndo.any(), forKey: key) }
        } else {
            recordEventChange(of: object, state: state, slot: slot, oldValue: oldValue)
        }
        noteChanged(object, state: state)
    }

    /// ``recordChange(of:slot:oldValue:)`` for one change of a to-many relationship's list
    /// (``NSManagedObject/changeToManyList(at:_:)``): the event's first change of the slot starts
    /// its ``ListChangeLog`` with `inverse`, and undo gets `inverse`, the change that puts the
    /// list back, not the list as it was. (`inverse` is nil when the change changed nothing, or
    /// when neither the event nor an undo manager asked for it.)
    func recordListChange(of object: NSManagedObject, state: ManagedObjectState, slot: Int, inverse: ObjectList.Change?) {
        guard recordingSuspended == 0 else { return }
        if !state.hasEventChange(ofSlot: slot) {
            if state.eventSlots.isEmpty { eventTouched.append(object) }
            state.recordEventChange(slot: slot, log: ListChangeLog(inverse))
        }
        if let undoManager, let inverse {
            let key = object.layout.properties[slot].name
            undoManager.registerUndo(withTarget: object) { object in object.restoreListChange(inverse, forKey: key) }
        }
        noteChanged(object, state: state)
    }

    /// Lists `object`, just changed, among the updated objects (unless it is inserted or
    /// deleted). The first change of an object in an event looks it up in the lists (deleted,
    /// registered, inserted); until one of them changes (``listEpoch``), further changes of it
    /// skip the lookups.
    @inline(__always)
    private func noteChanged(_ object: NSManagedObject, state: ManagedObjectState) {
        if state.listedEpoch == listEpoch { return }
        guard !deletedList.contains(object), registry[object.objectID] === object else { return }
        // An object inserted in an earlier event and changed in this one is reported updated
        // by this event's notification, as Apple does; it is not among `updatedObjects`.
        if !eventInserted.contains(object) { eventUpdated.insert(object) }
        if !insertedList.contains(object) { updatedList.insert(object) }
        state.listedEpoch = listEpoch
    }

    /// Whether ``recordListChange(of:state:slot:inverse:)`` will start a log of `slot` of the
    /// object whose state is `state`: for the event's first change of it.
    func startsListLog(in state: ManagedObjectState, slot: Int) -> Bool {
        recordingSuspended == 0 && !state.hasEventChange(ofSlot: slot)
    }

    /// Adds `slot`'s old value to the event's changes of `object` unless this event changed the
    /// slot already (nil is read as NSNull).
    @inline(__always)
    private func recordEventChange(of object: NSManagedObject, state: ManagedObjectState, slot: Int, oldValue: consuming SlotValue) {
        guard !state.hasEventChange(ofSlot: slot) else { return }
        if state.eventSlots.isEmpty { eventTouched.append(object) }
        state.recordEventChange(slot: slot, old: oldValue)
    }
}
