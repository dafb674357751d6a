/// Builds Core Data's errors: `NSError` in `NSCocoaErrorDomain` with the codes of
/// `CoreDataErrorCodes.swift`, Apple's userInfo keys and a localized description.
///
/// Validation, the context and the stores all build their errors here, so that every error
/// carries the same keys and its message goes through the model's localization dictionary
/// (see ``CoreDataErrorMessages``).
enum CoreDataErrorFactory {
    /// A validation error about property `key` of `object`.
    ///
    /// userInfo: `NSValidationObjectErrorKey` (the object), `NSValidationKeyErrorKey` (when there
    /// is a key), `NSValidationValueErrorKey` (when there is a value), `NSValidationPredicateErrorKey`
    /// (for a failed validation predicate), `NSLocalizedDescriptionKey`, plus
    /// `NSLocalizedFailureReasonErrorKey` and `NSUnderlyingErrorKey` when given.
    ///
    /// - Parameters:
    ///   - description: the message template; by default Core Data's template for `code`
    ///     (``CoreDataErrorMessages/template(for:)``). It is localized through the object's model and its
    ///     placeholders are filled.
    static func validationError(_ code: Int, object: NSManagedObject, key: String?, value: Any? = nil,
                                predicate: NSPredicate? = nil, description: String? = nil,
                                failureReason: String? = nil, underlyingError: Error? = nil) -> NSError {
        let messages = CoreDataErrorMessages(entity: object.entity)
        let value = ValueComparison.unwrap(value)
        var userInfo: [String: Any] = [NSValidationObjectErrorKey: object]
        if let key { userInfo[NSValidationKeyErrorKey] = key }
        if let value, !ValueComparison.isNSNull(value) { userInfo[NSValidationValueErrorKey] = value }
        if let predicate { userInfo[NSValidationPredicateErrorKey] = predicate }
        userInfo[NSLocalizedDescriptionKey] = messages.message(description ?? CoreDataErrorMessages.template(for: code),
                                                                key: key, entity: object.entity, value: value)
        if let failureReason { userInfo[NSLocalizedFailureReasonErrorKey] = messages.errorString(failureReason) }
        if let underlyingError { userInfo[NSUnderlyingErrorKey] = underlyingError as NSError }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: userInfo)
    }

    /// `NSValidationMultipleErrorsError` (1560) holding `errors` under `NSDetailedErrorsKey`, with
    /// Core Data's description "Multiple validation errors occurred." (localized through `model`).
    /// Nested 1560 errors are flattened into their details, as Core Data reports them.
    static func multipleValidationErrors(_ errors: [Error], model: NSManagedObjectModel? = nil) -> NSError {
        let messages = CoreDataErrorMessages(dictionary: model?.localizationDictionary)
        let description = messages.errorString(CoreDataErrorMessages.template(for: NSValidationMultipleErrorsError))
        return NSError(domain: NSCocoaErrorDomain, code: NSValidationMultipleErrorsError,
                       userInfo: [NSDetailedErrorsKey: flattened(errors), NSLocalizedDescriptionKey: description])
    }

    /// The error to throw for `errors` gathered in one validation: `nil` for none, the error
    /// itself for one, else a 1560 error (``multipleValidationErrors(_:model:)``). `model` (for
    /// the 1560 error's message) is read only then: every object a save validates calls this,
    /// mostly with no error, and reading an entity's model is a dynamically checked access.
    static func combining(_ errors: [Error], model: @autoclosure () -> NSManagedObjectModel? = nil) -> NSError? {
        guard !errors.isEmpty else { return nil }
        let all = flattened(errors)
        switch all.count {
        case 0: return nil
        case 1: return all[0]
        default: return multipleValidationErrors(all, model: model())
        }
    }

    /// A Core Data error that is not about one property (stores, the coordinator, the context):
    /// `code` in `NSCocoaErrorDomain` with `description` and the extra `userInfo` entries
    /// (for example `NSAffectedObjectsErrorKey`, `NSAffectedStoresErrorKey`, `NSURLErrorKey`).
    static func error(_ code: Int, description: String, userInfo: [String: Any] = [:],
                      underlyingError: Error? = nil) -> NSError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = description
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    /// The errors with every 1560 error replaced by its details.
    static func flattened(_ errors: [Error]) -> [NSError] {
        errors.flatMap { error -> [NSError] in
            let error = error as NSError
            if error.domain == NSCocoaErrorDomain, error.code == NSValidationMultipleErrorsError,
               let details = error.userInfo[NSDetailedErrorsKey] as? [Error] {
                return flattened(details)
            }
            return [error]
        }
    }
}
