import Foundation
import OpenCoreData

/// The sizes of the workloads: the issue's at scale 1, scaled down with `--scale`.
struct Sizes: Codable {
    var w1Inserts = 50_000
    var w2Rows = 200_000
    var w3Rows = 1_000_000
    var w3Queries = 200
    var w4Parents = 1_000
    var w4ChildrenPerParent = 100
    var w5Rows = 1_000_000
    var w5BatchSize = 500
    var w6Updates = 10_000
    /// W7: transactions per thread, two threads; each transaction changes 10 items.
    var w7Transactions = 5_000
    var w7Threads = 2
    var w7ItemsPerTransaction = 10
    /// W9: rows of one batch insert.
    var w9Rows = 1_000_000
    /// W10: children linked one at a time to one parent, then deleted with it.
    var w10Children = 100_000
    /// W11: W10 with an undo manager recording, on fewer children.
    var w11Children = 20_000
    /// W12: W10 with each link its own event, on fewer children.
    var w12Children = 20_000

    init(scale: Double) {
        func scaled(_ value: Int) -> Int { max(1, Int((Double(value) * scale).rounded())) }
        w1Inserts = scaled(w1Inserts)
        w2Rows = scaled(w2Rows)
        w3Rows = max(1_000, scaled(w3Rows))
        w4Parents = scaled(w4Parents)
        w5Rows = scaled(w5Rows)
        w6Updates = min(w2Rows, scaled(w6Updates))
        w7Transactions = scaled(w7Transactions)
        w9Rows = scaled(w9Rows)
        w10Children = scaled(w10Children)
        w11Children = scaled(w11Children)
        w12Children = scaled(w12Children)
    }

    /// W7's store: every transaction of every thread has items of its own.
    var w7Rows: Int { w7Threads * w7Transactions * w7ItemsPerTransaction }
}

/// Builds the store files the workloads read. The schema comes from OpenCoreData's SQLite store
/// when it is available (so all three engines read exactly what Core Data writes), otherwise
/// from ``BenchModel/fallbackSchema``; rows are then filled through the C API (not timed).
struct DataSets {
    let directory: URL
    let model: NSManagedObjectModel
    /// Why OpenCoreData's SQLite store can't run the workloads, or nil when it can.
    let openCoreDataUnavailable: String?

    init(directory: URL) throws {
        self.directory = directory
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        model = BenchModel.make()
        let probe = directory.appendingPathComponent("probe.sqlite")
        do {
            try Self.createWithOpenCoreData(at: probe, model: model)
            openCoreDataUnavailable = nil
        } catch {
            openCoreDataUnavailable = "\(error)"
        }
        Self.remove(probe)
    }

    /// A new, empty store file named `name` in the data-set directory.
    func newStore(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        Self.remove(url)
        if openCoreDataUnavailable == nil {
            try Self.createWithOpenCoreData(at: url, model: model)
        } else {
            try RawDatabase(path: url.path).execute(BenchModel.fallbackSchema)
        }
        return url
    }

    /// A store of `count` items with the index W3 and W6 use (`ZA0`, named as Apple names a
    /// fetch index).
    func itemStore(_ name: String, count: Int) throws -> URL {
        let url = try newStore(name)
        let db = try RawDatabase(path: url.path)
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; BEGIN")
        let entity = try db.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
        let insert = try db.prepare("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, \(BenchModel.itemColumns.joined(separator: ", "))) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        let total = Int64(count)
        for pk in 1...total {
            insert.bind(pk, at: 1)
            insert.bind(entity, at: 2)
            for k in 0..<10 { insert.bind(BenchValues.item(pk, k, count: total), at: Int32(3 + k)) }
            _ = try insert.step()
            insert.reset()
        }
        try db.execute("""
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = \(entity);
            CREATE INDEX IF NOT EXISTS Z_Item_byA0 ON ZITEM (ZA0);
            COMMIT; PRAGMA wal_checkpoint(TRUNCATE);
            """)
        return url
    }

    /// A store of `parents` parents with `perParent` children each; child `c` of parent `p`
    /// has primary key `(p - 1) * perParent + c`.
    func parentStore(_ name: String, parents: Int, perParent: Int) throws -> URL {
        let url = try newStore(name)
        let db = try RawDatabase(path: url.path)
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; BEGIN")
        let parentEntity = try db.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Parent'")
        let childEntity = try db.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Child'")
        let insertParent = try db.prepare("INSERT INTO ZPARENT (Z_PK, Z_ENT, Z_OPT, ZINDEX) VALUES (?, ?, 1, ?)")
        let insertChild = try db.prepare("INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZVALUE, ZPARENT) VALUES (?, ?, 1, ?, ?)")
        var childPK: Int64 = 0
        for parent in 1...Int64(parents) {
            insertParent.bind(parent, at: 1)
            insertParent.bind(parentEntity, at: 2)
            insertParent.bind(parent - 1, at: 3)
            _ = try insertParent.step()
            insertParent.reset()
            for _ in 0..<perParent {
                childPK += 1
                insertChild.bind(childPK, at: 1)
                insertChild.bind(childEntity, at: 2)
                insertChild.bind(BenchValues.childValue(childPK), at: 3)
                insertChild.bind(parent, at: 4)
                _ = try insertChild.step()
                insertChild.reset()
            }
        }
        try db.execute("""
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(parents) WHERE Z_ENT = \(parentEntity);
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(childPK) WHERE Z_ENT = \(childEntity);
            COMMIT; PRAGMA wal_checkpoint(TRUNCATE);
            """)
        return url
    }

    /// A copy of the store file `url` (whose WAL was checkpointed) named `name`, for a workload
    /// that changes its store and must start from the same data on every run.
    func copy(of url: URL, as name: String) throws -> URL {
        let copy = directory.appendingPathComponent(name)
        Self.remove(copy)
        try FileManager.default.copyItem(at: url, to: copy)
        return copy
    }

    static func createWithOpenCoreData(at url: URL, model: NSManagedObjectModel) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        try coordinator.remove(store)
    }

    static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}
