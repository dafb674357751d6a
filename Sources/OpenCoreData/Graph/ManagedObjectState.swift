/// The state of a managed object that a fault does without: values, the committed snapshot,
/// the current event's old values and fetched-property results.
///
/// Kept in one side object so that a fault (an ID and a context) stays small: walking a million
/// objects with `fetchBatchSize` keeps a million faults alive in the result array.
///
/// The hot properties are `@exclusivity(unchecked)`: the runtime's exclusivity check (a
/// thread-local access set, about a tenth of an insert's instructions) only finds overlapping
/// accesses on one thread, and these are only touched on the context's queue, through short
/// accesses that never overlap.
final class ManagedObjectState {
    /// Where each property's value is in ``values``.
    @exclusivity(unchecked) private(set) var layout: EntityLayout
    /// Current values by slot (see ``NSManagedObject/storedValue(at:)``); loaded from a snapshot
    /// they share its buffer until the first change.
    @exclusivity(unchecked) var values: SlotValues
    /// The slots written since the values were last loaded or saved (a superset of those that
    /// differ from ``committedSnapshot``).
    @exclusivity(unchecked) var changed = ChangedSlots()
    /// The snapshot last read from or saved to a store.
    @exclusivity(unchecked) var committedSnapshot: ObjectSnapshot?
    /// Whether there is a ``committedSnapshot``, matched in place (not copied out).
    var hasCommittedSnapshot: Bool {
        if case .some = committedSnapshot { return true }
        return false
    }
    /// Old values of the slots changed in the current event: those that held a value in the
    /// order first changed, then those that held none, by slot.
    /// Setting it recomputes ``eventSlots``; a change recorded one at a time goes through
    /// ``recordEventChange(slot:old:)``, which updates them in place.
    var eventChanges: [EventChange] {
        get {
            guard eventNilSlots != 0 else { return eventChangeList }
            var all = eventChangeList
            var bits = eventNilSlots
            while bits != 0 {
                all.append(EventChange(slot: bits.trailingZeroBitCount, old: .none))
                bits &= bits - 1
            }
            return all
        }
        set {
            eventChangeList = newValue
            eventNilSlots = 0
            var slots = ChangedSlots()
            for index in newValue.indices { slots.insert(newValue[index].slot) }
            eventSlots = slots
            listLogCount = newValue.reduce(0) { $0 + ($1.listLog == nil ? 0 : 1) }
        }
    }
    /// The storage of ``eventChanges`` but for the slots of ``eventNilSlots``.
    @exclusivity(unchecked) private var eventChangeList: [EventChange] = []
    /// The slots below 63 that held no value before the current event changed them, as bits:
    /// their changes are no entries of ``eventChangeList``, so an inserted object, whose
    /// first values replace none, records them without a list to grow and destroy.
    @exclusivity(unchecked) private var eventNilSlots: UInt64 = 0
    /// The slots of ``eventChanges``, as bits (slots past 63 share one bit: scan those).
    @exclusivity(unchecked) private(set) var eventSlots = ChangedSlots()
    /// How many entries of ``eventChanges`` hold a ``ListChangeLog`` (0: no need to look).
    @exclusivity(unchecked) private(set) var listLogCount = 0
    /// The context's ``NSManagedObjectContext/listEpoch`` when a change last found the object in
    /// its inserted or updated list (0: not known): until the lists change, further changes
    /// need not look again.
    @exclusivity(unchecked) var listedEpoch: UInt64 = 0
    /// Results of fetched properties.
    var fetchedPropertyResults: [String: [Any]] = [:]
    /// The snapshot a fetch read for this fault, loaded when it fires (the fault's own entry of
    /// the context's row cache: no dictionary to look it up in).
    var fetchedSnapshot: ObjectSnapshot?
    /// Adds the first change of a slot in the current event (the caller checked ``eventSlots``).
    @inline(__always)
    func recordEventChange(slot: Int, old: consuming SlotValue) {
        eventSlots.insert(slot)
        // Matched by consuming it: testing the case first (`isNone`) copied the value.
        switch consume old {
        case .none where slot < 63:
            eventNilSlots |= 1 << UInt64(slot)
        case let old:
            // Room for a change of every slot (up to 16) at once: an object changed in one
            // event often changes all its values, and growing 4 → 8 → 16 reallocated twice.
            if eventChangeList.isEmpty { eventChangeList.reserveCapacity(min(max(layout.count, 4), 16)) }
            eventChangeList.append(EventChange(slot: slot, old: old))
        }
    }

