/// The validation Core Data runs at save, over a managed object's values and its entity's rules
/// ("Object Validation" in Apple's Core Data Programming Guide).
///
/// - ``validateValue(_:forKey:of:)`` applies the model's rules for one property; it is the body of
///   `NSManagedObject.validateValue(_:forKey:)`. Subclasses add their per-key rules (Apple's
///   `validate<Key>:error:` methods) by overriding that method, switching on the key and calling
///   `super`.
/// - ``validate(_:for:)`` is the body of `validateForInsert()`, `validateForUpdate()` and
///   `validateForDelete()`.
///
/// Every error is an `NSError` in `NSCocoaErrorDomain` built by ``CoreDataErrorFactory``.
enum ObjectValidation {
    /// Which save-time validation runs.
    enum Phase: Sendable { case insert, update, delete }

    /// Validates `object` for a save that inserts, updates or deletes it.
    ///
    /// - insert and update: every attribute and relationship of the entity (inherited and
    ///   transient ones included) is read with `value(forKey:)` and passed through
    ///   `object.validateValue(_:forKey:)`, so that subclass overrides run (an object whose
    ///   class overrides none of the methods involved is read from its slots, which give the
    ///   same values; see ``KeyValueOverrides``). Derived attributes
    ///   (computed by the store) and fetched properties are skipped. The coerced values are not
    ///   written back. At update, a to-many relationship that is still a fault is skipped: it
    ///   holds what the store has, unchanged, and reading it would fire the fault (one store
    ///   read per object saved).
    /// - delete: every relationship with the deny rule that still has a destination object gives
    ///   `NSValidationRelationshipDeniedDeleteError` (1600).
    ///
    /// All errors are collected: one is thrown as itself, several as
    /// `NSValidationMultipleErrorsError` (1560) with `NSDetailedErrorsKey`.
    static func validate(_ object: NSManagedObject, for phase: Phase) throws {
        var errors: [Error] = []
        switch phase {
        case .insert, .update:
            let layout = object.layout
            // An object whose class overrides none of the methods `value(forKey:)` runs and
            // `validateValue(_:forKey:)` (NSManagedObject, most subclasses) would get the
            // answers its slots hold: its values are read and checked by slot. (Only with a
            // frozen model: an editable one may have changed since the layout was made.)
            let isPlain = object.entity.hasFrozenLayout && !KeyValueOverrides.overridesValueAccess(type(of: object))
            // A plain object's attribute values are checked in its value buffer, read once.
            if isPlain { object.fireFaultIfNeeded() }
            let values = isPlain ? object.state?.values : nil
            func validate(slot: Int) {
                // A to-many relationship never read is the store's, unchanged since it was
                // saved (a change reads it first): validating it would only cost a store read.
                if phase == .update, layout.kinds[slot] == .toMany, object.isToManyFault(layout.names[slot]) { return }
                do {
                    if isPlain {
                        var value = object.read(slot: slot)
                        if layout.rules[slot].accepts(value) { return }
                        try validateValue(&value, forKey: layout.names[slot], of: object)
                    } else {
                        var value = object.value(forKey: layout.names[slot])
                        try object.validateValue(&value, forKey: layout.names[slot])
                    }
                } catch {
                    errors.append(error)
                }
            }
            if let values {
                // The attributes whose values already pass are skipped in one pass over them.
                var next = 0
                while let slot = layout.nextSlotToValidate(in: values, from: next) {
                    validate(slot: slot)
                    next = slot + 1
                }
            } else {
                for slot in 0..<layout.count where layout.rules[slot].isValidatedAtSave { validate(slot: slot) }
            }
        case .delete:
            for case let relationship as NSRelationshipDescription in object.entity.properties
            where relationship.deleteRule == .denyDeleteRule {
                let value = ValueComparison.unwrap(object.value(forKey: relationship.name))
                guard destinationCount(value, of: relationship) > 0 else { continue }
                errors.append(CoreDataErrorFactory.validationError(
                    NSValidationRelationshipDeniedDeleteError, object: object, key: relationship.name, value: value))
            }
        }
        if let error = CoreDataErrorFactory.combining(errors, model: object.entity.managedObjectModel) { throw error }
    }

