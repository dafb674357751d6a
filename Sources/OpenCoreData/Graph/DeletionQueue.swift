/// The objects deleted since the delete rules last ran, in the order they were deleted, taken
/// from the front: what ``NSManagedObjectContext/propagateDeletions()`` works through.
///
/// Taken by index (removing the first element each time moved the rest: O(n²) to delete n
/// objects at once). One queue for the context, so that a `prepareForDeletion()` that makes the
/// context process its pending changes again runs the rules of every deletion still waiting,
/// as the outer run would have.
struct DeletionQueue {
    private var objects: [NSManagedObject] = []
    /// The first object not taken yet.
    private var head = 0

    var isEmpty: Bool { head == objects.count }

    mutating func append(_ object: NSManagedObject) { objects.append(object) }

    /// Takes the next object; nil when none waits (the queue then lets its storage go).
    mutating func next() -> NSManagedObject? {
        guard head < objects.count else {
            removeAll()
            return nil
        }
        head += 1
        return objects[head - 1]
    }

    /// Takes `object` out of the objects waiting.
    mutating func remove(_ object: NSManagedObject) {
        guard objects[head...].contains(where: { $0 === object }) else { return }
        objects.replaceSubrange(head..., with: objects[head...].filter { $0 !== object })
    }

    mutating func removeAll() {
        objects = []
        head = 0
    }
}
