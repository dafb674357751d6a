import Foundation

/// The errors for data of an existing SQLite store that can't be read exactly: values of the
/// wrong type, entity numbers that name no entity. Each names the table, the column and the row.
///
/// What happens to such data, per case (Apple's Core Data coerces silently or crashes; we never
/// answer silently with something the store does not hold):
/// - reading objects (fetches, faults, prefetching, to-many destinations, object IDs and
///   dictionary results): `NSPersistentStoreOperationError` (134070), thrown by the operation;
///   a fault, which can't throw, logs the error (see `NSManagedObjectContext.fulfillFault`);
/// - a row whose `Z_ENT` names no entity of its table: the same error whenever a read meets it.
///   A fetch of a root entity (with its subentities) reads every row of the table, so it
///   always meets such rows; a fetch of a subentity selects its own `Z_ENT` values only;
/// - `Z_METADATA` (`Z_UUID` not text, `Z_PLIST` not a blob or not a property-list dictionary):
///   the store does not open, `NSFileReadCorruptFileError` (259) naming the column.
enum SQLiteRowErrors {
    /// `NSPersistentStoreOperationError` (134070): the row `primaryKey` of `table` can't be read
    /// because of the value in `column`.
    static func unreadableRow(table: String, column: String, primaryKey: Int64?, _ problem: String, store: NSPersistentStore) -> NSError {
        let row = primaryKey.map { "row Z_PK \($0)" } ?? "a row"
        return PersistentStoreErrors.make(NSPersistentStoreOperationError,
            "The \(PersistentStoreErrors.name(of: store)) holds data it can't read: table \(table), column \(column), \(row): \(problem).",
            stores: [store], url: store.url)
    }

    /// `NSFileReadCorruptFileError` (259) for the `Z_METADATA` row: its `column` can't be read.
    static func unreadableMetadata(column: String, version: Int64?, _ problem: String) -> NSError {
        let row = version.map { "row Z_VERSION \($0)" } ?? "its row"
        return PersistentStoreErrors.make(NSFileReadCorruptFileError,
            "The store's metadata can't be read: table Z_METADATA, column \(column), \(row): \(problem).")
    }
}

/// A value of a dictionary result's column that its attribute can't hold, with where it was
/// (dictionary rows carry no `Z_PK`); the fetch reports it as ``SQLiteRowErrors/unreadableRow(table:column:primaryKey:_:store:)``.
struct SQLiteColumnValueError: Error, CustomStringConvertible {
    let table: String
    let column: String
    let problem: String
    var description: String { "table \(table), column \(column): \(problem)" }
}
