/// An object of the data model, managed by a context.
///
/// Values live in the object; the context tracks its changes, maintains inverse relationships,
/// applies delete rules and records undo. The overridable methods (key-value coding entry points
/// and lifecycle hooks) are declared here; their helpers are split by aspect:
/// `+KeyValueCoding` (reading and writing properties, typed accessors, relationship proxies),
/// `+Relationships` (inverse maintenance), `+Faulting` (snapshots, faults, fetched properties)
/// and `+ChangeTracking` (changed and committed values).
///
/// Differences from Apple:
/// - There is no Objective-C runtime: `@NSManaged` does not work on Linux. Use the `@Managed`
///   macro, or write accessors that call ``value(forKey:)`` and ``setValue(_:forKey:)`` (or the
///   typed `managedValue(forKey:)` and ``setManagedValue(_:forKey:)``).
/// - Keys that are not properties of the entity trap with "entity Run has no property 'foo'"
///   instead of raising `NSUnknownKeyException`; ``valueThrowing(forKey:)`` throws instead.
open class NSManagedObject: NSObject, NSFetchRequestResult, ManagedObjectInstantiable {
    /// The entity of the object (its ID's entity).
    public var entity: NSEntityDescription { objectID.entity }

    // The ID and the context are `@exclusivity(unchecked)`, as ``state`` is: they change only
    // on the context's queue (insertion, a save's permanent IDs, reset), through short accesses
    // that never overlap, and every access to the object reads them.

    /// The object's ID, temporary until the first save.
    @exclusivity(unchecked) public internal(set) var objectID: NSManagedObjectID

    /// The context the object is registered in.
    ///
    /// Not retained, as Apple's is not: nil once the context is freed (held as an
    /// `UnretainedReference`, which leaves the context's retains on the runtime's fast path).
    public internal(set) var managedObjectContext: NSManagedObjectContext? {
        get { contextReference.object }
        set { contextReference = UnretainedReference(newValue) }
    }

    @exclusivity(unchecked) private var contextReference = UnretainedReference<NSManagedObjectContext>(nil)

    /// ``managedObjectContext``, not retained: nil when there is none or it is being freed.
    ///
    /// Only for code running on the context's queue (or, for a context without one, on the
    /// thread using it), where the context stays alive for the whole call: a block run by
    /// `perform` captures it, `performAndWait`'s caller holds it, and freeing it on another
    /// thread meanwhile would break Core Data's concurrency rules anyway. Saves the atomic
    /// retain and release of reading ``managedObjectContext``, two per key-value set. Not for
    /// `deinit`, which may run on any thread.
    @inline(__always)
    final var unretainedContext: Unmanaged<NSManagedObjectContext>? { contextReference.unretainedObject }

    // MARK: State kept for the context

    /// Everything but the ID and the context, in one side object that a fault does without
    /// (`nil` means a fault holding nothing): a fault is three words plus the object header.
    @exclusivity(unchecked) var state: ManagedObjectState?

    /// The state, created (for a fault) when something is stored.
    var ensuredState: ManagedObjectState {
        if let state { return state }
        let created = ManagedObjectState(isFault: true, layout: entity.layout)
        state = created
        return created
    }

    // MARK: Values by slot

    /// Where each property's value is: the layout the object's values follow.
    var layout: EntityLayout { state?.layout ?? entity.layout }

    /// The slot of the attribute or relationship named `key` in ``layout``; nil for other keys.
    /// An object made while its model was editable moves to the entity's current layout when the
    /// key was added since.
    @inline(__always)
    func slot(forKey key: String) -> Int? {
        // The state and its layout are read unretained: the object holds them, and looking a
        // key up replaces neither (retaining them costs two atomic operations per access).
        guard let state = state.map(Unmanaged.passUnretained) else {
            return entity.layout.slot(forKey: key) ?? slotOfEquivalentName(key, in: entity.layout)
        }
        if let slot = state._withUnsafeGuaranteedRef({ $0.layout.slot(forKey: key) }) { return slot }
        return slotAfterMiss(key, state: state.takeUnretainedValue())
    }

