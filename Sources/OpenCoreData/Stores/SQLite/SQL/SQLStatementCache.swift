import Foundation

/// Compiled fetch statements by request shape (``SQLRequestShape``): requests that differ only
/// in their constants compile once and run one SQL text, which each connection prepares once
/// (GRDB's statement cache) and rebinds.
///
/// One cache belongs to one schema mapping of a store: a store whose schema changes gets a new
/// one, so no statement outlives the tables it was compiled for. Statements hold SQL text
/// only, never a connection's prepared statement, so query generations' pinned connections
/// share them. When it holds ``capacity`` shapes it starts over.
final class SQLStatementCache: @unchecked Sendable {   // `lock` guards `templates`, `hits` and `misses`
    /// A compiled statement whose bindings may be parameters of the request (``SQLValue/parameter(_:)``).
    struct Template {
        let sql: String
        let bindings: [SQLValue]

        /// The statement for a request of this shape with the constant values `values`.
        func statement(with values: [SQLValue?]) -> SQLStatement {
            SQLStatement(sql: sql, bindings: bindings.map { binding in
                guard case .parameter(let number) = binding else { return binding }
                // A parameter is only ever made of a constant that binds a value.
                return values.indices.contains(number) ? values[number] ?? .null : .null
            })
        }
    }

    /// How many shapes the cache holds before it starts over.
    let capacity: Int
    private let lock = NSLock()
    private var templates: [[UInt8]: Template] = [:]
    /// Compilations the cache answered and those it could not, for tests.
    private var hits = 0, misses = 0

    init(capacity: Int = 128) {
        self.capacity = capacity
    }

    /// The statement of `shape`'s request: the cached compilation filled with the request's
    /// values, or else `compile`'s (given the shape to number constants by), cached when every
    /// constant it bound was numbered.
    func statement(for shape: SQLRequestShape, compile: (SQLRequestShape) throws -> (template: SQLStatement, complete: Bool)) rethrows -> SQLStatement {
        if let template = lock.withLock({ () -> Template? in
            let found = templates[shape.key]
            if found != nil { hits += 1 } else { misses += 1 }
            return found
        }) {
            return template.statement(with: shape.values)
        }
        let (compiled, complete) = try compile(shape)
        let template = Template(sql: compiled.sql, bindings: compiled.bindings)
        if complete {
            lock.withLock {
                if templates.count >= capacity { templates.removeAll(keepingCapacity: true) }
                templates[shape.key] = template
            }
        }
        return template.statement(with: shape.values)
    }

    /// Forgets every statement (the store is being removed).
    func removeAll() {
        lock.withLock { templates.removeAll() }
    }

    /// The number of shapes held.
    var count: Int { lock.withLock { templates.count } }

    /// The hits and misses so far.
    var statistics: (hits: Int, misses: Int) { lock.withLock { (hits, misses) } }
}
