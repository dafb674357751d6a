/// Core Data's error codes in `NSCocoaErrorDomain`, with Apple's values and Swift names.
///
/// swift-corelibs-foundation declares none of them, so OpenCoreData does: as global constants
/// (Apple's C names) and as `CocoaError.Code` members (Apple's Swift names).

/// Generic validation error.
public let NSManagedObjectValidationError = 1550

/// A uniqueness constraint was violated.
public let NSManagedObjectConstraintValidationError = 1551

/// Several validation errors; see `NSDetailedErrorsKey`.
public let NSValidationMultipleErrorsError = 1560

/// A non-optional property has no value.
public let NSValidationMissingMandatoryPropertyError = 1570

/// A to-many relationship has too few destinations.
public let NSValidationRelationshipLacksMinimumCountError = 1580

/// A bounded to-many relationship has too many destinations.
public let NSValidationRelationshipExceedsMaximumCountError = 1590

/// A deny delete rule refused the deletion.
public let NSValidationRelationshipDeniedDeleteError = 1600

/// A number is above the maximum.
public let NSValidationNumberTooLargeError = 1610

/// A number is below the minimum.
public let NSValidationNumberTooSmallError = 1620

/// A date is after the maximum.
public let NSValidationDateTooLateError = 1630

/// A date is before the minimum.
public let NSValidationDateTooSoonError = 1640

/// A date is invalid.
public let NSValidationInvalidDateError = 1650

/// A string is longer than the maximum.
public let NSValidationStringTooLongError = 1660

/// A string is shorter than the minimum.
public let NSValidationStringTooShortError = 1670

/// A string does not match the regular expression.
public let NSValidationStringPatternMatchingError = 1680

/// A URI is invalid.
public let NSValidationInvalidURIError = 1690

/// A context could not be locked.
public let NSManagedObjectContextLockingError = 132000

/// A coordinator could not be locked.
public let NSPersistentStoreCoordinatorLockingError = 132010

/// A fault fired for an object that no longer exists in its store.
public let NSManagedObjectReferentialIntegrityError = 133000

/// A relationship points to an object in another store.
public let NSManagedObjectExternalRelationshipError = 133010

/// The save conflicted with changes made elsewhere (optimistic locking).
public let NSManagedObjectMergeError = 133020

/// The save conflicted with a uniqueness constraint.
public let NSManagedObjectConstraintMergeError = 133021

/// Unknown store type, or a file that is not a store of the type.
public let NSPersistentStoreInvalidTypeError = 134000

/// The store is of another type than the one asked for.
public let NSPersistentStoreTypeMismatchError = 134010

/// The store's schema does not fit the model.
public let NSPersistentStoreIncompatibleSchemaError = 134020

/// The store could not save.
public let NSPersistentStoreSaveError = 134030

/// Some stores saved and others did not.
public let NSPersistentStoreIncompleteSaveError = 134040

/// The save had optimistic-locking conflicts.
public let NSPersistentStoreSaveConflictsError = 134050

/// A general Core Data error.
public let NSCoreDataError = 134060

/// A store operation failed.
public let NSPersistentStoreOperationError = 134070

/// The store could not be opened.
public let NSPersistentStoreOpenError = 134080

/// The store timed out.
public let NSPersistentStoreTimeoutError = 134090

/// The store does not support the request type.
public let NSPersistentStoreUnsupportedRequestTypeError = 134091

/// The model is not the one the store was created with.
public let NSPersistentStoreIncompatibleVersionHashError = 134100

/// A migration failed.
public let NSMigrationError = 134110

/// A migration violated a uniqueness constraint.
public let NSMigrationConstraintViolationError = 134111

/// A migration was cancelled.
public let NSMigrationCancelledError = 134120

/// No model matches the store's version hashes.
public let NSMigrationMissingSourceModelError = 134130

/// No mapping model fits the migration.
public let NSMigrationMissingMappingModelError = 134140

/// The migration's source store failed.
public let NSMigrationManagerSourceStoreError = 134150

/// The migration's destination store failed.
public let NSMigrationManagerDestinationStoreError = 134160

/// An entity migration policy failed.
public let NSEntityMigrationPolicyError = 134170

/// SQLite reported an error; see `NSSQLiteErrorDomain`.
public let NSSQLiteError = 134180

/// No mapping model could be inferred.
public let NSInferredMappingModelError = 134190

/// An external record could not be imported.
public let NSExternalRecordImportError = 134200

/// The persistent history token has expired.
public let NSPersistentHistoryTokenExpiredError = 134301

