/// The state of a managed object that a fault does without: values, the committed snapshot,
/// the current event's old values and fetched-property results.
///
/// Kept in one side object so that a fault (an ID and a context) stays small: walking a million
/// objects with `fetchBatchSize` keeps a million faults alive in the result array.
final class ManagedObjectState {
    /// Current values by property name (see ``NSManagedObject/storage``).
    var storage: [String: Any] = [:]
    /// The snapshot last read from or saved to a store.
    var committedSnapshot: ObjectSnapshot?
    /// Old values of the keys changed in the current event.
    var eventChanges: [String: Any] = [:]
    /// Results of fetched properties.
    var fetchedPropertyResults: [String: [Any]] = [:]
    /// The snapshot a fetch read for this fault, loaded when it fires (the fault's own entry of
    /// the context's row cache: no dictionary to look it up in).
    var fetchedSnapshot: ObjectSnapshot?
    /// Whether the persistent values are not loaded.
    var isFault: Bool
    /// Whether `awakeFromInsert()` already ran.
    var didAwakeFromInsert = false

    init(isFault: Bool) {
        self.isFault = isFault
    }
}
