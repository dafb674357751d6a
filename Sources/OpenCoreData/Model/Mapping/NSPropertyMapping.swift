import Foundation

/// How one property of a destination entity gets its value during a migration.
///
/// The value expression is evaluated with the variables Core Data documents: `$source`
/// (the source instance), `$manager` (the `NSMigrationManager`), `$entityMapping`,
/// `$propertyMapping`, `$entityPolicy` and `$destination`.
open class NSPropertyMapping: NSObject, @unchecked Sendable {
    // @unchecked Sendable: like Apple's, a mapping is configured before a migration starts and only
    // read while it runs; a migration reads it from the one thread that runs the migration.

    /// The name of the destination property.
    open var name: String?

    /// The expression that computes the destination value; `nil` leaves the property unset.
    open var valueExpression: NSExpression?

    /// The mapping's user info.
    open var userInfo: [AnyHashable: Any]?

    /// Creates an empty property mapping.
    public override init() {
        super.init()
    }

    /// Creates a property mapping for `name` computed by `valueExpression`.
    public convenience init(name: String?, valueExpression: NSExpression?, userInfo: [AnyHashable: Any]? = nil) {
        self.init()
        self.name = name
        self.valueExpression = valueExpression
        self.userInfo = userInfo
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPropertyMapping else { return false }
        return name == other.name && ModelValues.isEqual(valueExpression, other.valueExpression)
    }

    open override var hash: Int { name?.hashValue ?? 0 }

    open override var description: String {
        "(NSPropertyMapping) \(name ?? "<nil>") = \(valueExpression.map { $0.description } ?? "<nil>")"
    }
}
