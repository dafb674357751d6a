import Foundation

/// The changes between two arrangements of a fetched results controller, in the delegate's
/// conventions: deletions and old index paths refer to the old arrangement, insertions and
/// new index paths to the new one.
///
/// Sections are identified by name, objects by identity. Sections in both arrangements that
/// keep their relative order stay; the others are reported deleted and inserted. Objects in
/// both that stay in the same staying section and keep their relative order (the longest
/// such run, unchanged objects first: see ``stayingPositions(_:changed:)``) are not moved;
/// every other object in both is a move. Every object leaving
/// (deleted, or moved away) and arriving (inserted, or moved in) is reported, also those of
/// deleted and inserted sections. Staying objects that changed are updates.
struct FetchedResultsChanges {
    struct SectionChange {
        var section: FetchedResultsSection
        var index: Int
        var type: NSFetchedResultsChangeType
    }

    struct ObjectChange {
        var object: AnyObject
        var oldPath: IndexPath?
        var type: NSFetchedResultsChangeType
        var newPath: IndexPath?
    }

    var sections: [SectionChange] = []
    var objects: [ObjectChange] = []

    var isEmpty: Bool { sections.isEmpty && objects.isEmpty }

    init(from old: [FetchedResultsSection], to new: [FetchedResultsSection], changed: Set<ObjectIdentifier>) {
        let oldSectionIndex = Dictionary(old.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newSectionIndex = Dictionary(new.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        // Sections in both, in new order, by old index: the increasing run stays.
        let common = new.map(\.name).filter { oldSectionIndex[$0] != nil }
        let stayingPositions = Self.longestIncreasingRun(common.compactMap { oldSectionIndex[$0] })
        let stayingSections = Set(stayingPositions.map { common[$0] })
        for (index, section) in old.enumerated() where !stayingSections.contains(section.name) {
            sections.append(SectionChange(section: section, index: index, type: .delete))
        }
        for (index, section) in new.enumerated() where !stayingSections.contains(section.name) {
            sections.append(SectionChange(section: section, index: index, type: .insert))
        }

        var oldPaths: [ObjectIdentifier: IndexPath] = [:]
        for (s, section) in old.enumerated() {
            for (row, object) in section.members.enumerated() { oldPaths[ObjectIdentifier(object)] = IndexPath(indexes: [s, row]) }
        }
        var newPaths: [ObjectIdentifier: IndexPath] = [:]
        for (s, section) in new.enumerated() {
            for (row, object) in section.members.enumerated() { newPaths[ObjectIdentifier(object)] = IndexPath(indexes: [s, row]) }
        }
        // Within each staying section, the objects that stay in it keep their place when
        // they are in the longest run of increasing old rows.
        var staying: Set<ObjectIdentifier> = []
        for name in stayingSections {
            guard let newIndex = newSectionIndex[name], let oldIndex = oldSectionIndex[name] else { continue }
            let remaining = new[newIndex].members.map(ObjectIdentifier.init).filter { oldPaths[$0]?[0] == oldIndex }
            let oldRows = remaining.map { oldPaths[$0]?[1] ?? 0 }
            for position in Self.stayingPositions(oldRows, changed: remaining.map(changed.contains)) {
                staying.insert(remaining[position])
            }
        }

        var moves: [ObjectChange] = []
        var updates: [ObjectChange] = []
        for section in old {
            for object in section.members {
                let key = ObjectIdentifier(object)
                guard let newPath = newPaths[key] else {
                    objects.append(ObjectChange(object: object, oldPath: oldPaths[key], type: .delete, newPath: nil))
                    continue
                }
                if !staying.contains(key) {
                    moves.append(ObjectChange(object: object, oldPath: oldPaths[key], type: .move, newPath: newPath))
                } else if changed.contains(key) {
                    updates.append(ObjectChange(object: object, oldPath: oldPaths[key], type: .update, newPath: newPath))
                }
            }
        }
        for section in new {
            for object in section.members where oldPaths[ObjectIdentifier(object)] == nil {
                objects.append(ObjectChange(object: object, oldPath: nil, type: .insert, newPath: newPaths[ObjectIdentifier(object)]))
            }
        }
        objects += moves + updates
    }

    /// The positions (in new order) of the objects that keep their place, given their old
    /// rows: the longest run of increasing old rows among the unchanged objects, then every
    /// changed object that fits between its staying neighbours — so a changed object is
    /// reported moved rather than the unchanged ones around it.
    static func stayingPositions(_ oldRows: [Int], changed: [Bool]) -> [Int] {
        let unchanged = oldRows.indices.filter { !changed[$0] }
        var stays = [Bool](repeating: false, count: oldRows.count)
        for position in longestIncreasingRun(unchanged.map { oldRows[$0] }) { stays[unchanged[position]] = true }
        for position in oldRows.indices where changed[position] {
            let before = oldRows.indices[..<position].last { stays[$0] }
            let after = oldRows.indices[(position + 1)...].first { stays[$0] }
            if before.map({ oldRows[$0] < oldRows[position] }) ?? true, after.map({ oldRows[position] < oldRows[$0] }) ?? true {
                stays[position] = true
            }
        }
        return oldRows.indices.filter { stays[$0] }
    }

    /// The positions of one longest strictly increasing subsequence of `values`.
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []          // positions of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            let low = tails.lowerBound { values[$0] < value }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run: [Int] = []
        var position = tails.last ?? -1
        while position >= 0 {
            run.append(position)
            position = previous[position]
        }
        return run.reversed()
    }

    /// The changes of the first section's objects as a difference of object IDs: removals at
    /// old offsets with the old IDs, insertions at new offsets with the current IDs, moves
    /// associated. For controllers without sections.
    func difference(oldIDs: [ObjectIdentifier: NSManagedObjectID]) -> CollectionDifference<NSManagedObjectID> {
        var changes: [CollectionDifference<NSManagedObjectID>.Change] = []
        for change in objects {
            let old = change.oldPath.map { $0[1] }
            let new = change.newPath.map { $0[1] }
            let currentID = (change.object as? NSManagedObject)?.objectID
            let oldID = oldIDs[ObjectIdentifier(change.object)] ?? currentID
            switch change.type {
            case .delete:
                if let old, let oldID { changes.append(.remove(offset: old, element: oldID, associatedWith: nil)) }
            case .insert:
                if let new, let currentID { changes.append(.insert(offset: new, element: currentID, associatedWith: nil)) }
            case .move:
                if let old, let new, let oldID, let currentID {
                    changes.append(.remove(offset: old, element: oldID, associatedWith: new))
                    changes.append(.insert(offset: new, element: currentID, associatedWith: old))
                }
            case .update:
                break
            }
        }
        // The changes are consistent by construction (distinct offsets on each side, paired
        // moves); an empty difference is the fallback that cannot occur.
        return CollectionDifference(changes) ?? [NSManagedObjectID]().difference(from: [])
    }
}
