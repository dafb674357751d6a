import Foundation

/// A batch update as a store runs it: the entity, which objects, and the new values.
public struct StoreBatchUpdate: @unchecked Sendable {
    /// The entity whose objects are updated.
    public var entity: NSEntityDescription
    /// Which objects; `nil` for all.
    public var predicate: NSPredicate?
    /// Whether objects of subentities are updated too.
    public var includesSubentities: Bool
    /// Each attribute with the expression giving its new value (a constant value expression
    /// for plain values), evaluated per object against its stored values.
    public var values: [(attribute: NSAttributeDescription, expression: NSExpression)]

    /// The fetch that finds the objects to update.
    func fetchRequest(resultType: NSFetchRequestResultType) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = entity
        request.predicate = predicate
        request.includesSubentities = includesSubentities
        request.resultType = resultType
        return request
    }
}

/// The default batch operations of every store, written through the store protocol itself:
/// each builds one ``StoreSaveChanges`` and hands it to ``NSPersistentStore/save(_:)``, so a
/// batch is as atomic as the store's saves (and an atomic store writes its file once).
extension NSPersistentStore {
    func batchInsertThroughSave(_ rows: [[String: Any]], of entity: NSEntityDescription, returningIDs: Bool) throws -> StoreBatchOutcome {
        let columns = BatchInsertColumns(entity: entity)
        var plan = BatchInsertPlan(entity: entity)
        try plan.add(rows.enumerated().map { try columns.converted($1, row: $0) }, fetch: executeFetch)
        let ids = try newObjectIDs(for: entity, count: plan.inserted.count)
        var changes = StoreSaveChanges()
        changes.inserted = zip(ids, plan.inserted).map { ObjectSnapshot(objectID: $0, values: $1) }
        changes.updated = plan.updated
        changes.changedKeys = plan.changedKeys
        try save(changes)
        let written = returningIDs ? plan.order.map { slot -> NSManagedObjectID in
            switch slot {
            case .inserted(let index): ids[index]
            case .updated(let index): plan.updated[index].objectID
            }
        } : nil
        return StoreBatchOutcome(count: plan.order.count, objectIDs: written)
    }

    func batchUpdateThroughSave(_ update: StoreBatchUpdate, returningIDs: Bool) throws -> StoreBatchOutcome {
        guard case .snapshots(let snapshots) = try executeFetch(update.fetchRequest(resultType: .managedObjectResultType)) else {
            return StoreBatchOutcome(count: 0, objectIDs: returningIDs ? [] : nil)
        }
        var changes = StoreSaveChanges()
        changes.updated.reserveCapacity(snapshots.count)
        let keys = Set(update.values.map(\.attribute.name))
        for var snapshot in snapshots {
            let current = snapshot.values
            for (attribute, expression) in update.values {
                snapshot[attribute.name] = try BatchValues.value(of: expression, for: attribute, with: current)
            }
            changes.changedKeys[snapshot.objectID] = keys
            changes.updated.append(snapshot)
        }
        try save(changes)
        return StoreBatchOutcome(count: changes.updated.count, objectIDs: returningIDs ? changes.updated.map(\.objectID) : nil)
    }

    func batchDeleteThroughSave(_ objectIDs: [NSManagedObjectID], returningIDs: Bool) throws -> StoreBatchOutcome {
        var plan = BatchDeletePlan(store: self)
        try plan.delete(objectIDs)
        let changes = try plan.changes()
        try save(changes)
        return StoreBatchOutcome(count: changes.deleted.count, objectIDs: returningIDs ? changes.deleted.map(\.objectID) : nil,
                                 updatedObjectIDs: changes.updated.map(\.objectID))
    }
}

/// The error key under which a batch request's error gives the index of the row at fault (an
/// `Int`). Not in Apple's API, whose batch inserts don't check rows.
public let NSBatchRowErrorKey = "NSBatchRowIndex"

/// The values a batch writes: a request's values checked and converted to their attributes'
/// types, with errors that name the row and key.
enum BatchValues {
    /// `value` for `attribute`, converted; nil and `NSNull` give nil. A value of the wrong type
    /// throws `NSManagedObjectValidationError` (1550).
    static func converted(_ value: Any?, for attribute: NSAttributeDescription, row: Int?) throws -> Any? {
        guard let value = ValueComparison.unwrap(value), !ValueComparison.isNSNull(value) else { return nil }
        switch PropertyValueCoercion.check(value, for: attribute) {
        case .accepted(let converted):
            return converted
        case .wrongType(let message):
            throw error(message, key: attribute.name, value: value, row: row)
        case .invalid(_, let reason):
            throw error(reason, key: attribute.name, value: value, row: row)
        }
    }

    /// The value `expression` gives for `attribute` on an object whose stored values are
    /// `current`, converted.
    static func value(of expression: NSExpression, for attribute: NSAttributeDescription, with current: [String: Any]) throws -> Any? {
        let value = try expression.expressionValueThrowing(with: current)
        return try converted(value, for: attribute, row: nil)
    }

    /// `NSManagedObjectValidationError` (1550) for a batch's value.
    static func error(_ message: String, key: String, value: Any?, row: Int?) -> NSError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: (row.map { "Row \($0) of the batch: " } ?? "") + message,
            NSValidationKeyErrorKey: key,
        ]
        if let value { info[NSValidationValueErrorKey] = value }
        if let row { info[NSBatchRowErrorKey] = row }
        return NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError, userInfo: info)
    }
}

