import Foundation
import GRDB

/// An `Item` row as a GRDB record, decoded by column position (GRDB's fastest record form).
struct ItemRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZITEM"
    static var databaseSelection: [any SQLSelectable] {
        [Column("Z_PK"), Column("Z_ENT"), Column("Z_OPT")] + BenchModel.itemColumns.map { Column($0) }
    }

    var pk: Int64
    var entity: Int64
    var version: Int64
    var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9: Int64

    init(pk: Int64, entity: Int64, count: Int64) {
        self.pk = pk
        self.entity = entity
        version = 1
        a0 = BenchValues.item(pk, 0, count: count); a1 = BenchValues.item(pk, 1, count: count)
        a2 = BenchValues.item(pk, 2, count: count); a3 = BenchValues.item(pk, 3, count: count)
        a4 = BenchValues.item(pk, 4, count: count); a5 = BenchValues.item(pk, 5, count: count)
        a6 = BenchValues.item(pk, 6, count: count); a7 = BenchValues.item(pk, 7, count: count)
        a8 = BenchValues.item(pk, 8, count: count); a9 = BenchValues.item(pk, 9, count: count)
    }

    init(row: Row) {
        pk = row[0]; entity = row[1]; version = row[2]
        a0 = row[3]; a1 = row[4]; a2 = row[5]; a3 = row[6]; a4 = row[7]
        a5 = row[8]; a6 = row[9]; a7 = row[10]; a8 = row[11]; a9 = row[12]
    }

    func encode(to container: inout PersistenceContainer) {
        container["Z_PK"] = pk; container["Z_ENT"] = entity; container["Z_OPT"] = version
        container["ZA0"] = a0; container["ZA1"] = a1; container["ZA2"] = a2; container["ZA3"] = a3
        container["ZA4"] = a4; container["ZA5"] = a5; container["ZA6"] = a6; container["ZA7"] = a7
        container["ZA8"] = a8; container["ZA9"] = a9
    }

    var attributeSum: Int64 { a0 &+ a1 &+ a2 &+ a3 &+ a4 &+ a5 &+ a6 &+ a7 &+ a8 &+ a9 }
}

struct ChildRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "ZCHILD"
    static var databaseSelection: [any SQLSelectable] { [Column("Z_PK"), Column("ZVALUE"), Column("ZPARENT")] }
    var pk: Int64
    var value: Int64
    var parent: Int64
    init(row: Row) { pk = row[0]; value = row[1]; parent = row[2] }
}

struct ParentRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "ZPARENT"
    static var databaseSelection: [any SQLSelectable] { [Column("Z_PK"), Column("ZINDEX")] }
    static let children = hasMany(ChildRecord.self, key: "children", using: ForeignKey(["ZPARENT"]))
    var pk: Int64
    var index: Int64
    init(row: Row) { pk = row[0]; index = row[1] }
}

/// A parent with its children, fetched by GRDB's `including(all:)` (one query per level).
struct ParentWithChildren: FetchableRecord {
    var parent: ParentRecord
    var children: [ChildRecord]
    init(row: Row) {
        parent = ParentRecord(row: row)
        children = row["children"]
    }
}

