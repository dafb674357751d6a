/// The kinds of change a fetched results controller reports to its delegate, with Apple's raw
/// values.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// An object or section was inserted; the new index path (or section index) says where.
    case insert = 1
    /// An object or section was deleted; the index path (or section index) is the old one.
    case delete = 2
    /// An object moved: the index path is the old one, the new index path the new one.
    case move = 3
    /// An object changed without moving; both index paths are given (old and new arrangement).
    case update = 4
}