    /// The ``SlotRule/exactType`` of `slot`'s attribute in ``layout`` (nil for relationships),
    /// read without retaining the state or the layout, as ``slot(forKey:)`` reads them.
    @inline(__always)
    final func exactType(ofSlot slot: Int) -> ObjectIdentifier? {
        rule(ofSlot: slot).exactType
    }

    /// The ``SlotRule`` of `slot` in ``layout``, read as ``exactType(ofSlot:)`` reads it.
    @inline(__always)
    final func rule(ofSlot slot: Int) -> SlotRule {
        withLayout { $0.rules[slot] }
    }

    /// `body` of ``layout``, read without retaining the state or the layout (two atomic
    /// operations each): the object holds its state, and `body` must not replace it.
    @inline(__always)
    final func withLayout<Result>(_ body: (EntityLayout) -> Result) -> Result {
        guard let state = state.map(Unmanaged.passUnretained) else { return body(entity.layout) }
        return state._withUnsafeGuaranteedRef { body($0.layout) }
    }

    /// ``slot(forKey:)`` when the object's layout has no slot for `key`: the entity's layout may
    /// be newer (a property added while the model was editable), or `key` may equal a property's
    /// name only up to Unicode normalization (the layout hashes bytes; `String` compares
    /// canonically, as the property dictionaries do).
    private func slotAfterMiss(_ key: String, state: ManagedObjectState) -> Int? {
        let current = entity.layout
        if current !== state.layout, current.slot(forKey: key) ?? slotOfEquivalentName(key, in: current) != nil {
            state.relayout(to: current)
            return current.slot(forKey: key) ?? slotOfEquivalentName(key, in: current)
        }
        return slotOfEquivalentName(key, in: state.layout)
    }

    /// The slot of the property whose name equals `key` as a `String` but not byte for byte.
    private func slotOfEquivalentName(_ key: String, in layout: EntityLayout) -> Int? {
        guard let property = entity.propertiesByName[key], !property.name.utf8.elementsEqual(key.utf8) else { return nil }
        return layout.slot(forKey: property.name)
    }

    /// The current value in `slot`: an attribute's Swift value, a to-one destination
    /// (`NSManagedObject`, ``toOneDestination(at:)``) or a to-many ``ObjectList`` (nil: empty,
    /// or a relationship fault: see ``isToManyFault(_:)``). No fault firing, no hooks.
    @inline(__always)
    func storedValue(at slot: Int) -> Any? {
        guard let state else { return nil }
        // The kind first: matching the slot copies it (a retain, for a to-many's list), and
        // to-many lists are read here at every change of a relationship.
        if state.layout.kinds[slot] == .toOne, case .objectID = state.values[slot] { return toOneDestination(at: slot) }
        return state.values[slot].anyInPlace()
    }

    /// The destination of the to-one relationship in `slot`: the object the slot holds, or the
    /// object of the ID it keeps (``keptDestination(_:)``). No fault firing, no hooks.
    func toOneDestination(at slot: Int) -> NSManagedObject? {
        guard let state else { return nil }
        if case .objectID(let id) = state.values[slot] { return keptDestination(id) }
        return state.values[slot].destination
    }

    /// The object of `id`, kept in a to-one slot: the destination the state holds for it (a
    /// load that kept its snapshot's values, see ``load(_:in:defaultingTransients:destinations:)``),
    /// else the context's object of that ID: its registered object, or a new fault of a
    /// permanent ID (a temporary ID that no context knows names nothing: nil).
    ///
    /// Differs from Apple: an `NSManagedObjectID` set as a to-one's primitive value reads as
    /// its object.
    func keptDestination(_ id: NSManagedObjectID) -> NSManagedObject? {
        if let held = state?.heldDestination, held.objectID == id { return held }
        guard let context = managedObjectContext else { return nil }
        // `object(with:)` traps for a temporary ID that a context without a parent has not
        // registered.
        return id.isTemporaryID && context.parent == nil ? context.registeredObject(for: id) : context.object(with: id)
    }

    /// ``storedValue(at:)`` as the slot holds it.
    @inline(__always)
    func slotValue(at slot: Int) -> SlotValue { state?.values[slot] ?? .none }

    /// Puts `value` in `slot` and marks the slot changed. No change recording (see
    /// ``setStoredValue(_:at:)``), no hooks.
    func putStoredValue(_ value: Any?, at slot: Int) {
        putSlotValue(SlotValue(value), at: slot)
    }

