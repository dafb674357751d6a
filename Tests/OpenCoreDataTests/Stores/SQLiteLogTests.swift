import Foundation
import GRDB
import Logging
import Testing
@testable import OpenCoreData

/// A swift-log handler that keeps what it is given, for assertions.
private final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var messages: [String] { lock.withLock { storage } }
    func append(_ message: String) { lock.withLock { storage.append(message) } }

    func logger() -> Logger {
        Logger(label: SQLDebugLog.loggerLabel) { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.append(event.message.description)
        }
    }
}

/// A thread-safe counter for observers.
final class SQLStatementCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [SQLDebugLog.Event] = []
    func add(_ event: SQLDebugLog.Event) { lock.withLock { events.append(event) } }
    var all: [SQLDebugLog.Event] { lock.withLock { events } }
}

@Suite("SQLite debug log")
struct SQLiteLogTests {
    private func queue(_ log: SQLDebugLog) throws -> DatabaseQueue {
        var configuration = Configuration()
        log.install(in: &configuration)
        let queue = try DatabaseQueue(configuration: configuration)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR)")
        }
        return queue
    }

    @Test("The level comes from OPENCOREDATA_SQL_DEBUG, clamped to 0…3; the store option wins",
          arguments: [
              ([String: String](), nil as String?, SQLDebugLog.Level.off),
              (["OPENCOREDATA_SQL_DEBUG": "1"], nil, .statements),
              (["OPENCOREDATA_SQL_DEBUG": "2"], nil, .boundValues),
              (["OPENCOREDATA_SQL_DEBUG": "3"], nil, .rows),
              (["OPENCOREDATA_SQL_DEBUG": "9"], nil, .rows),
              (["OPENCOREDATA_SQL_DEBUG": "-1"], nil, .off),
              (["OPENCOREDATA_SQL_DEBUG": "YES"], nil, .statements),
              (["OPENCOREDATA_SQL_DEBUG": "junk"], nil, .off),
              (["OPENCOREDATA_SQL_DEBUG": "3"], "0", .off),
              ([:], "2", .boundValues),
          ] as [([String: String], String?, SQLDebugLog.Level)])
    func level(environment: [String: String], option: String?, expected: SQLDebugLog.Level) {
        let options: [AnyHashable: Any]? = option.map { [SQLDebugLog.levelOption: $0] }
        #expect(SQLDebugLog.level(options: options, environment: environment) == expected)
        #expect(SQLDebugLog(options: options, environment: environment).level == expected)
    }

    @Test("The store option may be a number")
    func numericOption() {
        let environment = ["OPENCOREDATA_SQL_DEBUG": "1"]
        #expect(SQLDebugLog.level(options: [SQLDebugLog.levelOption: 3], environment: environment) == .rows)
        #expect(SQLDebugLog.level(options: [SQLDebugLog.levelOption: NSNumber(value: 2)], environment: environment) == .boundValues)
        #expect(SQLDebugLog.level(options: [SQLDebugLog.levelOption: 0], environment: environment) == .off)
    }

    @Test("Level 1 logs each statement and its time, without bound values")
    func levelOne() throws {
        let captured = CapturedLog()
        let log = SQLDebugLog(level: .statements, logger: captured.logger())
        let queue = try queue(log)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO ZITEM (Z_PK, ZNAME) VALUES (?, ?)", arguments: [7, "secret-name"])
        }
        let messages = captured.messages
        #expect(messages.contains("sql: INSERT INTO ZITEM (Z_PK, ZNAME) VALUES (?, ?)"))
        #expect(messages.contains { $0.hasPrefix("annotation: sql execution time: ") && $0.hasSuffix("s") })
        #expect(!messages.contains { $0.contains("secret-name") })
    }

    @Test("Level 2 logs the bound values")
    func levelTwo() throws {
        let captured = CapturedLog()
        let log = SQLDebugLog(level: .boundValues, logger: captured.logger())
        let queue = try queue(log)
        _ = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM WHERE Z_PK = ? AND ZNAME = ?", arguments: [42, "Ann"])
        }
        let messages = captured.messages
        #expect(messages.contains("sql: SELECT Z_PK FROM ZITEM WHERE Z_PK = ? AND ZNAME = ?"))
        #expect(messages.contains("details: bound: SELECT Z_PK FROM ZITEM WHERE Z_PK = 42 AND ZNAME = 'Ann'"))
    }

    @Test("Level 3 logs rows the store reports; lower levels do not")
    func levelThree() {
        let captured = CapturedLog()
        SQLDebugLog(level: .rows, logger: captured.logger()).row(["ZNAME": "Ann", "Z_PK": 1])
        SQLDebugLog(level: .boundValues, logger: captured.logger()).row(["ZNAME": "Bob"])
        #expect(captured.messages == ["details: row: ZNAME=Ann, Z_PK=1"])
    }

    @Test("Fetch annotations name the rows and time at level 1, nothing at level 0")
    func annotations() {
        let captured = CapturedLog()
        SQLDebugLog(level: .statements, logger: captured.logger()).fetched(rows: 5, duration: 0.00125)
        SQLDebugLog(level: .off, logger: captured.logger()).fetched(rows: 6, duration: 1)
        #expect(captured.messages == ["annotation: total fetch execution time: 0.0013s for 5 rows."])
    }

    @Test("Level 0 logs nothing, but observers see every statement")
    func observersAtLevelZero() throws {
        let captured = CapturedLog()
        let log = SQLDebugLog(level: .off, logger: captured.logger())
        let counter = SQLStatementCounter()
        let token = log.addObserver { counter.add($0) }
        #expect(log.isActive)
        let queue = try queue(log)
        _ = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM WHERE Z_PK IN (?, ?, ?)", arguments: [1, 2, 3])
        }
        let selects = counter.all.filter { $0.sql.hasPrefix("SELECT Z_PK FROM ZITEM") }
        #expect(selects.count == 1)
        #expect(selects.first?.expandedSQL == nil)
        #expect(captured.messages.isEmpty)

        log.removeObserver(token)
        #expect(!log.isActive)
        _ = try queue.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM") }
        #expect(counter.all.count == selects.count + counter.all.filter { !$0.sql.hasPrefix("SELECT Z_PK FROM ZITEM") }.count)
    }

    /// Runs `body` with a fresh log at level 0, then checks that the log was freed: no
    /// connection `body` opened (and closed) still holds it.
    private func expectFreed(_ body: (SQLDebugLog) throws -> Void) throws {
        weak var released: SQLDebugLog?
        do {
            let log = SQLDebugLog(level: .off)
            released = log
            try body(log)
        }
        #expect(released == nil)
    }

    /// An in-memory connection with `log` installed on the connection itself (a configuration's
    /// `prepareDatabase` closure would hold the log too, for as long as GRDB keeps the
    /// configuration), after which `setUp` runs on it.
    private func tracedQueue(_ log: SQLDebugLog, setUp: (Database) throws -> Void) throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            log.install(on: db)
            try setUp(db)
        }
        return queue
    }

    @Test("An observer added to an open connection sees its statements; closing the connection lets the log go")
    func observerAddedLaterAndLogReleasedOnClose() throws {
        try expectFreed { log in
            let queue = try tracedQueue(log) { db in
                try db.execute(sql: "CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR)")
            }
            _ = try queue.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM") }
            let counter = SQLStatementCounter()
            let token = log.addObserver { counter.add($0) }
            _ = try queue.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM WHERE Z_PK > ?;  ", arguments: [0]) }
            // Trimmed as GRDB's trace events trim it; timed.
            let selects = counter.all.filter { $0.sql.hasPrefix("SELECT Z_PK FROM ZITEM") }
            #expect(selects.map(\.sql) == ["SELECT Z_PK FROM ZITEM WHERE Z_PK > ?"])
            #expect(selects.allSatisfy { $0.duration >= 0 && $0.expandedSQL == nil })
            log.removeObserver(token)
            let seen = counter.all.count
            _ = try queue.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM") }
            #expect(counter.all.count == seen)
            // The connection's hook holds the log until SQLite closes the connection.
            try queue.close()
        }
    }

    @Test("Observers added and removed on an open connection see exactly the statements run while they are there, in order")
    func observersComingAndGoingOnOneConnection() throws {
        try expectFreed { log in
            let queue = try tracedQueue(log) { db in
                try db.execute(sql: "CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR)")
            }
            func select(_ tag: Int) throws {
                _ = try queue.read { db in try Row.fetchAll(db, sql: "SELECT Z_PK FROM ZITEM WHERE Z_PK > \(tag)") }
            }
            func seen(_ counter: SQLStatementCounter) -> [String] {
                counter.all.map(\.sql).filter { $0.hasPrefix("SELECT Z_PK FROM ZITEM") }
            }
            try select(0)
            let first = SQLStatementCounter()
            let firstToken = log.addObserver { first.add($0) }
            for tag in 1...3 { try select(tag) }
            log.removeObserver(firstToken)
            for tag in 4...5 { try select(tag) }
            let second = SQLStatementCounter()
            let secondToken = log.addObserver { second.add($0) }
            for tag in 6...7 { try select(tag) }
            log.removeObserver(secondToken)
            try select(8)

            #expect(seen(first) == (1...3).map { "SELECT Z_PK FROM ZITEM WHERE Z_PK > \($0)" })
            #expect(seen(second) == (6...7).map { "SELECT Z_PK FROM ZITEM WHERE Z_PK > \($0)" })
            #expect(first.all.allSatisfy { $0.duration >= 0 && $0.expandedSQL == nil })
            try queue.close()
        }
    }

    @Test("A close that fails (a statement left unfinalized) leaves the connection open and untraced, and lets the log go")
    func failedCloseRemovesTheHook() throws {
        try expectFreed { log in
            let counter = SQLStatementCounter()
            _ = log.addObserver { counter.add($0) }
            var unfinalized: Statement?
            let queue = try tracedQueue(log) { db in unfinalized = try db.makeStatement(sql: "SELECT 1") }
            // SQLite reports the close to the hook, then refuses it (SQLITE_BUSY).
            #expect(throws: DatabaseError.self) { try queue.close() }
            let seen = counter.all.count
            try queue.inDatabase { db in try db.execute(sql: "SELECT 2") }
            #expect(counter.all.count == seen)
            #expect(unfinalized != nil)
            unfinalized = nil
        }
    }

    @Test("A log that is on lowers its logger to .debug so messages are not dropped")
    func loggerLevel() {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        #expect(SQLDebugLog(level: .statements, logger: logger).logger.logLevel == .debug)
        #expect(SQLDebugLog(level: .off, logger: logger).logger.logLevel == .error)
    }
}

