import Foundation
import GRDB

/// Sharing one file with other coordinators and processes: the row cache is dropped when
/// another connection committed.
extension SQLiteStore {
    /// Empties the row cache when another connection (another coordinator's store, or another
    /// process) committed to the file since the last call: SQLite's `PRAGMA data_version`
    /// changes exactly then (never for this connection's own commits, which keep the cache
    /// current themselves). Called before every fetch and every read served from the cache,
    /// so a fetch, a fault or a refresh after another coordinator's save sees its values.
    func forgetRowsChangedElsewhere() throws {
        guard let database else { return }
        let version = try database.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
        if sharedFileState.changedElsewhere(dataVersion: version) { rowCache.removeAll() }
    }
}

/// The last `PRAGMA data_version` a store saw (``SQLiteStore/forgetRowsChangedElsewhere()``).
final class SQLiteSharedFileState: @unchecked Sendable {
    // `@unchecked Sendable`: `lastDataVersion` is only touched under `lock`.
    private let lock = NSLock()
    private var lastDataVersion: Int64?

    /// Records `dataVersion`; true when it differs from the one recorded before.
    func changedElsewhere(dataVersion: Int64?) -> Bool {
        lock.withLock {
            defer { lastDataVersion = dataVersion }
            return lastDataVersion != nil && lastDataVersion != dataVersion
        }
    }
}