    /// ``putStoredValue(_:at:)`` of a slot's value; returns the value it replaced (moved out of
    /// the slot, not copied). When the current event logged the slot's list changes, the log
    /// becomes the list it stands for first (``ListChangeLog``).
    @discardableResult
    func putSlotValue(_ value: consuming SlotValue, at slot: Int) -> SlotValue {
        let state = ensuredState
        state.materializeListLogs(slot: slot)
        return exchangeSlotValue(value, at: slot, in: state)
    }

    /// ``putSlotValue(_:at:)`` without looking for a log: for a change that logs itself
    /// (``changeToManyList(at:_:)``).
    @inline(__always)
    func exchangeSlotValue(_ value: consuming SlotValue, at slot: Int, in state: ManagedObjectState) -> SlotValue {
        state.changed.insert(slot)
        var replaced = value
        swap(&state.values[slot], &replaced)
        return replaced
    }

    /// The current value of the attribute or relationship named `key`, as ``storedValue(at:)``.
    func storedValue(forKey key: String) -> Any? { slot(forKey: key).flatMap(storedValue(at:)) }

    /// Puts `value` under `key` as ``putStoredValue(_:at:)`` (nothing for a key with no slot).
    func putStoredValue(_ value: Any?, forKey key: String) {
        if let slot = slot(forKey: key) { putStoredValue(value, at: slot) }
    }

    /// Whether no property holds a value.
    var hasNoStoredValues: Bool { state?.hasNoValues ?? true }

    /// The snapshot a fetch read for this fault (see ``ManagedObjectState/fetchedSnapshot``).
    /// Kept with ``keepFetchedSnapshot(swapping:)``, dropped with ``takeFetchedSnapshot()``.
    final var fetchedSnapshot: ObjectSnapshot? { state?.fetchedSnapshot }

    /// Keeps `snapshot`, read by a fetch, as this fault's ``fetchedSnapshot``: swapped in, so
    /// `snapshot` gets the state's previous one (nil for a fault that kept none).
    ///
    /// The state is written unretained (the object holds it, and a fetched snapshot holds no
    /// object that could free it): retaining it cost two atomic operations per fetched row.
    final func keepFetchedSnapshot(swapping snapshot: inout ObjectSnapshot?) {
        if state == nil { state = ManagedObjectState(isFault: true, layout: entity.layout) }
        state.map(Unmanaged.passUnretained)?._withUnsafeGuaranteedRef { swap(&$0.fetchedSnapshot, &snapshot) }
    }

    /// The snapshot a fetch read for this fault, moved out of the state (which keeps none).
    @discardableResult
    final func takeFetchedSnapshot() -> ObjectSnapshot? {
        state?.fetchedSnapshot.take()
    }

    /// The snapshot last read from or saved to a store; `nil` until the object is saved, and
    /// for a fault.
    ///
    /// Setting it marks every value changed (to be compared with it); ``markSaved(_:)`` is for
    /// a snapshot made of the current values.
    var committedSnapshot: ObjectSnapshot? {
        get { state?.committedSnapshot }
        set {
            let state = ensuredState
            state.committedSnapshot = newValue
            for slot in 0..<state.layout.count { state.changed.insert(slot) }
        }
    }

    /// Whether the object has a ``committedSnapshot`` (read or saved), tested without copying
    /// it: a copy retains and releases each of its references.
    final var hasCommittedSnapshot: Bool { state?.hasCommittedSnapshot ?? false }

    /// Records `snapshot`, made of the current values, as the committed one: nothing differs.
    final func markSaved(_ snapshot: consuming ObjectSnapshot) {
        let state = ensuredState
        state.committedSnapshot = snapshot
        state.changed.removeAll()
    }

    /// Whether the persistent values are not loaded yet.
    var faultFlag: Bool {
        get { state?.isFault ?? true }
        set { if newValue && state == nil { return }; ensuredState.isFault = newValue }
    }

    /// The old values of the slots changed since the last `processPendingChanges()`, for
    /// ``changedValuesForCurrentEvent()``.
    var eventChanges: [EventChange] { state?.eventChanges ?? [] }

