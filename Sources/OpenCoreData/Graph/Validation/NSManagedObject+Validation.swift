extension NSManagedObject {
    /// A validation error about property `key` of this object, built as Core Data builds its own:
    /// `NSCocoaErrorDomain`, `code`, and the userInfo keys `NSValidationObjectErrorKey`,
    /// `NSValidationKeyErrorKey`, `NSValidationValueErrorKey` (when `value` is not nil) and
    /// `NSLocalizedDescriptionKey`.
    ///
    /// Not in Apple's API. It is meant for the per-key rules of a subclass, which override
    /// `validateValue(_:forKey:)` (Apple's `validate<Key>:error:` methods need the Objective-C
    /// runtime):
    /// ```swift
    /// override func validateValue(_ value: inout Any?, forKey key: String) throws {
    ///     try super.validateValue(&value, forKey: key)
    ///     if key == "name", let name = value as? String, name.hasPrefix(" ") {
    ///         throw validationError(forKey: key, value: name, localizedDescription: "%{PROPERTY}@ starts with a space.")
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - code: the error code, `NSManagedObjectValidationError` (1550) by default.
    ///   - key: the property the error is about (`NSValidationKeyErrorKey`).
    ///   - value: the value that failed (`NSValidationValueErrorKey`).
    ///   - localizedDescription: the message; by default Core Data's message for `code`. It is
    ///     translated through the model's `localizationDictionary` (`ErrorString/<text>`) and its
    ///     `%{PROPERTY}@` (the localized property name), `%{ENTITY}@` and `%{VALUE}@` placeholders
    ///     are filled.
    public func validationError(_ code: Int = NSManagedObjectValidationError, forKey key: String, value: Any?,
                                localizedDescription: String? = nil) -> NSError {
        CoreDataErrorFactory.validationError(code, object: self, key: key, value: value, description: localizedDescription)
    }

    /// The error Core Data reports for several validation errors: `nil` for none, the error itself
    /// for one, else `NSValidationMultipleErrorsError` (1560) with all of them under
    /// `NSDetailedErrorsKey` (nested 1560 errors flattened into their details).
    ///
    /// Not in Apple's API. Apple's guide ("Implementing Custom Interproperty Validation") asks an
    /// override of `validateForInsert()` or `validateForUpdate()` to combine super's error with its
    /// own; this does it:
    /// ```swift
    /// override func validateForInsert() throws {
    ///     var errors: [Error] = []
    ///     do { try super.validateForInsert() } catch { errors.append(error) }
    ///     if let end = endDate, let start = startDate, end < start {
    ///         errors.append(validationError(forKey: "endDate", value: end, localizedDescription: "The end is before the start."))
    ///     }
    ///     if let error = combinedValidationError(errors) { throw error }
    /// }
    /// ```
    public func combinedValidationError(_ errors: [Error]) -> NSError? {
        CoreDataErrorFactory.combining(errors, model: entity.managedObjectModel)
    }
}
