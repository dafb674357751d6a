import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// The SQL debug log of one SQLite store: OpenCoreData's `-com.apple.CoreData.SQLDebug`.
///
/// The level comes from the environment variable `OPENCOREDATA_SQL_DEBUG` (read once, when the
/// store creates its log) or from the store option ``SQLDebugLog/levelOption``, which wins:
/// - 0 (or unset): nothing is logged;
/// - 1: each statement (`sql: SELECT … WHERE Z_PK = ?`) and its execution time, plus the store's
///   annotations (`total fetch execution time: 0.0012s for 5 rows.`);
/// - 2: also the statement with its bound values (`details: bound: … WHERE Z_PK = 42`);
/// - 3: also the values of every row the store reads (when the store reports them).
///
/// Messages go through swift-log to the log's ``logger`` at `.debug` (the logger's level is
/// lowered to `.debug` when the log is on). There is no global state: each store owns one log,
/// installs it on its GRDB connections with ``install(on:)`` (or ``install(in:)``), and reports
/// fetch annotations with ``annotate(_:)``.
///
/// Observers (``addObserver(_:)``) see every statement whatever the level. Tests use them to
/// count the statements a fetch or a fault runs.
///
/// Differs from Apple: Apple's log goes to `os_log`/stderr with a `CoreData: ` prefix; ours goes
/// through swift-log with the label `OpenCoreData.SQL`, and level 2 prints the statement with its
/// values expanded (SQLite's `sqlite3_expanded_sql`) rather than one `bind[i]` line per value.
public final class SQLDebugLog: @unchecked Sendable {
    /// The environment variable that sets the level (`1`, `2` or `3`).
    public static let environmentVariable = "OPENCOREDATA_SQL_DEBUG"
    /// The store option that sets the level (an `Int` or a numeric `String`); it wins over the
    /// environment. Not in Apple's API.
    public static let levelOption = "OpenCoreDataSQLDebugLevel"
    /// The label of the logger a store's log creates.
    public static let loggerLabel = "OpenCoreData.SQL"

