import Foundation

/// One uniqueness constraint as the model declares it: the declaring entity (its scope, with
/// subentities) and the property names, with the lookups that saves and batch inserts share.
struct UniquenessConstraint {
    /// The entity that declares the constraint; it holds across its subentities.
    let entity: NSEntityDescription
    /// The constraint's position in the entity's ``NSEntityDescription/uniquenessConstraints``.
    let index: Int
    /// The constrained properties' names.
    let names: [String]

    /// The constraints that hold for objects of `entity`: its own, then its superentities'.
    static func all(of entity: NSEntityDescription) -> [UniquenessConstraint] {
        var result: [UniquenessConstraint] = []
        var current: NSEntityDescription? = entity
        while let scope = current {
            for (index, constraint) in scope.uniquenessConstraints.enumerated() {
                let names = constraint.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }
                if !names.isEmpty { result.append(UniquenessConstraint(entity: scope, index: index, names: names)) }
            }
            current = scope.superentity
        }
        return result
    }

    /// What names this constraint among others.
    var identity: [AnyHashable] { [ObjectIdentifier(entity), index] }

    /// The key of a set of values of this constraint (in ``names`` order): the constraint, then
    /// each value (integers as `Int64`, other hashable values as they are, the rest by description).
    func key(_ values: [Any]) -> [AnyHashable] {
        var key = identity
        for value in values {
            if let number = value as? any BinaryInteger { key.append(Int64(truncatingIfNeeded: number)) }
            else if let hashable = value as? AnyHashable { key.append(hashable) }
            else { key.append(String(describing: value)) }
        }
        return key
    }

    /// The stored objects holding each of `rows` (values in ``names`` order), by ``key(_:)``:
    /// one fetch through `fetch` per 200 rows (`a IN {…}` for one property, an `OR` of `AND`s
    /// otherwise), over the declaring entity and its subentities.
    func storedSnapshots(matching rows: [[Any]], fetch: (NSFetchRequest<NSFetchRequestResult>) throws -> StoreFetchResult)
        throws -> [[AnyHashable]: [ObjectSnapshot]] {
        var result: [[AnyHashable]: [ObjectSnapshot]] = [:]
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + 200, rows.count)]
            start += 200
            let request = NSFetchRequest<NSFetchRequestResult>()
            request.entity = entity
            request.includesSubentities = true
            request.resultType = .managedObjectResultType
            request.predicate = predicate(matching: Array(chunk))
            guard case .snapshots(let snapshots) = try fetch(request) else { continue }
            for snapshot in snapshots {
                result[key(names.map { snapshot[$0] ?? NSNull() }), default: []].append(snapshot)
            }
        }
        return result
    }

    /// `a IN {…}` for one property, else `(a == x AND b == y) OR …`.
    private func predicate(matching rows: [[Any]]) -> NSPredicate {
        if names.count == 1 {
            return NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: names[0]),
                                         rightExpression: NSExpression(forConstantValue: rows.map { $0[0] }),
                                         modifier: .direct, type: .in, options: [])
        }
        return NSCompoundPredicate(orPredicateWithSubpredicates: rows.map { values in
            NSCompoundPredicate(andPredicateWithSubpredicates: zip(names, values).map { name, value in
                NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: name),
                                      rightExpression: NSExpression(forConstantValue: value),
                                      modifier: .direct, type: .equalTo, options: [])
            })
        })
    }
}
