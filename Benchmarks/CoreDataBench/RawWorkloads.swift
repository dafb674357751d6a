import Foundation

/// Measures the timed part of a workload; setup before `start()` and checks after `stop()` are
/// not counted.
struct Stopwatch {
    private var started: UInt64 = 0
    private(set) var nanoseconds: UInt64 = 0

    init() {}
    init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    mutating func start() { started = DispatchTime.now().uptimeNanoseconds }
    mutating func stop() { nanoseconds += DispatchTime.now().uptimeNanoseconds - started }
    var seconds: Double { Double(nanoseconds) / 1e9 }
}

/// The connection settings the raw and GRDB engines use, matching what the SQLite store sets
/// (WAL journal, synchronous NORMAL), so all three do the same I/O.
let benchPragmas = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"

/// The workloads through SQLite's C API: prepared statements, bound integers, column reads.
/// This is the limit the other engines are measured against.
enum RawWorkloads {
    static let itemSelect = "SELECT Z_PK, \(BenchModel.itemColumns.joined(separator: ", ")) FROM ZITEM"

    static func open(_ url: URL) throws -> RawDatabase {
        let db = try RawDatabase(path: url.path)
        try db.execute(benchPragmas)
        return db
    }

    static func w1Insert(_ url: URL, count: Int, _ watch: inout Stopwatch) throws {
        let db = try open(url)
        let entity = try db.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
        watch.start()
        try w1InsertTimed(db, entity: entity, count: count)
        watch.stop()
    }

