/// The objects a context has registered, one per ID, held without retaining them.
///
/// Core Data keeps unchanged registered objects weakly; so does this registry. An object that
/// is freed unregisters itself (``NSManagedObject``'s `deinit` calls
/// ``NSManagedObjectContext/unregisterFreedObject(_:)``), so an entry never outlives its object.
/// Objects with unsaved changes stay alive because the context's inserted, updated and deleted
/// lists retain them.
struct ObjectRegistry {
    private var entries: [NSManagedObjectID: Unmanaged<NSManagedObject>] = [:]

    /// The registered object with `id` (set `nil` to unregister).
    subscript(id: NSManagedObjectID) -> NSManagedObject? {
        get { entries[id]?.takeUnretainedValue() }
        set { entries[id] = newValue.map { Unmanaged.passUnretained($0) } }
    }

    /// Every registered object.
    var values: [NSManagedObject] { entries.values.map { $0.takeUnretainedValue() } }

    var count: Int { entries.count }

    /// Unregisters `object` if it is the one registered under `id`, without retaining it (it
    /// may be being freed).
    mutating func remove(_ object: NSManagedObject, id: NSManagedObjectID) {
        guard let index = entries.index(forKey: id),
              entries.values[index].toOpaque() == Unmanaged.passUnretained(object).toOpaque() else { return }
        entries.remove(at: index)
    }

    mutating func removeAll() { entries.removeAll() }
}
