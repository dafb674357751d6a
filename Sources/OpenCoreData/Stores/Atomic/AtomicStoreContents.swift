/// Everything an atomic store holds: its metadata, every row, and the primary-key counters.
///
/// This is what an atomic file store (XML, binary) reads from its file in
/// ``AtomicStore/loadRows()`` and writes in ``AtomicStore/writeRows(_:)``.
public struct AtomicStoreContents: @unchecked Sendable {
    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes`, user keys).
    public var metadata: [String: Any]

    /// The rows: entity name → primary key → snapshot. A row is filed under its exact entity
    /// (not its superentity). Snapshots follow ``ObjectSnapshot``'s conventions, with every
    /// to-many relationship present in ``ObjectSnapshot/toMany``.
    public var rows: [String: [Int64: ObjectSnapshot]]

    /// The last primary key used, by root entity name (Core Data's `Z_MAX`). Keys are allocated
    /// per inheritance tree, so a key names one row among an entity and all its subentities, as
    /// `Z_PK` does in a root entity's SQLite table.
    public var lastPrimaryKeys: [String: Int64]

    /// Contents with the given metadata, rows and key counters.
    public init(metadata: [String: Any] = [:], rows: [String: [Int64: ObjectSnapshot]] = [:],
                lastPrimaryKeys: [String: Int64] = [:]) {
        self.metadata = metadata
        self.rows = rows
        self.lastPrimaryKeys = lastPrimaryKeys
    }

    /// The number of rows of every entity.
    public var rowCount: Int { rows.values.reduce(0) { $0 + $1.count } }

    /// The row `objectID` names, if it is in these contents.
    public func row(for objectID: NSManagedObjectID) -> ObjectSnapshot? {
        guard let name = objectID.entity.name, let key = objectID.primaryKey else { return nil }
        return rows[name]?[key]
    }

    /// Raises each key counter to at least the largest key of its tree's rows, so that a file
    /// that does not record counters (or records them wrong) never hands out a used key.
    mutating func raiseKeyCountersToRows() {
        for (_, entityRows) in rows {
            guard let entity = entityRows.values.first?.objectID.entity, let largest = entityRows.keys.max() else { continue }
            let root = Self.rootName(of: entity)
            if largest > lastPrimaryKeys[root] ?? 0 { lastPrimaryKeys[root] = largest }
        }
    }

    /// The name of the root of `entity`'s inheritance tree, which keys ``lastPrimaryKeys``.
    static func rootName(of entity: NSEntityDescription) -> String {
        var root = entity
        while let parent = root.superentity { root = parent }
        return root.name ?? ""
    }
}
