import Foundation

/// Builders for the migration errors (`NSMigrationError` 134110 and its family).
enum MigrationErrors {
    /// An error of `code` with `description`, the extra userInfo and the underlying error.
    static func make(_ code: Int, _ description: String, userInfo: [String: Any] = [:], underlying: Error? = nil) -> NSError {
        CoreDataErrorFactory.error(code, description: description, userInfo: userInfo, underlyingError: underlying)
    }

    /// Whether `error` is one of the migration errors (134110…134190) or a cancellation error
    /// the caller chose: those pass through unchanged.
    static func isMigrationError(_ error: Error) -> Bool {
        let error = error as NSError
        return error.domain == NSCocoaErrorDomain && (NSMigrationError...NSInferredMappingModelError).contains(error.code)
    }

    /// `error`, thrown by an entity migration policy during `stage` of `mapping`, as
    /// `NSEntityMigrationPolicyError` (134170) naming both, unless it already is a migration error.
    static func policyFailed(_ error: Error, mapping: NSEntityMapping, stage: String) -> Error {
        if isMigrationError(error) { return error }
        return make(NSEntityMigrationPolicyError,
                    "The entity migration policy of mapping '\(mapping.name ?? "?")' failed in \(stage): \((error as NSError).localizedDescription)",
                    userInfo: ["entityMapping": mapping.name ?? ""], underlying: error)
    }
}