    /// W1's timed part. Not inlined, so that `scripts/bench-callgrind.sh` can count its
    /// instructions alone (`valgrind --toggle-collect`).
    @inline(never) static func w1InsertTimed(_ db: RawDatabase, entity: Int64, count: Int) throws {
        try db.execute("BEGIN IMMEDIATE")
        let base = try db.integer("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(entity)")
        let insert = try db.prepare("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, \(BenchModel.itemColumns.joined(separator: ", "))) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        let total = Int64(count)
        for pk in (base + 1)...(base + total) {
            insert.bind(pk, at: 1)
            insert.bind(entity, at: 2)
            for k in 0..<10 { insert.bind(BenchValues.item(pk, k, count: total), at: Int32(3 + k)) }
            _ = try insert.step()
            insert.reset()
        }
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(base + total) WHERE Z_ENT = \(entity); COMMIT")
    }

    /// W10: one parent and `children` rows pointing to it, one transaction; then the children
    /// and the parent deleted (two set-based statements), one transaction. Returns the
    /// parent's children after the first part (their count times 1,000,003 plus the sum of
    /// their values) plus the rows left after the second.
    static func w10LinkAndCascade(_ url: URL, children: Int, _ watch: inout Stopwatch) throws -> Int64 {
        let db = try open(url)
        let child = try db.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Child'")
        let parent = try db.integer("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Parent'")
        watch.start()
        try db.execute("BEGIN IMMEDIATE; INSERT INTO ZPARENT (Z_PK, Z_ENT, Z_OPT, ZINDEX) VALUES (1, \(parent), 1, 0)")
        let insert = try db.prepare("INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZVALUE, ZPARENT) VALUES (?, ?, 1, ?, 1)")
        for pk in 1...Int64(children) {
            insert.bind(pk, at: 1)
            insert.bind(child, at: 2)
            insert.bind(BenchValues.childValue(pk), at: 3)
            _ = try insert.step()
            insert.reset()
        }
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(children) WHERE Z_ENT = \(child); UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = \(parent); COMMIT")
        watch.stop()
        let linked = try db.integer(w10Linked)
        watch.start()
        try db.execute("BEGIN IMMEDIATE; DELETE FROM ZCHILD WHERE ZPARENT = 1; DELETE FROM ZPARENT WHERE Z_PK = 1; COMMIT")
        watch.stop()
        return linked &* 1_000_003 &+ (try db.integer(w10Left))
    }

    /// W10's checks: the parent's children (count and values), and the rows left.
    static let w10Linked = "SELECT count(*) * 1000003 + coalesce(sum(ZVALUE), 0) FROM ZCHILD WHERE ZPARENT = (SELECT min(Z_PK) FROM ZPARENT)"
    static let w10Left = "SELECT (SELECT count(*) FROM ZCHILD) + (SELECT count(*) FROM ZPARENT)"

    static func w2FetchAll(_ url: URL, _ watch: inout Stopwatch) throws -> Int64 {
        let db = try open(url)
        watch.start()
        let sum = try w2FetchAllTimed(db)
        watch.stop()
        return sum
    }

    /// W2's timed part, not inlined (see ``w1InsertTimed(_:entity:count:)``).
    @inline(never) static func w2FetchAllTimed(_ db: RawDatabase) throws -> Int64 {
        let select = try db.prepare(itemSelect)
        var sum: Int64 = 0
        while try select.step() {
            for column in 1...10 { sum &+= select.int64(Int32(column)) }
        }
        return sum
    }

    static func w3Query(_ url: URL, rows: Int, queries: Int, _ watch: inout Stopwatch) throws -> Int64 {
        let db = try open(url)
        watch.start()
        let select = try db.prepare("\(itemSelect) WHERE ZA0 >= ? AND ZA2 < ? ORDER BY ZA0 LIMIT 100")
        var sum: Int64 = 0
        for query in 0..<queries {
            select.bind(w3Lower(query, rows: rows, queries: queries), at: 1)
            select.bind(50, at: 2)
            while try select.step() {
                for column in 1...10 { sum &+= select.int64(Int32(column)) }
            }
            select.reset()
        }
        watch.stop()
        return sum
    }

    /// The lower bound of `a0` for query `query` of W3: spread over the whole range.
    static func w3Lower(_ query: Int, rows: Int, queries: Int) -> Int64 {
        Int64(query) * Int64(rows) / Int64(max(queries, 1))
    }

    @inline(never) static func w4Join(_ url: URL, _ watch: inout Stopwatch) throws -> Int64 {
        let db = try open(url)
        watch.start()
        let select = try db.prepare("SELECT p.Z_PK, p.ZINDEX, c.Z_PK, c.ZVALUE FROM ZPARENT p JOIN ZCHILD c ON c.ZPARENT = p.Z_PK")
        var sum: Int64 = 0
        while try select.step() {
            sum &+= select.int64(3) &+ select.int64(1)
        }
        watch.stop()
        return sum
    }

    @inline(never) static func w5Walk(_ url: URL, _ watch: inout Stopwatch) throws -> Int64 {
        let db = try open(url)
        watch.start()
        let select = try db.prepare(itemSelect)
        var sum: Int64 = 0
        while try select.step() { sum &+= select.int64(1) }
        watch.stop()
        return sum
    }

    /// Reads the 10,000 items with `a0 < count` (through the index) and sets `a1` of each to
    /// `token`, bumping `Z_OPT`, in one transaction.
    static func w6Update(_ url: URL, count: Int, token: Int64, _ watch: inout Stopwatch) throws {
        let db = try open(url)
        watch.start()
        try db.execute("BEGIN IMMEDIATE")
        let select = try db.prepare("SELECT Z_PK, Z_OPT, ZA1 FROM ZITEM WHERE ZA0 < ?")
        select.bind(Int64(count), at: 1)
        var rows: [(Int64, Int64)] = []
        rows.reserveCapacity(count)
        while try select.step() { rows.append((select.int64(0), select.int64(1))) }
        let update = try db.prepare("UPDATE ZITEM SET ZA1 = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?")
        for (pk, version) in rows {
            update.bind(token, at: 1)
            update.bind(version + 1, at: 2)
            update.bind(pk, at: 3)
            update.bind(version, at: 4)
            _ = try update.step()
            update.reset()
        }
        try db.execute("COMMIT")
        watch.stop()
    }

    /// The lower bound of `a0` for transaction `transaction` of thread `thread` in W7: each
    /// thread has a range of its own (the ranges are disjoint, so no two transactions change the
    /// same item and no engine meets a merge conflict), and each transaction the next
    /// `w7ItemsPerTransaction` items of it.
    static func w7Lower(thread: Int, transaction: Int, sizes: Sizes) -> Int64 {
        Int64((thread * sizes.w7Transactions + transaction) * sizes.w7ItemsPerTransaction)
    }

    /// Two connections (WAL, a busy handler that yields and retries) on two threads, each running `w7Transactions`
    /// transactions: `BEGIN IMMEDIATE`, select 10 items by a range of the indexed `a0`, add 1 to
    /// their `a5` (bumping `Z_OPT`, as Core Data does), `COMMIT`.
    static func w7Concurrent(_ url: URL, sizes: Sizes, _ watch: inout Stopwatch) throws {
        final class Connection {
            let db: RawDatabase
            let begin, select, update, commit: RawStatement
            init(_ url: URL) throws {
                // The busy handler first: the other thread may hold the lock while this one sets the pragmas.
                db = try RawDatabase(path: url.path)
                db.retryWhenBusy()
                try db.execute(benchPragmas)
                begin = try db.prepare("BEGIN IMMEDIATE")
                select = try db.prepare("SELECT Z_PK, Z_OPT, ZA5 FROM ZITEM WHERE ZA0 >= ? AND ZA0 < ?")
                update = try db.prepare("UPDATE ZITEM SET ZA5 = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?")
                commit = try db.prepare("COMMIT")
            }
        }
        try timedOnThreads(sizes.w7Threads, &watch, setup: { _ in try Connection(url) }) { thread, connection in
            var rows: [(pk: Int64, version: Int64, value: Int64)] = []
            rows.reserveCapacity(sizes.w7ItemsPerTransaction)
            for transaction in 0..<sizes.w7Transactions {
                _ = try connection.begin.step()
                connection.begin.reset()
                let lower = w7Lower(thread: thread, transaction: transaction, sizes: sizes)
                connection.select.bind(lower, at: 1)
                connection.select.bind(lower + Int64(sizes.w7ItemsPerTransaction), at: 2)
                rows.removeAll(keepingCapacity: true)
                while try connection.select.step() {
                    rows.append((connection.select.int64(0), connection.select.int64(1), connection.select.int64(2)))
                }
                connection.select.reset()
                for row in rows {
                    connection.update.bind(row.value + 1, at: 1)
                    connection.update.bind(row.version + 1, at: 2)
                    connection.update.bind(row.pk, at: 3)
                    connection.update.bind(row.version, at: 4)
                    _ = try connection.update.step()
                    connection.update.reset()
                }
                _ = try connection.commit.step()
                connection.commit.reset()
            }
        }
    }
}