/// The workloads through GRDB records: a `DatabaseQueue`, records fetched and persisted by GRDB.
enum GRDBWorkloads {
    static func open(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: benchPragmas) }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    static func w1Insert(_ url: URL, count: Int, _ watch: inout Stopwatch) throws {
        let queue = try open(url)
        let entity = try queue.read { db in try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")! }
        watch.start()
        try queue.write { db in
            let base = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity])!
            let total = Int64(count)
            for pk in (base + 1)...(base + total) {
                try ItemRecord(pk: pk, entity: entity, count: total).insert(db)
            }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [base + total, entity])
        }
        watch.stop()
    }

    /// W10 (see ``RawWorkloads/w10LinkAndCascade(_:children:_:)``), through cached statements.
    static func w10LinkAndCascade(_ url: URL, children: Int, _ watch: inout Stopwatch) throws -> Int64 {
        let queue = try open(url)
        let (child, parent) = try queue.read { db in
            (try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Child'") ?? 0,
             try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Parent'") ?? 0)
        }
        watch.start()
        try queue.write { db in
            try db.execute(sql: "INSERT INTO ZPARENT (Z_PK, Z_ENT, Z_OPT, ZINDEX) VALUES (1, ?, 1, 0)", arguments: [parent])
            let insert = try db.cachedStatement(sql: "INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZVALUE, ZPARENT) VALUES (?, ?, 1, ?, 1)")
            for pk in 1...Int64(children) { try insert.execute(arguments: [pk, child, BenchValues.childValue(pk)]) }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [children, child])
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = ?", arguments: [parent])
        }
        watch.stop()
        let linked = try queue.read { db in try Int64.fetchOne(db, sql: RawWorkloads.w10Linked) ?? -1 }
        watch.start()
        try queue.write { db in
            try db.execute(sql: "DELETE FROM ZCHILD WHERE ZPARENT = 1")
            try db.execute(sql: "DELETE FROM ZPARENT WHERE Z_PK = 1")
        }
        watch.stop()
        return linked &* 1_000_003 &+ (try queue.read { db in try Int64.fetchOne(db, sql: RawWorkloads.w10Left) ?? -1 })
    }

    static func w2FetchAll(_ url: URL, _ watch: inout Stopwatch) throws -> Int64 {
        let queue = try open(url)
        watch.start()
        let sum = try queue.read { db in
            try ItemRecord.fetchAll(db).reduce(Int64(0)) { $0 &+ $1.attributeSum }
        }
        watch.stop()
        return sum
    }

    static func w3Query(_ url: URL, rows: Int, queries: Int, _ watch: inout Stopwatch) throws -> Int64 {
        let queue = try open(url)
        watch.start()
        let sum = try queue.read { db in
            var sum: Int64 = 0
            for query in 0..<queries {
                let lower = RawWorkloads.w3Lower(query, rows: rows, queries: queries)
                let items = try ItemRecord
                    .filter(Column("ZA0") >= lower && Column("ZA2") < 50)
                    .order(Column("ZA0"))
                    .limit(100)
                    .fetchAll(db)
                for item in items { sum &+= item.attributeSum }
            }
            return sum
        }
        watch.stop()
        return sum
    }

    static func w4Prefetch(_ url: URL, _ watch: inout Stopwatch) throws -> Int64 {
        let queue = try open(url)
        watch.start()
        let sum = try queue.read { db in
            var sum: Int64 = 0
            for info in try ParentRecord.including(all: ParentRecord.children).asRequest(of: ParentWithChildren.self).fetchAll(db) {
                for child in info.children { sum &+= child.value &+ info.parent.index }
            }
            return sum
        }
        watch.stop()
        return sum
    }

    static func w5Walk(_ url: URL, _ watch: inout Stopwatch) throws -> Int64 {
        let queue = try open(url)
        watch.start()
        let sum = try queue.read { db in
            var sum: Int64 = 0
            let cursor = try ItemRecord.fetchCursor(db)
            while let item = try cursor.next() { sum &+= item.a0 }
            return sum
        }
        watch.stop()
        return sum
    }

    static func w6Update(_ url: URL, count: Int, token: Int64, _ watch: inout Stopwatch) throws {
        let queue = try open(url)
        watch.start()
        try queue.write { db in
            for var item in try ItemRecord.filter(Column("ZA0") < count).fetchAll(db) {
                item.a1 = token
                item.version += 1
                try item.update(db, columns: ["ZA1", "Z_OPT"])
            }
        }
        watch.stop()
    }

    /// A `DatabasePool` shared by two threads, each running `w7Transactions` writes: fetch 10
    /// item records by a range of `ZA0`, add 1 to `ZA5` (and `Z_OPT`), update them. GRDB runs
    /// the pool's writes one at a time on its writer connection.
    static func w7Concurrent(_ url: URL, sizes: Sizes, _ watch: inout Stopwatch) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: benchPragmas) }
        let pool = try DatabasePool(path: url.path, configuration: configuration)
        try timedOnThreads(sizes.w7Threads, &watch, setup: { _ in pool }) { thread, pool in
            let span = Int64(sizes.w7ItemsPerTransaction)
            for transaction in 0..<sizes.w7Transactions {
                let lower = RawWorkloads.w7Lower(thread: thread, transaction: transaction, sizes: sizes)
                try pool.write { db in
                    for var item in try ItemRecord.filter(Column("ZA0") >= lower && Column("ZA0") < lower + span).fetchAll(db) {
                        item.a5 += 1
                        item.version += 1
                        try item.update(db, columns: ["ZA5", "Z_OPT"])
                    }
                }
            }
        }
    }
}
