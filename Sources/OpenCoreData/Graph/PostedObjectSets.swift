/// The sets of objects a context's `NSManagedObjectContextObjectsDidChange` posted during a
/// save, by userInfo key, with the objects each was made of, in order: the save's
/// `NSManagedObjectContextDidSave` posts the same set again for the same objects instead of
/// building it a second time.
///
/// A save of changes made in one event posts every inserted object twice, once when the save
/// processes its pending changes and once when it has saved; the second set is reused only when
/// the save's objects are the posted ones, in the same order (a pointer comparison each), so
/// that what changed between the two (a `willSave()` that inserts, a constraint conflict
/// resolved) is posted as it is.
struct PostedObjectSets {
    private var posted: [String: (objects: [NSManagedObject], set: Set<NSManagedObject>)] = [:]

    /// Remembers `set`, made of `objects`, posted under `key` (replacing an earlier event's).
    mutating func record(_ set: Set<NSManagedObject>, of objects: [NSManagedObject], under key: String) {
        posted[key] = (objects, set)
    }

    /// The set posted under `key` when it was made of exactly `objects`, in order; else nil.
    func set(of objects: [NSManagedObject], under key: String) -> Set<NSManagedObject>? {
        guard !objects.isEmpty, let (postedObjects, set) = posted[key], postedObjects.count == objects.count,
              postedObjects.elementsEqual(objects, by: ===) else { return nil }
        return set
    }
}
