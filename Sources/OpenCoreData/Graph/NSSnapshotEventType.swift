/// The events `awakeFromSnapshotEvents(_:)` reports, with Core Data's raw values.
public struct NSSnapshotEventType: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// An insertion was undone.
    public static let undoInsertion = NSSnapshotEventType(rawValue: 1 << 1)
    /// A deletion was undone.
    public static let undoDeletion = NSSnapshotEventType(rawValue: 1 << 2)
    /// A change of values was undone.
    public static let undoUpdate = NSSnapshotEventType(rawValue: 1 << 3)
    /// The context rolled back.
    public static let rollback = NSSnapshotEventType(rawValue: 1 << 4)
    /// The object was refreshed.
    public static let refresh = NSSnapshotEventType(rawValue: 1 << 5)
    /// A merge policy changed the object.
    public static let mergePolicy = NSSnapshotEventType(rawValue: 1 << 6)
}