    /// Whether the current event recorded a change of `slot` (``eventChanges`` not built).
    @inline(__always)
    func hasEventChange(ofSlot slot: Int) -> Bool {
        slot < 63 ? eventSlots.contains(slot) : eventChangeList.contains { $0.slot == slot }
    }

    /// Forgets the current event's changes: the event ended, or the values they were made to
    /// went. (No new list, counts or bits to build, as setting ``eventChanges`` builds them.)
    func clearEventChanges() {
        if !eventChangeList.isEmpty { eventChangeList = [] }
        eventNilSlots = 0
        eventSlots = ChangedSlots()
        listLogCount = 0
    }

    /// Adds the first change of a to-many slot in the current event as `log` (the caller
    /// checked ``eventSlots``), which stands for the list as it was: see ``ListChangeLog``.
    func recordEventChange(slot: Int, log: ListChangeLog) {
        eventSlots.insert(slot)
        eventChangeList.append(EventChange(slot: slot, old: .other(log)))
        listLogCount += 1
    }

    /// The log that stands for `slot`'s old value in the current event, if one does.
    @inline(__always)
    func listLog(ofSlot slot: Int) -> ListChangeLog? {
        guard listLogCount > 0 else { return nil }
        return eventChangeList.first { $0.slot == slot }?.listLog
    }

    /// Replaces the logs of the current event's to-many changes (of `slot`, or all) by the lists
    /// they stand for, worked out from the slots' lists as they are now. Called before anything
    /// but a logged change writes such a slot (``NSManagedObject/putSlotValue(_:at:)``, loading a
    /// snapshot), and before the old values are read.
    @inline(__always)
    func materializeListLogs(slot: Int? = nil) {
        guard listLogCount > 0 else { return }
        materializeListLogsSlowly(slot: slot)
    }

    private func materializeListLogsSlowly(slot: Int?) {
        for index in eventChangeList.indices {
            let changed = eventChangeList[index].slot
            guard slot == nil || slot == changed, let log = eventChangeList[index].listLog else { continue }
            eventChangeList[index] = EventChange(slot: changed, old: .other(log.list(before: values[changed])))
            listLogCount -= 1
        }
    }

    /// Whether the persistent values are not loaded.
    @exclusivity(unchecked) var isFault: Bool
    /// Whether `awakeFromInsert()` already ran.
    var didAwakeFromInsert = false
    /// The to-one destination whose ID the values keep from the snapshot they were loaded
    /// from (``EntityLayout/keptDestinationSlot``), held as a slot holding the object holds it.
    @exclusivity(unchecked) var heldDestination: NSManagedObject?

    init(isFault: Bool, layout: EntityLayout) {
        self.isFault = isFault
        self.layout = layout
        self.values = layout.emptyValues
    }

    /// The state of a fault loaded from `snapshot`: `values` (the snapshot's own, or made from
    /// them by ``NSManagedObject/load(_:in:defaultingTransients:destinations:)``), with `snapshot`
    /// as the committed snapshot, holding `destination` (see ``heldDestination``).
    init(loading snapshot: consuming ObjectSnapshot, values: SlotValues, holding destination: NSManagedObject?) {
        isFault = false
        heldDestination = destination
        layout = snapshot.layout
        self.values = values
        committedSnapshot = consume snapshot
    }

    /// Makes this state, which no object holds any more (``NSManagedObjectContext/recycle(_:)``),
    /// the state of a fault loaded from `snapshot`: every stored property as
    /// ``init(loading:values:holding:)`` leaves it. (A stored property added to this class is set here
    /// too.)
    func reuse(loading snapshot: consuming ObjectSnapshot, values: SlotValues, holding destination: NSManagedObject?) {
        layout = snapshot.layout
        heldDestination = destination
        self.values = values
        changed = ChangedSlots()
        committedSnapshot = consume snapshot
        eventChangeList = []
        eventNilSlots = 0
        eventSlots = ChangedSlots()
        listLogCount = 0
        listedEpoch = 0
        if !fetchedPropertyResults.isEmpty { fetchedPropertyResults = [:] }
        fetchedSnapshot = nil
        isFault = false
        didAwakeFromInsert = false
    }