    /// Results of fetched properties, computed on first read and dropped on refresh.
    var fetchedPropertyResults: [String: [Any]] {
        get { state?.fetchedPropertyResults ?? [:] }
        set { if newValue.isEmpty && state == nil { return }; ensuredState.fetchedPropertyResults = newValue }
    }

    /// Whether `awakeFromInsert()` already ran (it runs once per object).
    var didAwakeFromInsert: Bool {
        get { state?.didAwakeFromInsert ?? false }
        set { ensuredState.didAwakeFromInsert = newValue }
    }

    /// Creates an object of `entity` and inserts it into `context` (when given).
    ///
    /// Attribute default values are set first; `awakeFromInsert()` runs when the object is
    /// inserted. Traps for an abstract entity, as Apple raises.
    ///
    /// As in Apple's API it is not `required`, so subclasses may declare
    /// `override init(entity:insertInto:)` (also `private`). Core Data calls it for every object
    /// it creates (inserting by entity name, fetching, faulting), so an override runs then too:
    /// for a fault, the context passes itself and the object starts as a fault of the ID being
    /// created, without default values.
    ///
    /// Differs from Apple: a subclass that declares a designated initializer of its own must also
    /// override this one, or the compiler reports that `init(_entity:insertInto:)` and
    /// `init(_context:)` must be provided; Apple compiles such a class and raises
    /// "unimplemented initializer" when it fetches one. Through a generic type or a metatype
    /// (`T(entity:insertInto:)`), the call goes through ``ManagedObjectInstantiable``.
    public init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        if let context, let faultID = context.takeFaultID(for: entity) {
            objectID = faultID
            contextReference = UnretainedReference(context)
            super.init()
            return
        }
        precondition(!entity.isAbstract, "Cannot create an instance of abstract entity \(entity.name ?? "?")")
        self.objectID = NSManagedObjectID(temporaryFor: entity)
        self.state = ManagedObjectState(isFault: false, layout: entity.layout)
        super.init()
        applyDefaultValues()
        context?.insert(self)
    }

    /// Creates an instance of the class it is called on through ``init(entity:insertInto:)``,
    /// dynamically dispatched, so that a subclass's override runs. Not in Apple's API: call
    /// ``init(entity:insertInto:)`` instead.
    ///
    /// Core Data instantiates registered subclasses from their metatype through this required
    /// initializer. Subclasses inherit it without writing anything, as long as they override
    /// every designated initializer (or declare none).
    public required convenience init(_entity entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        self.init(entity: entity, insertInto: context)
    }

    /// Creates an object of the entity whose class is the (dynamic) class it is called on, and
    /// inserts it into `context`. Not in Apple's API: it is what `init(context:)` calls.
    ///
    /// The entity is found among the entities of `context`'s model by the class registered with
    /// `NSManagedObjectModel.register(_:forEntityName:)` or named by `managedObjectClassName`.
    /// Traps when the context has no coordinator or no entity uses the class.
    public required convenience init(_context context: NSManagedObjectContext) {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
            preconditionFailure("\(Self.self)(context:) needs a context with a persistent store coordinator, to find the entity")
        }
        guard let entity = ManagedObjectClasses.entity(for: Self.self, in: model) else {
            preconditionFailure("No entity of the model uses class \(String(reflecting: Self.self)); register it with NSManagedObjectModel.register(_:forEntityName:) or set the entity's managedObjectClassName")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// An unchanged object that nothing else holds leaves its context's registry when freed.
    deinit {
        managedObjectContext?.unregisterFreedObject(self)
    }

    /// Sets each attribute's default value, as Core Data does when an object is created.
    private func applyDefaultValues() {
        let state = ensuredState
        state.values = state.layout.makeDefaultValues()
        state.changed.formUnion(state.layout.defaultedSlots)
    }

    /// Sets the default value of each transient attribute that has one, as Core Data does when
    /// a fault created without values first loads.
    func applyTransientDefaultValues() {
        // Most entities have no transient property: nothing retained to find that out.
        if withLayout({ $0.transientSlots.isEmpty }) { return }
        let layout = self.layout
        for slot in layout.transientSlots {
            if !layout.defaultValues[slot].isNone { putSlotValue(layout.defaultValues[slot], at: slot) }
        }
    }

    // MARK: State

    /// Whether the object was inserted and not yet saved.
    open var isInserted: Bool { managedObjectContext?.insertedList.contains(self) ?? false }

    /// Whether the object has unsaved changes (and is neither inserted nor deleted).
    open var isUpdated: Bool { managedObjectContext?.updatedList.contains(self) ?? false }

    /// Whether the object will be deleted at the next save.
    open var isDeleted: Bool { managedObjectContext?.deletedList.contains(self) ?? false }

    /// Whether the object's persistent values are not loaded yet.
    open var isFault: Bool { faultFlag }

    /// Whether the object was inserted, changed or deleted since the last save.
    open var hasChanges: Bool { isInserted || isUpdated || isDeleted }

    /// The fault state: 0 when the object is fully loaded, 1 while it is a fault.
    open var faultingState: Int { faultFlag ? 1 : 0 }

    // MARK: Identity

    /// Whether `object` is this object: managed objects are equal only to themselves, as in
    /// Core Data.
    ///
    /// Sets of objects (a notification's, a to-many relationship's value) compare through
    /// this, with the other object boxed as an `NSObject`. Such a value is compared by the
    /// words of its existential (`boxedReference(_:)`), without copying it or `NSObject`'s
    /// runtime cast (about 450 instructions). A value boxed as another type (an optional,
    /// another class, `AnyHashable`) is compared as `NSObject` compares.
    open override func isEqual(_ object: Any?) -> Bool {
        let (instance, boxedAs) = boxedReference(object)
        if isMetadata(boxedAs, of: NSObject.self) || isMetadata(boxedAs, of: NSManagedObject.self)
            || isMetadata(boxedAs, of: Swift.type(of: self)) {
            return instance == UInt(bitPattern: ObjectIdentifier(self))
        }
        return super.isEqual(object)
    }

    /// The object's address, for identity hashing (`NSObject`'s hashes the address with a
    /// hasher, and `Hashable` runs one over this anyway).
    open override var hash: Int { Int(bitPattern: ObjectIdentifier(self)) }

    open override var description: String {
        let name = entity.name ?? "?"
        if faultFlag { return "<\(Swift.type(of: self)): \(name) \(objectID); data: <fault>>" }
        let values = entity.properties.compactMap { property -> String? in
            guard property is NSAttributeDescription || property is NSRelationshipDescription else { return nil }
            return "\(property.name) = \(describeStored(property))"
        }
        return "<\(Swift.type(of: self)): \(name) \(objectID); data: {\(values.joined(separator: "; "))}>"
    }

    private func describeStored(_ property: NSPropertyDescription) -> String {
        switch storedValue(forKey: property.name) {
        case nil: return isToManyFault(property.name) ? "<relationship fault>" : "nil"
        case let object as NSManagedObject: return object.objectID.description
        case let list as ObjectList: return "(\(list.objects.map(\.objectID.description).joined(separator: ", ")))"
        case let value?: return "\(value)"
        }
    }

    // MARK: Key-value coding (bodies in NSManagedObject+KeyValueCoding.swift)

    /// The value of a property: an attribute's value, a to-one destination, a to-many
    /// relationship's destinations (`Set<NSManagedObject>`, or `NSOrderedSet` when ordered) or a
    /// fetched property's results (`[Any]`). Fires a fault. Traps for a key that is not a property
    /// of the entity: "entity Run has no property 'foo'".
    open func value(forKey key: String) -> Any? {
        do { return try valueThrowing(forKey: key) } catch { preconditionFailure("\(error)") }
    }

    /// The value of a property, throwing ``KeyValueCodingError/unknownKey(key:owner:)`` with
    /// `owner: "entity Run"` for a key the entity does not have. Predicates and sort descriptors
    /// read managed objects through this. `objectID` and `entity` answer too, as in Apple's KVC.
    /// Override it (calling `super` for other keys) to answer computed keys everywhere:
    /// ``value(forKey:)``, key paths, predicates and sort descriptors all go through it.
    open func valueThrowing(forKey key: String) throws -> Any? {
        guard let slot = slot(forKey: key) else {
            if let property = entity.propertiesByName[key] {
                checkConcurrency("value(forKey: \"\(key)\")")
                willAccessValue(forKey: key)
                defer { didAccessValue(forKey: key) }
                return read(property)
            }
            switch key {
            case "objectID": return objectID
            case "entity": return entity
            case "managedObjectContext": return managedObjectContext
            default: throw unknownKey(key)
            }
        }
        checkConcurrency("value(forKey: \"\(key)\")")
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return read(slot: slot)
    }

    /// Sets a property, recording the change (and undo) and maintaining the inverse relationship.
    /// Numbers are converted to the attribute's width. Traps for an unknown key or a value of the
    /// wrong type, as Apple raises.
    open func setValue(_ value: Any?, forKey key: String) {
        do { try setValueThrowing(value, forKey: key) } catch { preconditionFailure("\(error)") }
    }

    /// The stored value of a property, without access hooks (to-many values as for ``value(forKey:)``).
    open func primitiveValue(forKey key: String) -> Any? {
        checkConcurrency("primitiveValue(forKey: \"\(key)\")")
        return primitiveStoredValue(forKey: key)
    }

    /// Sets the stored value of a property without change hooks or inverse maintenance. The change
    /// is still tracked (and undoable), as in Core Data.
    open func setPrimitiveValue(_ value: Any?, forKey key: String) {
        checkConcurrency("setPrimitiveValue(_:forKey: \"\(key)\")")
        setPrimitiveStoredValue(value, forKey: key)
    }

    // MARK: Access and change notification hooks

    /// Called before a property is read through ``value(forKey:)``. Does nothing by default.
    open func willAccessValue(forKey key: String?) {}

    /// Called after a property was read through ``value(forKey:)``. Does nothing by default.
    open func didAccessValue(forKey key: String?) {}

    /// Called before a property changes through ``setValue(_:forKey:)``, a typed (`@Managed`)
    /// setter, a relationship proxy, inverse maintenance or undo. Does nothing by default.
    open func willChangeValue(forKey key: String) {}

    /// Called after a property changed. Does nothing by default.
    open func didChangeValue(forKey key: String) {}

    /// Called by ``setValue(_:forKey:)`` when `nil` is set for a non-optional numeric or Boolean
    /// attribute (a scalar in generated classes).
    ///
    /// Differs from Apple, whose `NSObject` raises: the default stores nil, which validation
    /// reports at save (`NSValidationMissingMandatoryPropertyError`).
    open func setNilValueForKey(_ key: String) {
        setStoredValue(nil, forKey: key)
    }

    // MARK: Lifecycle hooks

    /// Called once, when the object is first inserted into a context. Set initial values here.
    open func awakeFromInsert() {}

    /// Called when the object's values are loaded from a store (a fetch without faults, or a
    /// fault firing).
    open func awakeFromFetch() {}

    /// Called after undo, rollback or refresh changed the object's values.
    open func awakeFromSnapshotEvents(_ flags: NSSnapshotEventType) {}

    /// Called for every inserted, updated and deleted object at the start of a save.
    open func willSave() {}

    /// Called for every saved object after a successful save.
    open func didSave() {}

    /// Called before the object turns into a fault (refresh, rollback, reset, saved deletion).
    open func willTurnIntoFault() {}

    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    /// Called when the deletion of the object is propagated, before delete rules run.
    open func prepareForDeletion() {}


    // MARK: Validation hooks (bodies in Graph/Validation, helper `graph-validation`)

    /// Validates (and may coerce) a value for a property: the model's rules, then `validate<Key>` hooks.
    ///
    /// Differs from Apple: the value is `inout Any?`, since Linux has no `AutoreleasingUnsafeMutablePointer`.
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        try ObjectValidation.validateValue(&value, forKey: key, of: self)
    }

    /// Validates the object before its first save.
    open func validateForInsert() throws { try ObjectValidation.validate(self, for: .insert) }

    /// Validates the object before a save that changes it.
    ///
    /// Differs from Apple's description ("iterates through all of the receiver's properties"):
    /// a to-many relationship that is still a fault is neither read nor validated. It holds the
    /// store's destinations, unchanged since they were saved (changing it reads it first), and
    /// reading it would cost one store query per object saved.
    open func validateForUpdate() throws { try ObjectValidation.validate(self, for: .update) }

    /// Validates the object before a save that deletes it.
    open func validateForDelete() throws { try ObjectValidation.validate(self, for: .delete) }
}
