import Foundation

/// The XML store (`NSXMLStoreType`): an atomic store kept in one file in Apple's XML store
/// format (DESIGN decision 6), readable by Apple's Core Data and reading Apple's files.
///
/// ```xml
/// <?xml version="1.0"?>
/// <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
///
/// <database>
///     <databaseInfo>
///         <version>134481920</version>
///         <UUID>…</UUID>
///         <nextObjectID>104</nextObjectID>
///         <metadata><plist version="1.0">…</plist></metadata>
///     </databaseInfo>
///     <object type="EMPLOYEE" id="z102">
///         <attribute name="hired" type="date">445103622.25000000000000000000</attribute>
///         <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z104"></relationship>
///     </object>
/// </database>
/// ```
///
/// - Entity names are written uppercased and property names lowercased; reading maps them back
///   to the model's spelling case-insensitively. Objects are written in id order; in an object,
///   attributes then relationships, each sorted by name. A nil attribute has no element; every
///   relationship has one (to-one `type="1/1"`, to-many `type="0/0"`, ordered to-many in order),
///   with `idrefs` (space-separated) only when it has destinations.
/// - Object ids `z<n>` are the rows' primary keys. They are unique in the whole file, so this
///   store hands out keys from one counter for all entities (``newObjectIDs(for:count:)``);
///   `nextObjectID` is the last key handed out, as Apple writes it.
/// - Values are spelled as `XMLStoreValueCoding` documents (dates with 20 fraction digits,
///   decimals exactly, binary in base64, transformables through their value transformer).
/// - The file does not record optimistic-locking versions: rows read from it have version 1.
///   Another coordinator's save into the same file is detected from the file itself (see
///   ``AtomicFileStore``).
///
/// Differences from Apple: the format version written is Apple's (`134481920`); a file with a
/// larger version is refused with `NSPersistentStoreInvalidTypeError` (134000).
open class XMLStore: AtomicFileStore, @unchecked Sendable {
    override open class var storeType: String { NSXMLStoreType }

    /// The `<version>` Apple's Core Data writes, and the newest this store reads.
    public static let formatVersion: Int64 = 134_481_920

    /// The first `nextObjectID` of a new file: Apple's first object is `z102`.
    static let firstObjectID: Int64 = 101

    /// Hands out keys from one counter shared by every entity (ids are unique in the file).
    open override func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        lock.lock()
        defer { lock.unlock() }
        let last = max(contents.lastPrimaryKeys.values.max() ?? 0, Self.firstObjectID)
        let root = AtomicStoreContents.rootName(of: entity)
        contents.lastPrimaryKeys[root] = last + Int64(count)
        return (0..<Int64(count)).map { objectID(for: entity, primaryKey: last + 1 + $0) }
    }

    open override func decodeContents(_ data: Data, from url: URL) throws -> AtomicStoreContents {
        try XMLStoreReader(store: self, url: url).read(data, metadataOnly: false)
    }

    open override func decodeMetadata(_ data: Data, from url: URL) throws -> [String: Any] {
        try XMLStoreReader(store: self, url: url).read(data, metadataOnly: true).metadata
    }

    open override func encodeContents(_ contents: AtomicStoreContents) throws -> Data {
        try XMLStoreWriter(store: self).write(contents)
    }
}