/// The attributes a batch insert writes for one entity, and the rules its rows follow: keys
/// name stored attributes (not relationships), values are converted to the attributes' types,
/// and attributes a row leaves out take their default values.
struct BatchInsertColumns {
    /// The entity's stored attributes, by name.
    let attributes: [NSAttributeDescription]
    /// The position of each attribute in ``attributes``, by name.
    let positions: [String: Int]
    /// The default value of each attribute, converted.
    let defaults: [Any?]
    /// The Swift type each attribute keeps, when values of that exact type need no conversion.
    let exactTypes: [ObjectIdentifier?]
    private let entity: NSEntityDescription

    init(entity: NSEntityDescription) {
        self.entity = entity
        attributes = entity.attributesByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
        positions = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        defaults = attributes.map { attribute in attribute.defaultValue.flatMap { try? BatchValues.converted($0, for: attribute, row: nil) } }
        exactTypes = attributes.map { PropertyValueCoercion.exactType(of: $0.attributeType) }
    }

    /// The value of attribute `position` in a row that gave `given` (nil when the row left it
    /// out: the default), converted.
    @inline(__always)
    func value(_ given: Any?, at position: Int, row: Int) throws -> Any? {
        guard let given else { return defaults[position] }
        if let exact = exactTypes[position], ObjectIdentifier(type(of: given)) == exact { return given }
        return try BatchValues.converted(given, for: attributes[position], row: row)
    }

    /// A row with every value converted and defaults filled in.
    func converted(_ row: [String: Any], row index: Int) throws -> [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(attributes.count)
        for (position, attribute) in attributes.enumerated() {
            if let value = try value(row[attribute.name], at: position, row: index) { result[attribute.name] = value }
        }
        if row.count > result.count || row.keys.contains(where: { positions[$0] == nil }) { throw unknownKey(in: row, row: index) }
        return result
    }

    /// The error for a row with a key that is no stored attribute (`nil` if it has none).
    func unknownKey(in row: [String: Any], row index: Int) -> NSError {
        let key = row.keys.sorted().first { positions[$0] == nil } ?? "?"
        let what = entity.relationshipsByName[key] != nil ? "a relationship, which batch inserts can't set"
            : "not a stored attribute of \(entity.name ?? "?")"
        return BatchValues.error("'\(key)' is \(what).", key: key, value: row[key], row: index)
    }
}

/// What a batch insert writes, row by row: new objects, and rows that update a stored object
/// (or an earlier row) because they share a uniqueness constraint's values with it.
struct BatchInsertPlan {
    enum Slot {
        case inserted(Int)
        case updated(Int)
    }

    let entity: NSEntityDescription
    /// The values of each new object.
    var inserted: [[String: Any]] = []
    /// Stored objects a row updates, with the keys it set.
    var updated: [ObjectSnapshot] = []
    var changedKeys: [NSManagedObjectID: Set<String>] = [:]
    /// Where each row went, in row order (a row that merged into an earlier one is not listed again).
    var order: [Slot] = []

    init(entity: NSEntityDescription) {
        self.entity = entity
    }

    /// Adds `rows`, looking up stored rows that share constraint values through `fetch`.
    mutating func add(_ rows: [[String: Any]], fetch: (NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult) throws {
        let constraints = UniquenessConstraint.all(of: entity)
        guard !constraints.isEmpty else {
            inserted = rows
            order = rows.indices.map { .inserted($0) }
            return
        }
        // The stored objects holding each row's constraint values.
        var stored: [[AnyHashable]: ObjectSnapshot] = [:]
        for constraint in constraints {
            let values = rows.compactMap { row -> [Any]? in
                let values = constraint.names.map { row[$0] }
                return values.contains { $0 == nil } ? nil : values.map { $0! }
            }
            for (key, snapshots) in try constraint.storedSnapshots(matching: values, fetch: fetch) {
                if let first = snapshots.first { stored[key] = first }
            }
        }
        var slots: [[AnyHashable]: Slot] = [:]
        var updatedIndex: [NSManagedObjectID: Int] = [:]
        for row in rows {
            let keys = constraints.compactMap { constraint -> [AnyHashable]? in
                let values = constraint.names.map { row[$0] }
                return values.contains { $0 == nil } ? nil : constraint.key(values.map { $0! })
            }
            let constrained = Set(constraints.flatMap(\.names))
            if let slot = keys.lazy.compactMap({ slots[$0] }).first {
                merge(row, into: slot, skipping: constrained)
                for key in keys where slots[key] == nil { slots[key] = slot }
            } else if let snapshot = keys.lazy.compactMap({ stored[$0] }).first {
                let index = updatedIndex[snapshot.objectID] ?? {
                    updated.append(snapshot)
                    updatedIndex[snapshot.objectID] = updated.count - 1
                    return updated.count - 1
                }()
                merge(row, into: .updated(index), skipping: constrained)
                order.append(.updated(index))
                for key in keys { slots[key] = .updated(index) }
            } else {
                inserted.append(row)
                order.append(.inserted(inserted.count - 1))
                for key in keys { slots[key] = .inserted(inserted.count - 1) }
            }
        }
    }

    /// Applies a later row's values to an earlier row or a stored object (the constraint's
    /// own values stay).
    private mutating func merge(_ row: [String: Any], into slot: Slot, skipping constrained: Set<String>) {
        switch slot {
        case .inserted(let index):
            for (key, value) in row { inserted[index][key] = value }
        case .updated(let index):
            let id = updated[index].objectID
            for (key, value) in row where !constrained.contains(key) {
                updated[index][key] = value
                changedKeys[id, default: []].insert(key)
            }
            if changedKeys[id] == nil { changedKeys[id] = [] }
        }
    }
}
