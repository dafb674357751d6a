import Foundation

/// A test aid, not API: runs the SQLite store's in-place lightweight migration
/// (``SQLiteStore/migrateInPlace(at:options:configurationName:sourceModel:destinationModel:mapping:progress:)``)
/// from another module, for the child process of the migration kill test
/// (`coredata store migrate-in-place`, hidden).
@_spi(Testing) public enum SQLiteInPlaceMigrationTesting {
    /// Migrates the SQLite store at `url`; `true` when migrated, `false` when the mapping is not
    /// lightweight-shaped for SQL.
    public static func migrate(at url: URL, sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel,
                               mapping: NSMappingModel) throws -> Bool {
        try SQLiteStore.migrateInPlace(at: url, options: nil, sourceModel: sourceModel, destinationModel: destinationModel,
                                       mapping: mapping, progress: nil) == .migrated
    }
}