    /// Applies the model's rules for property `key` of `object` to `value`, converting it to the
    /// property's type (see ``PropertyValueCoercion``). Throws the first rule that fails:
    /// 1. a missing value (nil or `NSNull`) for a non-optional attribute or to-one relationship:
    ///    `NSValidationMissingMandatoryPropertyError` (1570). A missing value of an optional
    ///    property passes without further checks.
    /// 2. a value of the wrong type: `NSManagedObjectValidationError` (1550), with Apple's
    ///    "Unacceptable type of value…" message; an integer out of the attribute's range: 1610/1620;
    ///    a date that is not finite: `NSValidationInvalidDateError` (1650).
    /// 3. to-many counts: fewer than `minCount` destinations (at least one when the relationship is
    ///    not optional; an empty optional relationship passes) is
    ///    `NSValidationRelationshipLacksMinimumCountError` (1580); more than a non-zero `maxCount`
    ///    is `NSValidationRelationshipExceedsMaximumCountError` (1590).
    /// 4. the property's validation predicates, in order, evaluated with the value as `SELF`. A
    ///    warning that is an error code (the minimum, maximum and pattern a model file compiles
    ///    to: 1610/1620, 1630/1640, 1660/1670, 1680) gives that code with Core Data's message; a
    ///    warning text gives 1550 with the text, localized through the model's
    ///    `ErrorString/<text>` key, as the description. The predicate is under
    ///    `NSValidationPredicateErrorKey`. A predicate that can't be evaluated gives 1550 with the
    ///    evaluation error under `NSUnderlyingErrorKey`.
    ///
    /// A key that names no property of the entity has no rules and passes.
    static func validateValue(_ value: inout Any?, forKey key: String, of object: NSManagedObject) throws {
        // The common cases, decided by the slot's rule alone: a value that already has its
        // attribute's Swift type, with no validation predicates, and nil for an optional property.
        // (The object's rule, read without retaining its layout.)
        if object.entity.hasFrozenLayout, let slot = object.slot(forKey: key), object.rule(ofSlot: slot).accepts(value) { return }
        guard let property = object.entity.propertiesByName[key] else { return }
        let original = ValueComparison.unwrap(value)
        func failure(_ code: Int, value: Any? = original, predicate: NSPredicate? = nil, description: String? = nil,
                     reason: String? = nil, underlying: Error? = nil) -> NSError {
            CoreDataErrorFactory.validationError(code, object: object, key: key, value: value, predicate: predicate,
                                                 description: description, failureReason: reason, underlyingError: underlying)
        }

        let relationship = property as? NSRelationshipDescription
        guard let present = original, !ValueComparison.isNSNull(present) else {
            if property.isOptional { return }
            if let relationship, relationship.isToMany {
                throw failure(NSValidationRelationshipLacksMinimumCountError)
            }
            throw failure(NSValidationMissingMandatoryPropertyError)
        }

        // Types.
        var count = 0
        let outcome: PropertyValueCoercion.Outcome
        if let attribute = property as? NSAttributeDescription {
            outcome = PropertyValueCoercion.check(present, for: attribute)
        } else if let relationship {
            (outcome, count) = PropertyValueCoercion.check(present, for: relationship)
        } else {
            outcome = .accepted(present)
        }
        let coerced: Any
        switch outcome {
        case .accepted(let converted):
            coerced = converted
        case .wrongType(let message):
            throw failure(NSManagedObjectValidationError, description: message)
        case .invalid(let code, let reason):
            throw failure(code, reason: reason)
        }

        // To-many counts.
        if let relationship, relationship.isToMany, count > 0 || !relationship.isOptional {
            let minimum = relationship.isOptional ? relationship.minCount : max(relationship.minCount, 1)
            if count < minimum { throw failure(NSValidationRelationshipLacksMinimumCountError) }
            if relationship.maxCount > 0, count > relationship.maxCount {
                throw failure(NSValidationRelationshipExceedsMaximumCountError)
            }
        }

        // Validation predicates.
        for (index, predicate) in property.validationPredicates.enumerated() {
            let holds: Bool
            do {
                holds = try predicate.evaluateThrowing(with: coerced)
            } catch {
                throw failure(NSManagedObjectValidationError, value: coerced, predicate: predicate,
                              reason: "The validation predicate \(predicate.predicateFormat) can't be evaluated: \(error)",
                              underlying: error)
            }
            if holds { continue }
            let warning = index < property.validationWarnings.count ? property.validationWarnings[index] : nil
            if let code = warningCode(warning) {
                throw failure(code, value: coerced, predicate: predicate)
            }
            let text = (warning as? String).flatMap { $0.isEmpty ? nil : $0 }
            throw failure(NSManagedObjectValidationError, value: coerced, predicate: predicate, description: text)
        }

        value = coerced
    }

    // MARK: Helpers

    /// The number of destination objects in a relationship value.
    private static func destinationCount(_ value: Any?, of relationship: NSRelationshipDescription) -> Int {
        guard let value, !ValueComparison.isNSNull(value) else { return 0 }
        if relationship.isToMany { return CollectionValue(value)?.elements.count ?? 1 }
        return 1
    }

    /// The error code a validation warning stands for, when it is one (an `NSNumber` or a Swift
    /// integer, as compiled models hold them).
    private static func warningCode(_ warning: Any?) -> Int? {
        guard let warning = ValueComparison.unwrap(warning), !(warning is String), !(warning is NSString) else { return nil }
        if let number = NumericValue(warning), let code = number.exactInteger { return Int(code) }
        return nil
    }
}
