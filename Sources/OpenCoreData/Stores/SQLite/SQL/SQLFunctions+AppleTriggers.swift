import Foundation
import GRDB

/// The SQL functions Apple's Core Data registers on its connections for the triggers it writes
/// into stores, so that a store with those triggers can be written by ours.
///
/// Apple's stores carry triggers for derived attributes (`Z_DA_…`), for persistent history
/// and batch deletes, and for CloudKit mirroring. Their bodies update the store with plain SQL
/// and then call a function back into Core Data, which tells the contexts which objects the
/// trigger changed. Without the functions, any `INSERT`, `UPDATE` or `DELETE` that fires such a
/// trigger fails with "no such function".
///
/// The names and argument counts are those of Core Data's `NSSQLiteRegisterFunctions`, and the
/// trigger shape (`… SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZITEM', Z_ENT, Z_PK,
/// 'update', ZUPDATE) FROM ZITEM WHERE Z_PK = NEW.Z_PK; END`) that of its derived-attribute
/// triggers, as decompilations of CoreData.framework and public write-ups (fatbobman.com on
/// derived attributes) show them.
///
/// Differs from Apple: the notifying functions do nothing and return NULL — the trigger's own
/// SQL still runs, so the store's rows are right, but objects already in a context are not
/// refreshed with the values a trigger computed until they are fetched again.
/// `NSCoreDataNow()` returns the current time as seconds since 2001 (Core Data's date form).
/// `NSCoreDataDATriggerMergeableString` and `NSPersistentHistoryBatchDeleteUpdateTriggerDataBlobOperator`
/// are not documented anywhere we could find; they return NULL.
extension SQLFunctions {
    /// Core Data's notifying trigger functions, with their argument counts (`nil`: any).
    static let appleTriggerFunctions: [(name: String, arguments: Int?)] = [
        ("NSCoreDataTriggerUpdateAffectedObjectValue", 5),
        ("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", 5),
        ("NSCoreDataDATriggerUpdatedAffectedObjectValue", 5),
        ("NSCoreDataDATriggerMergeableString", 5),
        ("NSPersistentHistoryBatchDeleteUpdateTrigger", nil),
        ("NSPersistentHistoryBatchDeleteUpdateTriggerDataBlobOperator", nil),
    ]

    /// Registers ``appleTriggerFunctions`` (doing nothing) and `NSCoreDataNow()` on `db`.
    static func registerAppleTriggerFunctions(on db: Database) {
        for function in appleTriggerFunctions {
            db.add(function: DatabaseFunction(function.name, argumentCount: function.arguments, pure: false) { _ in nil })
        }
        db.add(function: DatabaseFunction("NSCoreDataNow", argumentCount: 0, pure: false) { _ in
            Date().timeIntervalSinceReferenceDate
        })
    }
}
