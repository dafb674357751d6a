/// An attribute of an entity: a named value of one ``NSAttributeType``.
///
/// Differences from Apple: ``defaultValue`` holds the Swift types Core Data bridges to
/// (`Int16`, `Int32`, `Int64`, `Decimal`, `Double`, `Float`, `String`, `Bool`, `Date`, `Data`,
/// `UUID`, `URL`) rather than `NSNumber` and friends. Minimum, maximum and pattern constraints
/// are validation predicates, exactly as Core Data compiles them from a model file
/// (`SELF >= 1`, `length <= 20`, `SELF MATCHES "…"`, with Core Data's error codes as warnings).
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    /// The type of the attribute's values. Defaults to `.undefinedAttributeType`.
    @exclusivity(unchecked) open var attributeType: NSAttributeType = .undefinedAttributeType { willSet { checkMutable() } }

    /// The class name of the attribute's values: Core Data's class for the type (`NSString`,
    /// `NSNumber`, …), or the custom class name set for a transformable attribute.
    open var attributeValueClassName: String? {
        get { customValueClassName ?? attributeType.defaultValueClassName }
        set {
            checkMutable()
            customValueClassName = newValue
        }
    }

    /// The class name set explicitly (`customClassName` in Xcode), if any.
    private var customValueClassName: String?

    /// The value a new object gets, of the Swift type matching ``attributeType``.
    open var defaultValue: Any? { willSet { checkMutable() } }

    /// The name of the value transformer of a transformable attribute.
    open var valueTransformerName: String? { willSet { checkMutable() } }

    /// Whether large binary values may be stored outside the store file.
    open var allowsExternalBinaryDataStorage: Bool = false { willSet { checkMutable() } }

    /// Whether persistent history keeps the value of a deleted object (`preserveAfterDeletion`).
    open var preservesValueInHistoryOnDeletion: Bool = false { willSet { checkMutable() } }

    /// Whether CloudKit encrypts the value. Stored only.
    open var allowsCloudEncryption: Bool = false { willSet { checkMutable() } }

    /// Xcode's "Use Scalar Type" setting (`usesScalarValueType`), as read from an Xcode model
    /// (`nil` when the file does not say); `coredata generate` reads it. Not in Apple's API.
    package var usesScalarValueType: Bool?

    open override var versionHash: Data { VersionHasher.hash(of: self) }

    override func copyState(from other: NSPropertyDescription) {
        super.copyState(from: other)
        guard let other = other as? NSAttributeDescription else { return }
        attributeType = other.attributeType
        customValueClassName = other.customValueClassName
        defaultValue = other.defaultValue
        valueTransformerName = other.valueTransformerName
        allowsExternalBinaryDataStorage = other.allowsExternalBinaryDataStorage
        preservesValueInHistoryOnDeletion = other.preservesValueInHistoryOnDeletion
        allowsCloudEncryption = other.allowsCloudEncryption
        usesScalarValueType = other.usesScalarValueType
    }

    override func hasEqualState(_ other: NSPropertyDescription) -> Bool {
        guard super.hasEqualState(other), let other = other as? NSAttributeDescription else { return false }
        return attributeType == other.attributeType
            && attributeValueClassName == other.attributeValueClassName
            && ModelValues.isEqual(defaultValue, other.defaultValue)
            && valueTransformerName == other.valueTransformerName
            && allowsExternalBinaryDataStorage == other.allowsExternalBinaryDataStorage
            && preservesValueInHistoryOnDeletion == other.preservesValueInHistoryOnDeletion
            && allowsCloudEncryption == other.allowsCloudEncryption
    }

    open override var description: String {
        "\(super.description), attributeType \(attributeType.xcodeName), defaultValue \(defaultValue.map { "\($0)" } ?? "nil")"
    }
}

/// An attribute whose value a store derives from other values with an expression.
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// The expression that computes the value, e.g. `now()` or `posts.@count`.
    open var derivationExpression: NSExpression? { willSet { checkMutable() } }

    override func copyState(from other: NSPropertyDescription) {
        super.copyState(from: other)
        derivationExpression = (other as? NSDerivedAttributeDescription)?.derivationExpression
    }

    override func hasEqualState(_ other: NSPropertyDescription) -> Bool {
        guard super.hasEqualState(other), let other = other as? NSDerivedAttributeDescription else { return false }
        return ModelValues.isEqual(derivationExpression, other.derivationExpression)
    }
}
