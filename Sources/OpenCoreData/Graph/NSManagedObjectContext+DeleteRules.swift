/// Delete propagation: what deleting an object does to the objects it is related to.
///
/// Runs in `processPendingChanges()`, for each object deleted since the last run, after its
/// `prepareForDeletion()`:
/// - nullify: the relationship is cleared on both sides (the destinations lose the object);
/// - cascade: the destinations are deleted too, and their own rules run in turn;
/// - deny: nothing here; `validateForDelete()` (helper `graph-validation`) makes the save fail
///   with `NSValidationRelationshipDeniedDeleteError` (1600) while destinations remain;
/// - no action: nothing; the destinations keep pointing at the deleted object.
///
/// Every change is recorded, so undo brings back the object and its relationships.
extension NSManagedObjectContext {
    func propagateDeletions() {
        while let object = pendingDeletions.next() { propagateDeletion(of: object) }
    }

    /// Runs the delete rules of `object`, deleted since the last run.
    private func propagateDeletion(of object: NSManagedObject) {
        guard deletedList.contains(object) else { return }
        object.prepareForDeletion()
        object.fireFaultIfNeeded()
        let relationships = object.entity.relationshipsByName.values.sorted { $0.name < $1.name }
        for relationship in relationships {
            let destinations: [NSManagedObject]
            if relationship.isToMany {
                destinations = object.toManyList(relationship.name).objects
            } else {
                destinations = (object.storedValue(forKey: relationship.name) as? NSManagedObject).map { [$0] } ?? []
            }
            switch relationship.deleteRule {
            case .nullifyDeleteRule:
                for destination in destinations { object.unlink(destination, via: relationship) }
            case .cascadeDeleteRule:
                for destination in destinations where !deletedList.contains(destination) {
                    delete(destination)
                }
            case .denyDeleteRule, .noActionDeleteRule:
                break
            }
        }
    }
}