    /// How much the log prints.
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        case off = 0
        /// Statements, their execution times and the store's annotations.
        case statements = 1
        /// Also bound values.
        case boundValues = 2
        /// Also the values of each row read.
        case rows = 3

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level a setting names: an integer (clamped to 0…3), or `YES`/`true` for 1.
        /// Anything else, and nil, is `.off`.
        public init(setting: Any?) {
            switch setting {
            case let number as Int: self = Level(rawValue: min(max(number, 0), 3)) ?? .off
            case let number as NSNumber: self = Level(setting: number.intValue)
            case let text as String:
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if let number = Int(trimmed) {
                    self = Level(setting: number)
                } else {
                    self = ["yes", "true", "on"].contains(trimmed.lowercased()) ? .statements : .off
                }
            default: self = .off
            }
        }
    }

    /// One executed statement, as observers see it.
    public struct Event: Sendable {
        /// The SQL with `?` placeholders.
        public var sql: String
        /// The SQL with bound values expanded; only filled at level 2 or above.
        public var expandedSQL: String?
        /// How long SQLite took to run it.
        public var duration: TimeInterval
    }

    /// The level, fixed when the log is created.
    public let level: Level
    /// Where messages go.
    public let logger: Logger

    private let lock = NSLock()
    private var observers: [Int: @Sendable (Event) -> Void] = [:]
    private var nextObserver = 0
    /// ``isActive`` without the lock, for the trace hook that every statement calls: written
    /// under `lock` whenever the observers change.
    private let listening: Atomic<Bool>

    /// A log at `level` writing to `logger` (whose level is lowered to `.debug` when `level` is
    /// not `.off`).
    public init(level: Level, logger: Logger = Logger(label: SQLDebugLog.loggerLabel)) {
        self.level = level
        var logger = logger
        if level > .off, logger.logLevel > .debug { logger.logLevel = .debug }
        self.logger = logger
        listening = Atomic(level > .off)
    }

    /// A store's log: the level from `options` (``levelOption``) or else from `environment`.
    public convenience init(options: [AnyHashable: Any]?,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            logger: Logger = Logger(label: SQLDebugLog.loggerLabel)) {
        self.init(level: SQLDebugLog.level(options: options, environment: environment), logger: logger)
    }

    /// The level a store with `options` logs at in `environment`.
    public static func level(options: [AnyHashable: Any]?, environment: [String: String]) -> Level {
        if let setting = options?[levelOption] { return Level(setting: setting) }
        return Level(setting: environment[environmentVariable])
    }

    /// Whether statements need tracing at all (the log is on or someone observes it).
    public var isActive: Bool { listening.load(ordering: .acquiring) }

    /// Calls `observer` after every statement, whatever the level, until
    /// ``removeObserver(_:)``. Returns the token to remove it.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable (Event) -> Void) -> Int {
        lock.withLock {
            nextObserver += 1
            observers[nextObserver] = observer
            listening.store(true, ordering: .releasing)
            return nextObserver
        }
    }

    /// Stops calling the observer `token` names.
    public func removeObserver(_ token: Int) {
        lock.withLock {
            observers.removeValue(forKey: token)
            listening.store(level > .off || !observers.isEmpty, ordering: .releasing)
        }
    }

    // MARK: Hooks for the store

    /// Traces every statement `db` runs into this log. Call it once per connection (from the
    /// configuration's `prepareDatabase`, or use ``install(in:)``). Observers added later are
    /// seen too.
    ///
    /// The hook is SQLite's own (`sqlite3_trace_v2`), set directly rather than through GRDB's
    /// `Database.trace`, which wraps every event in Swift values and closures before anything
    /// can look at it: about 420 instructions a statement run, paid by every row of a batch
    /// insert even with the log off and unobserved.
    ///
    /// While the log is active (``isActive``) the hook asks for statement ends with their time
    /// (`SQLITE_TRACE_PROFILE`). While it is not, it asks only for statement starts
    /// (`SQLITE_TRACE_STMT`) and returns at once: a profiled statement costs SQLite two reads
    /// of the clock, a tenth of a batch insert's time per row on some machines. A connection
    /// that sees the log become active at a statement's start moves to profiling from the next
    /// one on, and reports that statement at once, with a duration of 0 (SQLite did not time
    /// it); one that sees it inactive at a statement's end moves back.
    ///
    /// The connection holds the log until SQLite closes it: the hook's close event removes the
    /// hook and releases the log, so a close that fails (a statement left unfinalized) leaves
    /// the connection open and no longer traced. A later `Database.trace` on the connection
    /// replaces this hook.
    public func install(on db: Database) {
        guard let connection = db.sqliteConnection else { return }
        sqlite3_trace_v2(connection, Self.traceMask(active: isActive), sqlTraceHook, Unmanaged.passRetained(self).toOpaque())
    }

    /// The events the hook asks SQLite for, while the log is active or not.
    fileprivate static func traceMask(active: Bool) -> UInt32 {
        UInt32(active ? SQLITE_TRACE_PROFILE : SQLITE_TRACE_STMT) | UInt32(SQLITE_TRACE_CLOSE)
    }

    /// One event of the hook ``install(on:)`` sets: `statement` ran (or, with `nanoseconds`
    /// nil, starts running) on `connection`.
    fileprivate func traced(_ statement: OpaquePointer, on connection: OpaquePointer, context: UnsafeMutableRawPointer,
                            nanoseconds: UnsafeMutableRawPointer?) {
        let active = listening.load(ordering: .acquiring)
        if (nanoseconds != nil) != active {
            // The log became active or inactive since the connection last looked.
            sqlite3_trace_v2(connection, Self.traceMask(active: active), sqlTraceHook, context)
        }
        guard active else { return }
        let duration = nanoseconds.map { TimeInterval($0.load(as: Int64.self)) / 1e9 } ?? 0
        record(sql: { SQLDebugLog.text(sqlite3_sql(statement)) }, expandedSQL: {
            guard let expanded = sqlite3_expanded_sql(statement) else { return "" }
            defer { sqlite3_free(expanded) }
            return SQLDebugLog.text(expanded)
        }, duration: duration)
    }

    /// A statement's SQL as GRDB's trace events give it: trimmed of whitespace and `;`.
    private static func text(_ sql: UnsafePointer<CChar>?) -> String {
        sql.map { String(cString: $0).trimmingCharacters(in: statementSeparators) } ?? ""
    }

    private static let statementSeparators = CharacterSet(charactersIn: ";").union(.whitespacesAndNewlines)

    /// Adds ``install(on:)`` to the connections `configuration` opens.
    public func install(in configuration: inout Configuration) {
        configuration.prepareDatabase { [self] db in install(on: db) }
    }

    /// Logs one statement: the trace hook calls it, and a store that runs SQL outside GRDB can
    /// too. Nothing is evaluated when the log is off and unobserved (the hot path of every
    /// statement); `expandedSQL` is only evaluated at level 2 or above.
    public func record(sql sqlText: () -> String, expandedSQL: () -> String, duration: TimeInterval) {
        let current = lock.withLock { observers.isEmpty ? [] : Array(observers.values) }
        guard level > .off || !current.isEmpty else { return }
        let sql = sqlText()
        let expanded = level >= .boundValues ? expandedSQL() : nil
        if level > .off {
            logger.debug("sql: \(sql)")
            if let expanded { logger.debug("details: bound: \(expanded)") }
            logger.debug("annotation: sql execution time: \(Self.seconds(duration))s")
        }
        let event = Event(sql: sql, expandedSQL: expanded, duration: duration)
        for observer in current { observer(event) }
    }

    /// Logs one of the store's annotations at level 1 or above, e.g.
    /// `total fetch execution time: 0.0012s for 5 rows.`
    public func annotate(_ message: @autoclosure () -> String) {
        guard level > .off else { return }
        logger.debug("annotation: \(message())")
    }

    /// The annotation the store makes after a fetch: rows and total time.
    public func fetched(rows: Int, duration: TimeInterval) {
        annotate("total fetch execution time: \(Self.seconds(duration))s for \(rows) rows.")
    }

    /// Whether the store should report the rows it reads with ``row(_:)``.
    public var logsRows: Bool { level >= .rows }

    /// Logs the values of one row read (level 3).
    public func row(_ values: @autoclosure () -> [String: Any]) {
        guard level >= .rows else { return }
        let text = values().sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
        logger.debug("details: row: \(text)")
    }

    static func seconds(_ duration: TimeInterval) -> String { String(format: "%.4f", duration) }
}

/// The SQLite trace hook of ``SQLDebugLog/install(on:)``, whose context is the log, retained.
private func sqlTraceHook(_ event: UInt32, _ context: UnsafeMutableRawPointer?, _ p: UnsafeMutableRawPointer?,
                          _ x: UnsafeMutableRawPointer?) -> Int32 {
    guard let context, let p else { return 0 }
    let log = Unmanaged<SQLDebugLog>.fromOpaque(context)
    if event == UInt32(SQLITE_TRACE_CLOSE) {
        // `p` is the connection. The hook goes first: `sqlite3_close` reports the close before
        // it knows whether it can close (unfinalized statements leave the connection open,
        // SQLITE_BUSY), and a connection left open must not call a hook whose log is gone.
        sqlite3_trace_v2(OpaquePointer(p), 0, nil, nil)
        log.release()
        return 0
    }
    // `p` is the statement; `x` its time in nanoseconds for a statement's end, its text for a start.
    let statement = OpaquePointer(p)
    guard let connection = sqlite3_db_handle(statement) else { return 0 }
    log._withUnsafeGuaranteedRef { log in
        log.traced(statement, on: connection, context: context, nanoseconds: event == UInt32(SQLITE_TRACE_PROFILE) ? x : nil)
    }
    return 0
}
