/// The to-one destinations a run of loads resolved last, one per to-one slot: the rows a
/// prefetch or a fetch reads name the same few destinations over and over (a hundred children
/// of one parent), and each lookup in the registry takes its lock and hashes the ID.
///
/// Made for one run of loads and dropped after it: it holds the objects it found. An object is
/// given again only while it is still the context's (code run by `awakeFromFetch()` may reset
/// the context, or merge a save that deletes it), and only for a plain
/// `NSManagedObjectContext`: a subclass's override of ``NSManagedObjectContext/object(with:)``
/// is called for every row, as before.
final class LastDestination {
    // The last ID resolved for each to-one slot met so far (an entity has few) and its object,
    // at the same index of each array. Unchecked exclusivity: a memo serves one run of loads, on
    // the context's queue, in accesses that never overlap.
    @exclusivity(unchecked) private var slots: [Int] = []
    @exclusivity(unchecked) private var ids: [NSManagedObjectID] = []
    @exclusivity(unchecked) private var objects: [NSManagedObject] = []

    /// A memo for a run of loads into `context`; nil when `context` is of a subclass.
    static func forLoads(into context: NSManagedObjectContext) -> LastDestination? {
        type(of: context) == NSManagedObjectContext.self ? LastDestination() : nil
    }

    /// ``NSManagedObjectContext/object(with:)`` in `context`, unless `id` (the same instance) was
    /// the last asked for in `slot` and its object is still `context`'s.
    func object(with id: NSManagedObjectID, slot: Int, in context: NSManagedObjectContext) -> NSManagedObject {
        if let found = remembered(id, slot: slot, in: context) { return found }
        let found = context.object(with: id)
        remember(found, id: id, slot: slot)
        return found
    }

    /// The object registered in `context` under `id`, nil when there is none (no fault is
    /// made): the memo first, as ``object(with:slot:in:)``, then the registry.
    func registeredObject(with id: NSManagedObjectID, slot: Int, in context: NSManagedObjectContext) -> NSManagedObject? {
        if let found = remembered(id, slot: slot, in: context) { return found }
        guard let found = context.registry[id] else { return nil }
        remember(found, id: id, slot: slot)
        return found
    }

    /// The object remembered for `slot` when it was found for `id` (the same instance) and is
    /// still `context`'s.
    @inline(__always)
    private func remembered(_ id: NSManagedObjectID, slot: Int, in context: NSManagedObjectContext) -> NSManagedObject? {
        guard let index = slots.firstIndex(of: slot), ids[index] === id,
              objects[index].unretainedContext?.toOpaque() == Unmanaged.passUnretained(context).toOpaque() else { return nil }
        return objects[index]
    }

    /// Remembers `object`, found for `id`, as the last destination of `slot`.
    private func remember(_ object: NSManagedObject, id: NSManagedObjectID, slot: Int) {
        guard let index = slots.firstIndex(of: slot) else {
            slots.append(slot)
            ids.append(id)
            objects.append(object)
            return
        }
        ids[index] = id
        objects[index] = object
    }
}
