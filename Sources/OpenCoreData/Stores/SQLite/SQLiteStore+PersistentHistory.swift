import Foundation
import GRDB
import Logging

/// Stores that carry Apple's persistent history (`ATRANSACTION`, `ACHANGE`,
/// `ATRANSACTIONSTRING`).
///
/// Apple's rule, which we follow: a store whose history tables hold rows, opened for writing
/// without `NSPersistentHistoryTrackingKey`, is forced read-only — Core Data logs "Store opened
/// without NSPersistentHistoryTrackingKey but previously had been opened with
/// NSPersistentHistoryTrackingKey - Forcing into Read Only mode store at …" and sets the store
/// read-only (`_hasPersistentHistoryTables` and `hasHistoryRows` in decompiled
/// `NSSQLCore`; Apple's developer forums, thread 118924). Writing such a store without
/// history would hide the changes from the processes and CloudKit mirroring that read it.
///
/// Opened with `NSPersistentHistoryTrackingKey`, the store records every save and batch
/// request in those tables (`SQLiteStore+HistoryRecording.swift`). Differs from Apple: nothing is
/// recorded for CloudKit mirroring; its tables are left as they are.
extension SQLiteStore {
    /// Whether the database has Apple's persistent-history tables with at least one transaction.
    static func hasPersistentHistoryRows(_ db: Database) throws -> Bool {
        guard try db.tableExists("ATRANSACTION") else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM ATRANSACTION)") ?? false
    }

    /// Applies Apple's rule above to a store just opened for writing on `db`: returns whether
    /// the store must be read-only, logging why.
    func mustForceReadOnlyForHistory(_ db: Database) throws -> Bool {
        guard !isReadOnly, options?[NSPersistentHistoryTrackingKey] == nil || storeOptionBool(options, NSPersistentHistoryTrackingKey) == false,
              try Self.hasPersistentHistoryRows(db) else { return false }
        Logger(label: "OpenCoreData.SQLiteStore").warning(
            "Store opened without NSPersistentHistoryTrackingKey but previously had been opened with NSPersistentHistoryTrackingKey - Forcing into Read Only mode store at '\(url?.path ?? "?")'")
        return true
    }
}