    /// Drops what a state kept for ``NSManagedObjectContext/recycle(_:)`` references: the
    /// values, the snapshots and the event's old values (``reuse(loading:values:holding:)`` sets the rest).
    func dropContents() {
        values = layout.emptyValues
        heldDestination = nil
        committedSnapshot = nil
        fetchedSnapshot = nil
        if !eventChangeList.isEmpty { eventChangeList = [] }
        listLogCount = 0
        if !fetchedPropertyResults.isEmpty { fetchedPropertyResults = [:] }
    }

    /// Loads `snapshot`, of this state's layout, which holds persistent attributes only
    /// (``EntityLayout/holdsOnlyAttributes``): its values become these (one buffer, shared), it
    /// becomes the committed snapshot, and `snapshot` gets the previous one. What
    /// ``NSManagedObject/load(_:in:)`` does for such an entity.
    func loadAttributes(swapping snapshot: inout ObjectSnapshot?) {
        guard let slots = snapshot?.slots else { return }
        values = slots
        changed.removeAll()
        fetchedSnapshot = nil
        swap(&committedSnapshot, &snapshot)
        isFault = false
        // Tested first: assigning a literal builds an empty dictionary even when it replaces one.
        if !fetchedPropertyResults.isEmpty { fetchedPropertyResults = [:] }
    }

    /// Whether no slot holds a value.
    var hasNoValues: Bool {
        // Values never written still share the layout's empty buffer: no need to look at them.
        if values.sharesBuffer(with: layout.emptyValues) { return true }
        return values.withUnsafeBufferPointer { buffer in
            for index in buffer.indices where !buffer[index].isNone { return false }
            return true
        }
    }

    /// Moves the values to `newLayout` by property name: the entity changed while its model was
    /// still editable.
    func relayout(to newLayout: EntityLayout) {
        var moved = newLayout.emptyValues
        for slot in 0..<layout.count {
            if !values[slot].isNone, let target = newLayout.slot(forKey: layout.properties[slot].name) { moved[target] = values[slot] }
        }
        eventChanges = eventChanges.compactMap { change in
            newLayout.slot(forKey: layout.properties[change.slot].name).map { EventChange(slot: $0, old: change.old) }
        }
        layout = newLayout
        values = moved
        changed = ChangedSlots()
        for slot in 0..<newLayout.count { changed.insert(slot) }
    }
}

/// One slot's value before the current event first changed it.
struct EventChange {
    let slot: Int
    /// The value, or (`.other`) a ``ListChangeLog`` that stands for a to-many slot's list.
    let old: SlotValue

    /// The log `old` holds, if it holds one.
    var listLog: ListChangeLog? {
        guard case let .other(value) = old else { return nil }
        return value as? ListChangeLog
    }
}

/// The changes of a to-many relationship's list in the current event, as the changes that undo
/// them (oldest first): what the event keeps as the list's old value when its first change of
/// the list is one member added or removed (``NSManagedObject/changeToManyList(at:_:)``).
///
/// Keeping a copy of the list instead cost O(n) at the event's first change of it, so an import
/// that links n objects to one, one event each (a fetch or a `perform` block per record), cost
/// O(n²). The list as it was is worked out from the list as it is when someone asks
/// (`changedValuesForCurrentEvent()`), or before anything else writes the slot
/// (``ManagedObjectState/materializeListLogs(slot:)``).
final class ListChangeLog {
    private var inverses: [ObjectList.Change] = []

    init(_ inverse: ObjectList.Change?) { record(inverse) }

    var count: Int { inverses.count }

    /// Adds the change that undoes the list's latest change (nil: it changed nothing).
    func record(_ inverse: ObjectList.Change?) {
        if let inverse { inverses.append(inverse) }
    }

    /// The list before the logged changes, given `current`, the slot's value after them. Its
    /// holes go (an ordered list is read by index; an unordered one's copy costs O(n) already).
    func list(before current: SlotValue) -> ObjectList {
        var list = (current.anyInPlace() as? ObjectList) ?? ObjectList()
        for inverse in inverses.reversed() { list.apply(inverse) }
        list.closeHoles()
        return list
    }
}
