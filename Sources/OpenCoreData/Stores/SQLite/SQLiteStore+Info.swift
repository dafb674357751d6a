import Foundation
import GRDB

/// One row of a SQLite store's `Z_PRIMARYKEY` table.
public struct SQLiteStoreEntityRow: Sendable, Equatable, Codable {
    /// `Z_ENT`: the entity's number.
    public var entityNumber: Int64
    /// `Z_NAME`: the entity's name.
    public var name: String
    /// `Z_SUPER`: the superentity's number, 0 for a root entity.
    public var superEntityNumber: Int64
    /// `Z_MAX`: the last primary key allocated (kept on root entities).
    public var maxPrimaryKey: Int64

    public init(entityNumber: Int64, name: String, superEntityNumber: Int64, maxPrimaryKey: Int64) {
        self.entityNumber = entityNumber
        self.name = name
        self.superEntityNumber = superEntityNumber
        self.maxPrimaryKey = maxPrimaryKey
    }
}

extension SQLiteStore {
    /// The `Z_PRIMARYKEY` rows of the SQLite store at `url`, read through a read-only
    /// connection without writing to its files (see `SQLiteStore+ReadOnlyCopy.swift`). Rows
    /// above 15000 are Apple's own entities (persistent history, CloudKit mirroring). Not in
    /// Apple's API (for `coredata store info`).
    public static func entityTable(at url: URL) throws -> [SQLiteStoreEntityRow] {
        try readingFile(at: url) { db in
            try SQLiteStoreCatalog.primaryKeyRows(db)
        }
    }
}
