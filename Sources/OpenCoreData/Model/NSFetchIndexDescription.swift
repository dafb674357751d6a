/// How a fetch index orders the values of one element. Core Data's raw values.
public enum NSFetchIndexElementType: UInt, Sendable {
    /// An ordinary (B-tree) index.
    case binary = 0
    /// A spatial index over a range of values.
    case rTree = 1
}

/// A named index of an entity over one or more properties, created by SQL stores.
open class NSFetchIndexDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The entity the index belongs to (not retained: nil once the entity is freed).
    public internal(set) var entity: NSEntityDescription? {
        get { entityReference.object }
        set { entityReference = UnretainedReference(newValue) }
    }

    private var entityReference = UnretainedReference<NSEntityDescription>(nil)

    /// The index's name, unique within its entity.
    open var name: String { willSet { checkMutable() } }

    /// The indexed properties, in order.
    open var elements: [NSFetchIndexElementDescription] {
        willSet { checkMutable() }
        didSet { elements.forEach { $0.indexDescription = self } }
    }

    /// A predicate restricting the index to the matching rows (a partial index).
    open var partialIndexPredicate: NSPredicate? { willSet { checkMutable() } }

    /// Creates an index named `name` over `elements`.
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
        self.elements.forEach { $0.indexDescription = self }
    }

    func checkMutable() {
        if let entity, !entity.isEditable { preconditionFailure(ManagedObjectModelError.immutableModelMessage) }
    }

    /// A detached copy with copies of the elements.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSFetchIndexDescription(name: name, elements: elements.map { $0.copy() as! NSFetchIndexElementDescription })
        copy.partialIndexPredicate = partialIndexPredicate
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFetchIndexDescription else { return false }
        return name == other.name
            && elements.count == other.elements.count
            && zip(elements, other.elements).allSatisfy { $0.isEqual($1) }
            && ModelValues.isEqual(partialIndexPredicate, other.partialIndexPredicate)
    }

    open override var hash: Int { name.hashValue }

    open override var description: String {
        "(NSFetchIndexDescription) \(name): " + elements.map(\.description).joined(separator: ", ")
    }
}

/// One property of a fetch index, with its order and collation.
open class NSFetchIndexElementDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The index this element belongs to (not retained: nil once the index is freed).
    public internal(set) var indexDescription: NSFetchIndexDescription? {
        get { indexReference.object }
        set { indexReference = UnretainedReference(newValue) }
    }

    private var indexReference = UnretainedReference<NSFetchIndexDescription>(nil)

    private var attachedProperty: NSPropertyDescription? {
        get { propertyReference.object }
        set { propertyReference = UnretainedReference(newValue) }
    }

    private var propertyReference = UnretainedReference<NSPropertyDescription>(nil)

    /// The name of the indexed property.
    public private(set) var propertyName: String?

    /// The indexed property, resolved by name in the index's entity when needed.
    open var property: NSPropertyDescription? {
        if let attachedProperty { return attachedProperty }
        guard let propertyName else { return nil }
        return indexDescription?.entity?.propertiesByName[propertyName]
    }

    /// The kind of index. Defaults to `.binary`.
    open var collationType: NSFetchIndexElementType { willSet { checkMutable() } }

    /// Whether the index orders the values ascending. Defaults to `true`.
    open var isAscending: Bool = true { willSet { checkMutable() } }

    /// Creates an element over `property`, ascending.
    public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
        propertyReference = UnretainedReference(property)
        propertyName = property.name
        self.collationType = collationType
        super.init()
    }

    /// An element naming its property, resolved once the index is attached to an entity.
    init(propertyName: String, collationType: NSFetchIndexElementType, ascending: Bool) {
        self.propertyName = propertyName
        self.collationType = collationType
        self.isAscending = ascending
        super.init()
    }

    func checkMutable() {
        if let entity = indexDescription?.entity, !entity.isEditable {
            preconditionFailure(ManagedObjectModelError.immutableModelMessage)
        }
    }

    /// A detached copy naming the same property.
    open func copy(with zone: NSZone? = nil) -> Any {
        NSFetchIndexElementDescription(propertyName: propertyName ?? "", collationType: collationType, ascending: isAscending)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFetchIndexElementDescription else { return false }
        return propertyName == other.propertyName && collationType == other.collationType && isAscending == other.isAscending
    }

    open override var hash: Int { propertyName?.hashValue ?? 0 }

    open override var description: String {
        "\(propertyName ?? "?") \(collationType == .binary ? "binary" : "rTree") \(isAscending ? "ascending" : "descending")"
    }
}