extension CocoaError.Code {
    /// Generic validation error. (`NSManagedObjectValidationError`, 1550)
    public static var managedObjectValidation: CocoaError.Code { CocoaError.Code(rawValue: 1550) }
    /// A uniqueness constraint was violated. (`NSManagedObjectConstraintValidationError`, 1551)
    public static var managedObjectConstraintValidation: CocoaError.Code { CocoaError.Code(rawValue: 1551) }
    /// Several validation errors; see `NSDetailedErrorsKey`. (`NSValidationMultipleErrorsError`, 1560)
    public static var validationMultipleErrors: CocoaError.Code { CocoaError.Code(rawValue: 1560) }
    /// A non-optional property has no value. (`NSValidationMissingMandatoryPropertyError`, 1570)
    public static var validationMissingMandatoryProperty: CocoaError.Code { CocoaError.Code(rawValue: 1570) }
    /// A to-many relationship has too few destinations. (`NSValidationRelationshipLacksMinimumCountError`, 1580)
    public static var validationRelationshipLacksMinimumCount: CocoaError.Code { CocoaError.Code(rawValue: 1580) }
    /// A bounded to-many relationship has too many destinations. (`NSValidationRelationshipExceedsMaximumCountError`, 1590)
    public static var validationRelationshipExceedsMaximumCount: CocoaError.Code { CocoaError.Code(rawValue: 1590) }
    /// A deny delete rule refused the deletion. (`NSValidationRelationshipDeniedDeleteError`, 1600)
    public static var validationRelationshipDeniedDelete: CocoaError.Code { CocoaError.Code(rawValue: 1600) }
    /// A number is above the maximum. (`NSValidationNumberTooLargeError`, 1610)
    public static var validationNumberTooLarge: CocoaError.Code { CocoaError.Code(rawValue: 1610) }
    /// A number is below the minimum. (`NSValidationNumberTooSmallError`, 1620)
    public static var validationNumberTooSmall: CocoaError.Code { CocoaError.Code(rawValue: 1620) }
    /// A date is after the maximum. (`NSValidationDateTooLateError`, 1630)
    public static var validationDateTooLate: CocoaError.Code { CocoaError.Code(rawValue: 1630) }
    /// A date is before the minimum. (`NSValidationDateTooSoonError`, 1640)
    public static var validationDateTooSoon: CocoaError.Code { CocoaError.Code(rawValue: 1640) }
    /// A date is invalid. (`NSValidationInvalidDateError`, 1650)
    public static var validationInvalidDate: CocoaError.Code { CocoaError.Code(rawValue: 1650) }
    /// A string is longer than the maximum. (`NSValidationStringTooLongError`, 1660)
    public static var validationStringTooLong: CocoaError.Code { CocoaError.Code(rawValue: 1660) }
    /// A string is shorter than the minimum. (`NSValidationStringTooShortError`, 1670)
    public static var validationStringTooShort: CocoaError.Code { CocoaError.Code(rawValue: 1670) }
    /// A string does not match the regular expression. (`NSValidationStringPatternMatchingError`, 1680)
    public static var validationStringPatternMatching: CocoaError.Code { CocoaError.Code(rawValue: 1680) }
    /// A URI is invalid. (`NSValidationInvalidURIError`, 1690)
    public static var validationInvalidURI: CocoaError.Code { CocoaError.Code(rawValue: 1690) }
    /// A context could not be locked. (`NSManagedObjectContextLockingError`, 132000)
    public static var managedObjectContextLocking: CocoaError.Code { CocoaError.Code(rawValue: 132000) }
    /// A coordinator could not be locked. (`NSPersistentStoreCoordinatorLockingError`, 132010)
    public static var persistentStoreCoordinatorLocking: CocoaError.Code { CocoaError.Code(rawValue: 132010) }
    /// A fault fired for an object that no longer exists in its store. (`NSManagedObjectReferentialIntegrityError`, 133000)
    public static var managedObjectReferentialIntegrity: CocoaError.Code { CocoaError.Code(rawValue: 133000) }
    /// A relationship points to an object in another store. (`NSManagedObjectExternalRelationshipError`, 133010)
    public static var managedObjectExternalRelationship: CocoaError.Code { CocoaError.Code(rawValue: 133010) }
    /// The save conflicted with changes made elsewhere (optimistic locking). (`NSManagedObjectMergeError`, 133020)
    public static var managedObjectMerge: CocoaError.Code { CocoaError.Code(rawValue: 133020) }
    /// The save conflicted with a uniqueness constraint. (`NSManagedObjectConstraintMergeError`, 133021)
    public static var managedObjectConstraintMerge: CocoaError.Code { CocoaError.Code(rawValue: 133021) }
    /// Unknown store type, or a file that is not a store of the type. (`NSPersistentStoreInvalidTypeError`, 134000)
    public static var persistentStoreInvalidType: CocoaError.Code { CocoaError.Code(rawValue: 134000) }
    /// The store is of another type than the one asked for. (`NSPersistentStoreTypeMismatchError`, 134010)
    public static var persistentStoreTypeMismatch: CocoaError.Code { CocoaError.Code(rawValue: 134010) }
    /// The store's schema does not fit the model. (`NSPersistentStoreIncompatibleSchemaError`, 134020)
    public static var persistentStoreIncompatibleSchema: CocoaError.Code { CocoaError.Code(rawValue: 134020) }
    /// The store could not save. (`NSPersistentStoreSaveError`, 134030)
    public static var persistentStoreSave: CocoaError.Code { CocoaError.Code(rawValue: 134030) }
    /// Some stores saved and others did not. (`NSPersistentStoreIncompleteSaveError`, 134040)
    public static var persistentStoreIncompleteSave: CocoaError.Code { CocoaError.Code(rawValue: 134040) }
    /// The save had optimistic-locking conflicts. (`NSPersistentStoreSaveConflictsError`, 134050)
    public static var persistentStoreSaveConflicts: CocoaError.Code { CocoaError.Code(rawValue: 134050) }
    /// A general Core Data error. (`NSCoreDataError`, 134060)
    public static var coreData: CocoaError.Code { CocoaError.Code(rawValue: 134060) }
    /// A store operation failed. (`NSPersistentStoreOperationError`, 134070)
    public static var persistentStoreOperation: CocoaError.Code { CocoaError.Code(rawValue: 134070) }
    /// The store could not be opened. (`NSPersistentStoreOpenError`, 134080)
    public static var persistentStoreOpen: CocoaError.Code { CocoaError.Code(rawValue: 134080) }
    /// The store timed out. (`NSPersistentStoreTimeoutError`, 134090)
    public static var persistentStoreTimeout: CocoaError.Code { CocoaError.Code(rawValue: 134090) }
    /// The store does not support the request type. (`NSPersistentStoreUnsupportedRequestTypeError`, 134091)
    public static var persistentStoreUnsupportedRequestType: CocoaError.Code { CocoaError.Code(rawValue: 134091) }
    /// The model is not the one the store was created with. (`NSPersistentStoreIncompatibleVersionHashError`, 134100)
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code { CocoaError.Code(rawValue: 134100) }
    /// A migration failed. (`NSMigrationError`, 134110)
    public static var migration: CocoaError.Code { CocoaError.Code(rawValue: 134110) }
    /// A migration violated a uniqueness constraint. (`NSMigrationConstraintViolationError`, 134111)
    public static var migrationConstraintViolation: CocoaError.Code { CocoaError.Code(rawValue: 134111) }
    /// A migration was cancelled. (`NSMigrationCancelledError`, 134120)
    public static var migrationCancelled: CocoaError.Code { CocoaError.Code(rawValue: 134120) }
    /// No model matches the store's version hashes. (`NSMigrationMissingSourceModelError`, 134130)
    public static var migrationMissingSourceModel: CocoaError.Code { CocoaError.Code(rawValue: 134130) }
    /// No mapping model fits the migration. (`NSMigrationMissingMappingModelError`, 134140)
    public static var migrationMissingMappingModel: CocoaError.Code { CocoaError.Code(rawValue: 134140) }
    /// The migration's source store failed. (`NSMigrationManagerSourceStoreError`, 134150)
    public static var migrationManagerSourceStore: CocoaError.Code { CocoaError.Code(rawValue: 134150) }
    /// The migration's destination store failed. (`NSMigrationManagerDestinationStoreError`, 134160)
    public static var migrationManagerDestinationStore: CocoaError.Code { CocoaError.Code(rawValue: 134160) }
    /// An entity migration policy failed. (`NSEntityMigrationPolicyError`, 134170)
    public static var entityMigrationPolicy: CocoaError.Code { CocoaError.Code(rawValue: 134170) }
    /// SQLite reported an error; see `NSSQLiteErrorDomain`. (`NSSQLiteError`, 134180)
    public static var sqlite: CocoaError.Code { CocoaError.Code(rawValue: 134180) }
    /// No mapping model could be inferred. (`NSInferredMappingModelError`, 134190)
    public static var inferredMappingModel: CocoaError.Code { CocoaError.Code(rawValue: 134190) }
    /// An external record could not be imported. (`NSExternalRecordImportError`, 134200)
    public static var externalRecordImport: CocoaError.Code { CocoaError.Code(rawValue: 134200) }
    /// The persistent history token has expired. (`NSPersistentHistoryTokenExpiredError`, 134301)
    public static var persistentHistoryTokenExpired: CocoaError.Code { CocoaError.Code(rawValue: 134301) }
}

/// The userInfo key of the underlying errors of an `NSValidationMultipleErrorsError`.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// The userInfo key of the object that failed validation.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// The userInfo key of the key that failed validation.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// The userInfo key of the predicate that failed validation.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// The userInfo key of the value that failed validation.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// The userInfo key of the stores an error concerns.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
/// The userInfo key of the objects an error concerns.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
/// The userInfo key of the `NSMergeConflict`s of a failed save.
public let NSPersistentStoreSaveConflictsErrorKey = "conflictList"
/// The error domain of SQLite's own result codes.
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"
