import Foundation
import GRDB

/// The copy of the model Core Data keeps in a SQLite store (`Z_MODELCACHE`).
extension SQLiteStore {
    /// The model cached in the SQLite store at `url` (read without writing to it), or `nil` when
    /// the store has no cache table or an empty one (stores we write leave it empty).
    ///
    /// Throws ``ManagedObjectModelError`` naming the store and `Z_MODELCACHE` when the cache
    /// cannot be decoded, and the store's errors when `url` is not a SQLite store.
    static func cachedModel(at url: URL) throws -> NSManagedObjectModel? {
        let content: Data? = try readingFile(at: url) { db in
            guard try db.tableExists(SQLiteSchema.modelCacheTable) else { return nil }
            return try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM \(SQLiteSchema.modelCacheTable) WHERE Z_CONTENT IS NOT NULL LIMIT 1")
        }
        guard let content, !content.isEmpty else { return nil }
        return try AppleCompiledModelReader.readModel(fromStoreModelCache: content, store: url)
    }
}
