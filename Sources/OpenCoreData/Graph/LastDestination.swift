/// The to-one destination a run of loads resolved last: the rows a prefetch or a fetch reads
/// name the same few destinations over and over (a hundred children of one parent), and each
/// lookup in the registry takes its lock and hashes the ID.
///
/// Made for one run of loads and dropped after it: it holds the object it found, and an ID
/// names the same registered object for the length of the run.
final class LastDestination {
    private var id: NSManagedObjectID?
    private var object: NSManagedObject?

    /// ``NSManagedObjectContext/object(with:)`` in `context`, unless `id` (the same instance) was
    /// the last asked for.
    func object(with id: NSManagedObjectID, in context: NSManagedObjectContext) -> NSManagedObject {
        if let object, self.id === id { return object }
        let found = context.object(with: id)
        self.id = id
        object = found
        return found
    }
}
