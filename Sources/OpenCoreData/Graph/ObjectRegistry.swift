/// The objects a context has registered, one per ID, held without retaining them.
///
/// Core Data keeps unchanged registered objects weakly; so does this registry. An object that
/// is freed unregisters itself (``NSManagedObject``'s `deinit` calls
/// ``NSManagedObjectContext/unregisterFreedObject(_:)``), so an entry never outlives its object.
/// Objects with unsaved changes stay alive because the context's inserted, updated and deleted
/// lists retain them.
///
/// Everything else in a context is touched only on the context's queue, but `deinit` runs on
/// whichever thread drops the last reference. So the registry has its own small lock: a freed
/// object leaves it at once, from any thread, and the IDs of freed objects wait in
/// ``takeFreedIDs()`` until the context, on its queue, drops what it cached for them. Lookups
/// retain the object while they hold the lock.
final class ObjectRegistry {
    /// Guards ``entries`` and ``freedIDs``.
    private let lock = NSLock()
    private var entries: [NSManagedObjectID: Unmanaged<NSManagedObject>] = [:]
    /// IDs of objects freed since the context last looked (see ``takeFreedIDs()``).
    private var freedIDs: [NSManagedObjectID] = []

    /// The registered object with `id` (set `nil` to unregister).
    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        get { lock.withLock { entries[id]?.takeUnretainedValue() } }
        set { lock.withLock { entries[id] = newValue.map { Unmanaged.passUnretained($0) } } }
    }

    /// Every registered object.
    var values: [NSManagedObject] { lock.withLock { entries.values.map { $0.takeUnretainedValue() } } }

    var count: Int { lock.withLock { entries.count } }

    /// Unregisters `object` if it is the one registered under `id` (one lock for the check and
    /// the removal).
    func remove(_ object: NSManagedObject, id: NSManagedObjectID) {
        lock.withLock { _ = removeLocked(object, id: id) }
    }

    /// Removes the entry of `id` if it is `object`; returns whether it did. Call with the lock held.
    private func removeLocked(_ object: NSManagedObject, id: NSManagedObjectID) -> Bool {
        guard let index = entries.index(forKey: id),
              entries.values[index].toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return false }
        entries.remove(at: index)
        return true
    }

    /// Unregisters a freed `object` if it is the one registered under `id`, without retaining
    /// it, and remembers `id` for ``takeFreedIDs()``. Safe on any thread.
    func removeFreed(_ object: NSManagedObject, id: NSManagedObjectID) {
        lock.withLock {
            if removeLocked(object, id: id) { freedIDs.append(id) }
        }
    }

    /// The IDs of the objects freed since the last call.
    func takeFreedIDs() -> [NSManagedObjectID] {
        lock.withLock {
            defer { freedIDs.removeAll() }
            return freedIDs
        }
    }

    func removeAll() {
        lock.withLock {
            entries.removeAll()
            freedIDs.removeAll()
        }
    }
}