@Suite("SQLite debug log in the store")
struct SQLiteLogStoreTests {
    @Test("The store traces its statements: a fetch is one SELECT, and firing the fetched faults runs none")
    func storeStatementsAreObserved() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        let store = try #require(try fixture.addStore(options: [SQLDebugLog.levelOption: 0]) as? SQLiteStore)
        #expect(store.sqlLog.level == .off)
        try fixture.insertStandardData()

        let counter = SQLStatementCounter()
        store.sqlLog.addObserver { counter.add($0) }
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = fixture.coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        let employees = try context.fetch(request)
        #expect(!employees.isEmpty)
        let selects = counter.all.filter { $0.sql.hasPrefix("SELECT") }
        #expect(selects.count == 1)
        #expect(selects.first?.sql.contains("ZEMPLOYEE") == true)

        let before = counter.all.count
        for employee in employees { _ = employee.value(forKey: "name") }
        #expect(counter.all.count == before)
    }

    @Test("The store's log level comes from its options")
    func storeLevelFromOptions() throws {
        let fixture = CompanyFixture(storeType: NSSQLiteStoreType)
        let store = try #require(try fixture.addStore(options: [SQLDebugLog.levelOption: "2"]) as? SQLiteStore)
        #expect(store.sqlLog.level == .boundValues)
    }
}
