import Logging

/// A scratch pad of managed objects: it tracks their changes and saves them through a coordinator,
/// or into its ``parent`` context.
///
/// The context registers one object per ID (uniquing), keeps what was inserted, updated and
/// deleted, maintains inverse relationships, applies delete rules when pending changes are
/// processed, records undo, posts Core Data's notifications, fetches (merging pending changes)
/// and saves all-or-nothing. Aspects are split by file: `+ChangeTracking`, `+DeleteRules`,
/// `+Undo`, `+Saving`, `+Fetching`, `+Notifications`, `+Faulting`.
///
/// Concurrency is Apple's (see `+Concurrency`): a `privateQueueConcurrencyType` context runs
/// its blocks on its own serial queue, a `mainQueueConcurrencyType` context on the main queue.
/// The context's state is touched only there: inside ``perform(_:)`` or `performAndWait(_:)`,
/// or anywhere on the main queue (or the main thread) for a main-queue context. Code that uses
/// a context from one thread only may also call it directly, as Apple allows.
///
/// Differences from Apple:
/// - On Linux nothing drains the main queue by itself. A program that uses a main-queue context
///   (``NSPersistentContainer/viewContext``) from other threads must run it: call
///   `dispatchMain()` or `RunLoop.main.run()` at the end of its top-level code, or use an
///   `async` `main` (the main actor runs on the main queue). Servers should use private-queue
///   contexts (``NSPersistentContainer/newBackgroundContext()``) and leave the main queue alone.
/// - A child context calls into its parent with the parent's `performAndWait`: a child of a
///   main-queue context needs the main queue running (and not blocked waiting for the child).
/// - `OPENCOREDATA_CONCURRENCY_DEBUG=1` in the environment stands for Apple's
///   `-com.apple.CoreData.ConcurrencyDebug 1`: a use of a queue context off its queue traps with
///   a message naming the context, the object and the call.
/// - There is no run loop: pending changes are processed (delete rules applied,
///   `NSManagedObjectContextObjectsDidChange` posted, the undo event group closed) when you call
///   ``processPendingChanges()``, and by `save()`, `fetch(_:)`, `undo()` and `redo()`.
/// - ``undoManager`` is `nil` by default, as on iOS; set an ``UndoManager`` to record undo.
/// - As in Apple, the context does not retain unchanged registered objects: an object that
///   nothing else holds is freed and leaves the registry. Objects with unsaved changes (inserted,
///   updated, deleted) stay retained until they are saved or rolled back. Free managed objects on
///   the context's queue (objects are not thread-safe, as in Apple); one freed elsewhere still
///   leaves the registry safely (it has its own lock).
// @unchecked Sendable: the context's state is confined to its queue (the private serial queue,
// the main queue, or the caller's thread for confinement); `registry` has its own lock, read
// by objects' `deinit` on any thread. See NSManagedObjectContext+Concurrency.swift.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    /// How a context confines its work, with Apple's raw values.
    public enum ConcurrencyType: UInt, Sendable {
        /// The context belongs to the thread that uses it. Deprecated by Apple: use one of the
        /// queue types.
        @available(*, deprecated, message: "Use another NSManagedObjectContextConcurrencyType")
        case confinementConcurrencyType = 0
        case privateQueueConcurrencyType = 1
        case mainQueueConcurrencyType = 2
    }

    /// When an `async` ``perform(schedule:_:)`` runs its block.
    public enum ScheduledTaskType: Sendable {
        /// Runs at once when called on the context's queue, else enqueued.
        case immediate
        /// Always enqueued.
        case enqueued
    }

    /// The confinement chosen at creation.
    public let concurrencyType: ConcurrencyType

    /// The coordinator the context fetches and saves through: its own, or for a child context
    /// the root's (through its ``parent``), as in Apple.
    ///
    /// A context has a coordinator or a parent, not both: setting one when the other is set,
    /// or replacing either once the context holds objects, traps as Apple raises.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { parentBacking?.parent.persistentStoreCoordinator ?? coordinatorStorage }
        set {
            if let problem = backingAssignmentProblem(coordinator: newValue) { preconditionFailure(problem) }
            coordinatorStorage = newValue
            // A pinned context pins again, on the new coordinator, at its next read.
            if generationBacking != nil { generationBacking = newValue.map { QueryGenerationBacking(coordinator: $0, generation: nil) } }
            if mergesFromParent { observeParentSaves() }
        }
    }

    /// The coordinator set on this context itself (nil for a child context).
    var coordinatorStorage: NSPersistentStoreCoordinator?
    /// The parent context's backing, for a child context (it retains the parent, as Apple's).
    var parentBacking: ParentContextBacking?
    /// The backing of a root context pinned to a query generation (its reads go to the
    /// coordinator at the generation); `nil` when unpinned (`+QueryGenerations`).
    var generationBacking: QueryGenerationBacking?
    /// The observers of saves installed by ``automaticallyMergesChangesFromParent``.
    var parentSaveObservers: [NSObjectProtocol] = []
    /// Whether ``automaticallyMergesChangesFromParent`` is on.
    var mergesFromParent = false

    /// Records undo for every change when set. `nil` by default.
    @exclusivity(unchecked) open var undoManager: UndoManager?

    /// A name for the context, for debugging and history.
    open var name: String?

    /// The author recorded with the context's saves in persistent history.
    open var transactionAuthor: String?

    /// Free-form information about the context.
    open var userInfo: NSMutableDictionary = NSMutableDictionary()

    /// How old (in seconds) cached row data may be when a fault fires: older data is read from
    /// the store again. Negative (the default) means cached data never goes stale; 0 means
    /// never use cached data, always read the store. It does not change objects already loaded.
    ///
    /// Differs from Apple: the cache is the SQLite store's row cache (shared by the
    /// coordinator's contexts); atomic stores hold their rows in memory, which is their store.
    /// `refresh(_:mergeChanges:)` and `refreshAllObjects()` always read past the cache.
    open var stalenessInterval: TimeInterval = -1

    /// The merge policy behind ``mergePolicy``; ``NSErrorMergePolicy`` by default.
    var mergePolicyObject: NSMergePolicy = NSErrorMergePolicy

    /// Whether a fault whose row no longer exists fires into an object with nil values (`true`)
    /// or traps, as Apple raises, with "CoreData could not fulfill a fault" (`false`).
    open var shouldDeleteInaccessibleFaults = true

    // MARK: Tracking state

    /// The registered objects, one per ID, not retained. The one piece of state with its own
    /// lock: freed objects leave it from any thread.
    let registry = ObjectRegistry()
    /// The ID of the fault ``object(with:)`` is creating, which `NSManagedObject.init` takes.
    @exclusivity(unchecked) private var faultIDBeingCreated: NSManagedObjectID?
    @exclusivity(unchecked) var insertedList = ObjectList() { didSet { listEpoch &+= 1 } }
    @exclusivity(unchecked) var updatedList = ObjectList() { didSet { listEpoch &+= 1 } }
    @exclusivity(unchecked) var deletedList = ObjectList() { didSet { listEpoch &+= 1 } }
    /// Counts the changes of the inserted, updated and deleted lists and of the event's inserted
    /// and updated lists (see ``recordChange(of:slot:oldValue:)``). Starts at 1: an object's
    /// 0 means "not known".
    @exclusivity(unchecked) var listEpoch: UInt64 = 1
    /// Deleted objects whose delete rules have not run yet.
    var pendingDeletions = DeletionQueue()
    /// Temporary IDs of objects a child's save inserted here, until this context gives them
    /// permanent IDs (``childIDAliases`` then remembers them).
    var childInsertedIDs: Set<NSManagedObjectID> = []
    /// The permanent IDs of objects a child inserted here, by the temporary IDs the child
    /// still knows them by: a child's objects keep their temporary IDs after the parent saves,
    /// as in Apple, and the child's later saves and reads name them so.
    var childIDAliases: [NSManagedObjectID: NSManagedObjectID] = [:]
    /// What the next `NSManagedObjectContextObjectsDidChange` reports. Unchecked, as the lists
    /// above are: only the context's queue touches them, in accesses that never overlap, and
    /// every insertion reads them.
    @exclusivity(unchecked) var eventInserted = ObjectList() { didSet { listEpoch &+= 1 } }
    @exclusivity(unchecked) var eventUpdated = ObjectList() { didSet { listEpoch &+= 1 } }
    @exclusivity(unchecked) var eventDeleted = ObjectList()
    @exclusivity(unchecked) var eventRefreshed = ObjectList()
    @exclusivity(unchecked) var eventInvalidated = ObjectList()
    /// The sets of objects `NSManagedObjectContextObjectsDidChange` posted during the current
    /// `save()` (nil outside one), which its `NSManagedObjectContextDidSave` reuses for the same
    /// objects (``PostedObjectSets``).
    @exclusivity(unchecked) final var setsPostedDuringSave: PostedObjectSets?
    /// Objects whose `eventChanges` must be cleared at the end of the event.
    ///
    /// An array, not a set: an object is appended when its first change of the event is
    /// recorded (its state's event slots were empty), so it is listed once unless its changes
    /// were cleared within the event, and clearing twice is harmless. A set's hash insertion
    /// was about 2% of a bulk insert's time.
    @exclusivity(unchecked) var eventTouched: [NSManagedObject] = []
    // The four below are read by every fault that fires (`fulfillFault(_:)`), and unchecked
    // like the lists above: only the context's queue touches them, in accesses that never overlap.
    /// Snapshots fetched for objects that stayed faults, by ID key: firing them reads these.
    @exclusivity(unchecked) var rowCache: [ObjectIDKey: ObjectSnapshot] = [:]
    /// Faults created and not fired yet, the candidates of batch faulting.
    @exclusivity(unchecked) var pendingFaults = PendingFaults()
    /// The results of the last fetches with `fetchBatchSize`, for loading them by batch.
    @exclusivity(unchecked) var batchGroups: [FetchBatchGroup] = []
    /// The ID keys of objects refreshed into faults: firing them reads the store past its cache.
    @exclusivity(unchecked) var refreshedFaults: Set<ObjectIDKey> = []
    /// The entity `insertNewObject(forEntityName:into:)` last found, with its name and frozen
    /// model: inserting objects one by one looks up the same name again and again.
    @exclusivity(unchecked) var lastInsertedEntity: (name: String, model: NSManagedObjectModel, entity: NSEntityDescription)?
    /// States of objects turned back into faults, emptied, for the next faults loaded: a walk
    /// with `fetchBatchSize` turns a batch back into faults for each batch it loads, and
    /// allocating and freeing a state for every object cost about 450 instructions an object.
    /// At most ``spareStateLimit``.
    @exclusivity(unchecked) var spareStates: [ManagedObjectState] = []
    /// Stores chosen with `assign(_:to:)`, by object.
    var assignedStores: [ObjectIdentifier: NSPersistentStore] = [:]
    /// While positive, changes are not recorded (loading values, `awakeFromFetch`).
    @exclusivity(unchecked) var recordingSuspended = 0

    /// Where the context runs its blocks: its own serial queue, the main queue, or inline.
    let executor: ContextExecutor
    /// The lock behind Apple's deprecated ``lock()``, ``unlock()`` and ``tryLock()``. The
    /// context's own state does not rely on it (it is confined to the context's queue).
    let apiLock = NSRecursiveLock()

    /// Creates a context.
    public init(concurrencyType type: ConcurrencyType) {
        concurrencyType = type
        executor = ContextExecutor(for: type)
        super.init()
    }

    deinit {
        for token in parentSaveObservers { NotificationCenter.default.removeObserver(token) }
    }

    /// Creates a context of the confinement type (``ConcurrencyType/confinementConcurrencyType``),
    /// as Apple's `init()` does.
    ///
    /// Deprecated by Apple in favour of ``init(concurrencyType:)``. Such a context belongs to the
    /// thread that uses it; ``perform(_:)`` and `performAndWait(_:)` run their block inline on
    /// the calling thread.
    @available(*, deprecated, message: "Use init(concurrencyType:) instead")
    public convenience override init() {
        self.init(concurrencyType: .confinementConcurrencyType)
    }

    // MARK: Concurrency (bodies in NSManagedObjectContext+Concurrency.swift)

    /// Enqueues `block` on the context's queue and returns at once. The block is followed by
    /// ``processPendingChanges()``, as in Apple.
    open func perform(_ block: @escaping @Sendable () -> Void) {
        enqueueBlock(block)
    }

    /// Runs `block` on the context's queue and waits for it; inline when already on the queue
    /// (reentrant).
    open func performAndWait(_ block: () -> Void) {
        executor.runAndWait { runInline(block) }
    }

    /// Takes the context's (recursive) lock. Deprecated by Apple in favour of ``perform(_:)``:
    /// the lock only excludes other `lock()` callers (and the blocks of a context without a
    /// queue); the context's state is confined to its queue.
    open func lock() { apiLock.lock() }

    /// Releases the context's lock.
    open func unlock() { apiLock.unlock() }

    /// Takes the lock if it is free; returns whether it did.
    open func tryLock() -> Bool { apiLock.try() }

    // MARK: Registered objects

    /// The registered object with `objectID`, or `nil`.
    open func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
        checkConcurrency("registeredObject(for:)")
        return registry[objectID]
    }

    /// Every object registered in the context: objects with unsaved changes, and unchanged
    /// ones that something else still holds (the context does not retain those, as in Apple).
    open var registeredObjects: Set<NSManagedObject> { Set(registry.values) }

    /// The object with `objectID`: the registered one, or a new fault (of the entity's registered
    /// class) that loads when touched. Traps for a temporary ID the context does not know, as
    /// Apple raises (a child context may ask its parent for one).
    open func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        checkConcurrency("object(with:)")
        if let object = registry[objectID] { return object }
        precondition(!objectID.isTemporaryID || parentBacking != nil, "object(with:): the temporary ID \(objectID) does not belong to this context")
        let object = makeFault(objectID)
        pendingFaults.append(objectID)
        return object
    }

    /// ``object(with:)`` for each of `ids`, with one registry lookup and one registration
    /// for each ``registrationChunkSize`` of them. With `recordingPendingFaults` false, the new
    /// faults are not candidates of batch faulting (a batched fetch loads them by its own batches).
    ///
    /// A chunk's IDs are looked up, its faults made and registered while they are still in the
    /// processor's cache. Done for all IDs at once, phase by phase, each phase walked the memory
    /// of every ID and object again: a million IDs are 64 MB, so each ID came from main memory
    /// once a phase (a fifth of a 200,000-row fetch's time went to those misses).
    func objects(with ids: [NSManagedObjectID], recordingPendingFaults: Bool = true) -> [NSManagedObject] {
        forgetFreedObjects()
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(ids.count)
        var isNew = [Bool](repeating: false, count: ids.count)
        var newCount = 0
        // The registry grows once for all the chunks (each grown step rehashes every entry).
        if ids.count > Self.registrationChunkSize { registry.reserveCapacity(ids.count) }
        var start = 0
        while start < ids.count {
            let end = min(start + Self.registrationChunkSize, ids.count), newBefore = newCount
            // The lookup's array is dropped before the new faults are registered (which may grow
            // the registry).
            do {
                let registered = registry.objects(for: ids[start..<end])
                for index in start..<end {
                    if let object = registered[index - start] {
                        objects.append(object)
                    } else {
                        let id = ids[index]
                        precondition(!id.isTemporaryID || parentBacking != nil, "object(with:): the temporary ID \(id) does not belong to this context")
                        objects.append(newFault(id))
                        isNew[index] = true
                        newCount += 1
                    }
                }
            }
            // An ID listed twice gets the fault made first (in an earlier chunk, it is found
            // registered).
            if newCount > newBefore { registry.register(&objects, isNew: &isNew, in: start..<end) }
            start = end
        }
        guard newCount > 0 else { return objects }
        if recordingPendingFaults {
            var newFaultIDs: [NSManagedObjectID] = []
            newFaultIDs.reserveCapacity(newCount)
            for (index, id) in ids.enumerated() where isNew[index] { newFaultIDs.append(id) }
            pendingFaults.append(contentsOf: newFaultIDs)
        }
        return objects
    }

    /// How many IDs ``objects(with:recordingPendingFaults:)`` looks up and registers at a time,
    /// and a fetch's rows are registered at a time: the IDs, objects and rows of a chunk (about
    /// 500 bytes a row) stay in a core's second-level cache between its steps.
    static let registrationChunkSize = 512

    /// Creates and registers a fault (of the entity's registered class) for `objectID`.
    func makeFault(_ objectID: NSManagedObjectID) -> NSManagedObject {
        forgetFreedObjects()
        let object = newFault(objectID)
        registry[objectID] = object
        return object
    }

    /// Creates a fault (of the entity's registered class) for `objectID` without registering
    /// it: the caller does, alone (``makeFault(_:)``) or in a batch (``ObjectRegistry/register(_:)``).
    /// Always inlined: the optimizer's choice flipped with unrelated changes, and calling it
    /// cost W4 about 1% (a call, a class lookup and a retain more for each fault).
    @inline(__always)
    func newFault(_ objectID: NSManagedObjectID) -> NSManagedObject {
        faultIDBeingCreated = objectID
        let object = ManagedObjectClasses.instantiate(objectID.entity, insertInto: self)
        if faultIDBeingCreated != nil || object.objectID !== objectID {
            // A subclass initializer did not pass the context on: make the object a fault here.
            faultIDBeingCreated = nil
            if insertedList.remove(object) { eventInserted.remove(object) }
            registry.remove(object, id: object.objectID)
            object.objectID = objectID
            object.state = nil
            object.managedObjectContext = self
        }
        return object
    }

    /// Hands the ID of the fault being created to `NSManagedObject.init` (once).
    func takeFaultID(for entity: NSEntityDescription) -> NSManagedObjectID? {
        guard let id = faultIDBeingCreated, id.entity === entity else { return nil }
        faultIDBeingCreated = nil
        return id
    }

    /// Called by a registered object being freed, on any thread: it leaves the registry at once
    /// (under the registry's lock); what the context cached for it goes at the next
    /// ``forgetFreedObjects()``, on the context's queue.
    func unregisterFreedObject(_ object: NSManagedObject) {
        registry.removeFreed(object, id: object.objectID)
    }

    /// Drops the cached snapshots and refresh marks of objects freed since the last call, unless
    /// a new object of the same ID is registered by now. Runs on the context's queue before a
    /// new object of a known ID is made, and when pending changes are processed.
    func forgetFreedObjects() {
        let freed = registry.takeFreedIDs()
        guard !freed.isEmpty, !rowCache.isEmpty || !refreshedFaults.isEmpty else { return }
        for id in registry.unregistered(freed) {
            rowCache[id.key] = nil
            refreshedFaults.remove(id.key)
        }
    }

    /// The object with `objectID`, loaded: throws `NSManagedObjectReferentialIntegrityError`
    /// (133000) when no store has it.
    open func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        checkConcurrency("existingObject(with:)")
        forgetFreedObjects()
        if let object = registry[objectID], !object.faultFlag { return object }
        guard !objectID.isTemporaryID || parentBacking != nil, let backing,
              let snapshot = try registry[objectID]?.fetchedSnapshot ?? rowCache[objectID.key]
                ?? backing.snapshots(for: [objectID], fresh: false, maxAge: stalenessInterval)[objectID] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError, userInfo: [
                NSLocalizedDescriptionKey: "No object with ID \(objectID) exists in the context's stores.",
                NSAffectedObjectsErrorKey: [objectID],
            ])
        }
        let object = self.object(with: objectID)
        if object.faultFlag {
            rowCache[objectID.key] = nil
            loadAndAwake(object, from: snapshot)
        }
        return object
    }

    // MARK: Inserting and deleting

    /// Registers a new object to be saved at the next save; `awakeFromInsert()` runs the first
    /// time. Inserting a deleted object undeletes it. Traps for an object of another context.
    open func insert(_ object: NSManagedObject) {
        checkConcurrency("insert(_:)", object: object)
        if let other = object.managedObjectContext, other !== self {
            preconditionFailure("An NSManagedObject may only be in one NSManagedObjectContext; \(object.objectID) belongs to another context")
        }
        if deletedList.contains(object) {
            undelete(object)
            return
        }
        if insertedList.contains(object) { return }
        if object.managedObjectContext === self, registry[object.objectID] === object,
           object.hasCommittedSnapshot || object.faultFlag { return }
        object.managedObjectContext = self
        registry[object.objectID] = object
        insertedList.insert(object)
        eventInserted.insert(object)
        eventDeleted.remove(object)
        // Now in the inserted lists: its first change need not look them up (see
        // `recordChange(of:slot:oldValue:)`), until the lists change again.
        object.state?.listedEpoch = listEpoch
        undoManager?.registerUndo(withTarget: self) { context in context.undoInsertion(of: object) }
        if !object.didAwakeFromInsert {
            object.didAwakeFromInsert = true
            object.awakeFromInsert()
        }
    }

    /// Marks an object for deletion at the next save. Its delete rules run at the next
    /// ``processPendingChanges()``. Deleting an object that was inserted and never saved just
    /// discards it (when pending changes are processed).
    open func delete(_ object: NSManagedObject) {
        checkConcurrency("delete(_:)", object: object)
        guard object.managedObjectContext === self, registry[object.objectID] === object,
              !deletedList.contains(object) else { return }
        markDeleted(object)
        pendingDeletions.append(object)
    }

    /// Moves an object into the deleted list and records the undo; no delete rules.
    func markDeleted(_ object: NSManagedObject) {
        object.fireFaultIfNeeded()
        insertedList.remove(object)
        updatedList.remove(object)
        deletedList.insert(object)
        if !eventInserted.remove(object) { eventDeleted.insert(object) }
        eventUpdated.remove(object)
        undoManager?.registerUndo(withTarget: self) { context in context.undelete(object) }
    }

    /// Takes an object out of the deleted list (back into the inserted list when it was never
    /// saved). When its deletion was saved, the object is inserted again, as a new object.
    func undelete(_ object: NSManagedObject) {
        if object.managedObjectContext == nil {
            object.managedObjectContext = self
            object.objectID = NSManagedObjectID(temporaryFor: object.entity)
            object.committedSnapshot = nil
            registry[object.objectID] = object
            insertedList.insert(object)
            eventInserted.insert(object)
            undoManager?.registerUndo(withTarget: self) { context in context.markDeleted(object) }
            if undoManager?.isUndoing == true { object.awakeFromSnapshotEvents(.undoDeletion) }
            return
        }
        deletedList.remove(object)
        pendingDeletions.remove(object)
        eventDeleted.remove(object)
        registry[object.objectID] = object
        if !object.hasCommittedSnapshot {
            insertedList.insert(object)
            eventInserted.insert(object)
        } else if object.hasPersistentChangedValues {
            updatedList.insert(object)
            eventUpdated.insert(object)
        }
        undoManager?.registerUndo(withTarget: self) { context in context.markDeleted(object) }
        if undoManager?.isUndoing == true { object.awakeFromSnapshotEvents(.undoDeletion) }
    }

    // MARK: Changes

    /// Whether anything was inserted, updated or deleted since the last save.
    open var hasChanges: Bool { !insertedList.isEmpty || !updatedList.isEmpty || !deletedList.isEmpty }

    /// The objects inserted since the last save.
    open var insertedObjects: Set<NSManagedObject> { insertedList.set }

    /// The registered objects changed since the last save (not inserted or deleted ones).
    open var updatedObjects: Set<NSManagedObject> { updatedList.set }

    /// The objects deleted since the last save.
    open var deletedObjects: Set<NSManagedObject> { deletedList.set }

    // MARK: Internals

    /// Gives each of `objects` the ID at its index in `ids`, keeping the registry keyed by ID
    /// (one registry lock for all of them: a save gives every inserted object its permanent ID).
    ///
    /// An object a child inserted is known to the child by its temporary ID: its new ID becomes
    /// that ID's alias (``localID(forChildID:)``). A failed save gives the temporary ID back,
    /// and the alias goes with it, so that the child's ID again names the object.
    func reassign(_ objects: [NSManagedObject], to ids: [NSManagedObjectID]) {
        if !childInsertedIDs.isEmpty || !childIDAliases.isEmpty {
            for (object, id) in zip(objects, ids) {
                if childInsertedIDs.remove(object.objectID) != nil {
                    childIDAliases[object.objectID] = id
                } else if id.isTemporaryID, childIDAliases[id] == object.objectID {
                    childIDAliases[id] = nil
                    childInsertedIDs.insert(id)
                }
            }
        }
        registry.reassign(objects, to: ids)
    }

    /// The ID this context knows an object by, given the ID a child names it by (a temporary
    /// ID the child kept after this context saved the object).
    func localID(forChildID id: NSManagedObjectID) -> NSManagedObjectID {
        childIDAliases.isEmpty ? id : childIDAliases[id] ?? id
    }
}

/// Apple's top-level name for the context's concurrency type.
public typealias NSManagedObjectContextConcurrencyType = NSManagedObjectContext.ConcurrencyType
