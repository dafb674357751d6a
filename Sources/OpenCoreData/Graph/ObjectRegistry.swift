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
/// ``takeFreedIDs()`` until the context, on its queue, drops what it cached for them.
///
/// Entries are Swift `weak` references, read and written only under the lock: an object whose
/// last reference was just dropped on another thread is already deinitializing and waits on this
/// lock to unregister; a weak load gives `nil` for it instead of retaining a dying object again
/// (which would trap). Removal compares addresses, so a deinitializing object still finds its
/// own entry.
final class ObjectRegistry {
    /// One registered object, held weakly, with its address for removal.
    ///
    /// A class: a struct holding the `weak` reference inline, stored in the dictionary, crashed
    /// in `swift_weakLoadStrong` on Linux (Swift 6.3) under the concurrent test.
    private final class Entry {
        weak var object: NSManagedObject?
        let address: ObjectIdentifier

        init(_ object: NSManagedObject) {
            self.object = object
            address = ObjectIdentifier(object)
        }
    }

    /// Guards ``entries`` and ``freedIDs``.
    private let lock = NSLock()
    private var entries: [NSManagedObjectID: Entry] = [:]
    /// IDs of objects freed since the context last looked (see ``takeFreedIDs()``).
    private var freedIDs: [NSManagedObjectID] = []

    /// The registered object with `id` (set `nil` to unregister).
    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        get { lock.withLock { entries[id]?.object } }
        set { lock.withLock { entries[id] = newValue.map(Entry.init) } }
    }

    /// Every registered object.
    var values: [NSManagedObject] { lock.withLock { entries.values.compactMap(\.object) } }

    var count: Int { lock.withLock { entries.count } }

    /// Unregisters `object` if it is the one registered under `id` (one lock for the check and
    /// the removal).
    func remove(_ object: NSManagedObject, id: NSManagedObjectID) {
        lock.withLock { _ = removeLocked(object, id: id) }
    }

    /// Removes the entry of `id` if it is `object`; returns whether it did. Call with the lock held.
    private func removeLocked(_ object: NSManagedObject, id: NSManagedObjectID) -> Bool {
        guard let index = entries.index(forKey: id),
              entries.values[index].address == ObjectIdentifier(object) else { return false }
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
