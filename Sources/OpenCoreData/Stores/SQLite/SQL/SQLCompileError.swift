/// Why the SQL compiler refused a fetch (DESIGN decision 1): a construct it cannot translate
/// exactly as the in-memory evaluator would evaluate it.
///
/// The SQLite store turns it into a failed fetch (`NSCoreDataError` naming the construct); it is
/// never answered with a different result.
struct SQLCompileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The construct, as the user wrote it where possible (`FUNCTION(name, 'foo')`, `a block predicate`).
    var construct: String
    /// Why it can't be compiled.
    var reason: String

    init(_ construct: String, _ reason: String) {
        self.construct = construct
        self.reason = reason
    }

    var description: String {
        "The SQL store can't compile \(construct): \(reason)."
    }

    /// An unknown key of an entity, as the evaluator reports it.
    static func unknownKey(_ key: String, entity: NSEntityDescription) -> SQLCompileError {
        SQLCompileError("key path component '\(key)'", "entity \(entity.name ?? "?") has no property named '\(key)'")
    }
}
