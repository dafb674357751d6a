import Foundation
import Testing
@testable import OpenCoreData

/// Two contexts that read the same employee, change it differently and save: one test body
/// per merge policy, run against every store type (the contexts share one coordinator; the
/// SQLite tests below also use two coordinators on one file).
///
/// The scenario: context `other` changes Ann's salary (100 → 150), her hire date and her
/// department (Sales → Tech) and saves; context `mine` then changes her name (Ann → Anna) and
/// salary (→ 120) and saves. Salary is changed on both sides; name only in `mine`; hired and
/// department only in the store.
final class MergeScenario {
    let fixture: CompanyFixture
    let mine: NSManagedObjectContext
    let other: NSManagedObjectContext
    let annID: NSManagedObjectID
    let salesID: NSManagedObjectID
    let techID: NSManagedObjectID
    let ann: NSManagedObject
    static let hired = Date(timeIntervalSinceReferenceDate: 700_000_000)

    init(storeType: String, policy: Any? = nil) throws {
        fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore()
        try fixture.insertStandardData()
        annID = try fixture.snapshots(fixture.request("Employee", "name == 'Ann'"))[0].objectID
        salesID = try fixture.snapshots(fixture.request("Department", "name == 'Sales'"))[0].objectID
        techID = try fixture.snapshots(fixture.request("Department", "name == 'Tech'"))[0].objectID
        mine = Self.context(fixture.coordinator)
        other = Self.context(fixture.coordinator)
        if let policy { mine.mergePolicy = policy }
        ann = try mine.existingObject(with: annID)
    }

    static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// `other` changes and saves Ann.
    func otherSaves() throws {
        let theirs = try other.existingObject(with: annID)
        theirs.setValue(Int64(150), forKey: "salary")
        theirs.setValue(Self.hired, forKey: "hired")
        theirs.setValue(try other.existingObject(with: techID), forKey: "department")
        try other.save()
    }

    /// `mine` changes Ann (not saved).
    func mineChanges() {
        ann.setValue("Anna", forKey: "name")
        ann.setValue(Int64(120), forKey: "salary")
    }

    /// Ann as the store has her now.
    func stored() throws -> (name: String?, salary: Int64?, hired: Date?, department: NSManagedObjectID?) {
        guard let snapshot = try fixture.coordinator.snapshots(for: [annID], fresh: true)[annID] else { return (nil, nil, nil, nil) }
        return (snapshot.values["name"] as? String, snapshot.values["salary"] as? Int64,
                snapshot.values["hired"] as? Date, snapshot.values["department"] as? NSManagedObjectID)
    }
}

@Suite struct MergePolicyTests {
    @Test func predefinedPoliciesAndTypes() {
        #expect(NSMergePolicyType.errorMergePolicyType.rawValue == 0)
        #expect(NSMergePolicyType.rollbackMergePolicyType.rawValue == 4)
        #expect(NSMergePolicy.error === NSErrorMergePolicy)
        #expect(NSMergePolicy.mergeByPropertyStoreTrump.mergeType == .mergeByPropertyStoreTrumpMergePolicyType)
        #expect(NSMergePolicy.mergeByPropertyObjectTrump.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
        #expect(NSMergePolicy.overwrite.mergeType == .overwriteMergePolicyType)
        #expect(NSMergePolicy.rollback === NSRollbackMergePolicy)
        #expect(NSMergePolicy(merge: .overwriteMergePolicyType).mergeType == .overwriteMergePolicyType)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        #expect(context.mergePolicy as? NSMergePolicy === NSErrorMergePolicy, "the default is the error policy")
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func errorPolicyFailsTheSaveWithTheConflictList(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        try scenario.otherSaves()
        scenario.mineChanges()
        let error = try #require(throws: NSError.self) { try scenario.mine.save() }
        #expect(error.code == NSManagedObjectMergeError)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.count == 1)
        let conflict = try #require(conflicts.first)
        #expect(conflict.sourceObject === scenario.ann)
        #expect(conflict.oldVersionNumber == 1 && conflict.newVersionNumber == 2)
        #expect(conflict.objectSnapshot?["name"] as? String == "Anna")
        #expect(conflict.objectSnapshot?["salary"] as? Int64 == 120)
        #expect(conflict.cachedSnapshot?["name"] as? String == "Ann")
        #expect(conflict.cachedSnapshot?["salary"] as? Int64 == 100)
        #expect(conflict.persistedSnapshot?["salary"] as? Int64 == 150)
        #expect(conflict.persistedSnapshot?["department"] as? NSManagedObjectID == scenario.techID)
        // Nothing was written, and the context keeps its changes.
        let stored = try scenario.stored()
        #expect(stored.name == "Ann" && stored.salary == 150)
        #expect(scenario.mine.hasChanges && scenario.ann.value(forKey: "name") as? String == "Anna")
    }

    /// A save to one store goes to it without a separate version check first: the store's own
    /// save finds the conflict, and what it wrote before it (an insert, an update that did not
    /// conflict) is undone with it.
    @Test(arguments: StoreTypesUnderTest.all)
    func aConflictUndoesTheRestOfTheSave(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType)
        try scenario.otherSaves()
        scenario.mineChanges()
        let ops = NSEntityDescription.insertNewObject(forEntityName: "Department", into: scenario.mine)
        ops.setValue("Ops", forKey: "name")
        ops.setValue(10.0, forKey: "budget")
        // A department the other context's save did not touch.
        let emptyID = try scenario.fixture.snapshots(scenario.fixture.request("Department", "name == 'Empty'"))[0].objectID
        let empty = try scenario.mine.existingObject(with: emptyID)
        empty.setValue(2000.0, forKey: "budget")
        let error = try #require(throws: NSError.self) { try scenario.mine.save() }
        #expect(error.code == NSManagedObjectMergeError)
        let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        #expect(conflicts.map(\.sourceObjectID) == [scenario.annID])
        #expect(try scenario.fixture.snapshots(scenario.fixture.request("Department", "name == 'Ops'")).isEmpty)
        let storedEmpty = try #require(try scenario.fixture.coordinator.snapshots(for: [emptyID], fresh: true)[emptyID])
        #expect(storedEmpty.values["budget"] as? Double == 0)
        #expect(ops.objectID.isTemporaryID && scenario.mine.insertedObjects.contains(ops))
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func storeTrumpTakesTheStoresValueForPropertiesChangedOnBothSides(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType, policy: NSMergePolicy.mergeByPropertyStoreTrump)
        try scenario.otherSaves()
        scenario.mineChanges()
        try scenario.mine.save()
        let stored = try scenario.stored()
        #expect(stored.name == "Anna", "changed only in the context")
        #expect(stored.salary == 150, "changed on both sides: the store wins")
        #expect(stored.hired == MergeScenario.hired && stored.department == scenario.techID)
        #expect(scenario.ann.value(forKey: "salary") as? Int64 == 150)
        #expect(!scenario.mine.hasChanges)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func objectTrumpKeepsTheContextsChangesAndTakesTheStoresOthers(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType, policy: NSMergeByPropertyObjectTrumpMergePolicy)
        try scenario.otherSaves()
        scenario.mineChanges()
        try scenario.mine.save()
        let stored = try scenario.stored()
        #expect(stored.name == "Anna" && stored.salary == 120)
        #expect(stored.hired == MergeScenario.hired, "not changed in the context: the store's value stays")
        #expect(stored.department == scenario.techID, "to-one relationships merge per property too")
        #expect((scenario.ann.value(forKey: "department") as? NSManagedObject)?.objectID == scenario.techID)
        // The context now holds the store's version: a further change saves without conflict.
        scenario.ann.setValue(Int64(130), forKey: "salary")
        try scenario.mine.save()
        #expect(try scenario.stored().salary == 130)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func overwriteWritesTheContextsWholeState(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType, policy: NSOverwriteMergePolicy)
        try scenario.otherSaves()
        scenario.mineChanges()
        try scenario.mine.save()
        let stored = try scenario.stored()
        #expect(stored.name == "Anna" && stored.salary == 120)
        #expect(stored.hired == nil && stored.department == scenario.salesID, "the store's other changes are overwritten")
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func rollbackDiscardsTheContextsChanges(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType, policy: NSMergePolicy.rollback)
        try scenario.otherSaves()
        scenario.mineChanges()
        try scenario.mine.save()
        let stored = try scenario.stored()
        #expect(stored.name == "Ann" && stored.salary == 150 && stored.hired == MergeScenario.hired)
        #expect(scenario.ann.value(forKey: "name") as? String == "Ann")
        #expect(scenario.ann.value(forKey: "salary") as? Int64 == 150)
        #expect(!scenario.mine.hasChanges)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func toManyRelationshipsMergePerProperty(storeType: String) throws {
        let scenario = try MergeScenario(storeType: storeType, policy: NSMergeByPropertyObjectTrumpMergePolicy)
        let sales = try scenario.mine.existingObject(with: scenario.salesID)
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 3)
        try scenario.otherSaves() // Ann leaves Sales for Tech: Sales' employees change in the store.
        sales.setValue("Sales & Marketing", forKey: "name")
        try scenario.mine.save()
        let reader = MergeScenario.context(scenario.fixture.coordinator)
        let stored = try reader.existingObject(with: scenario.salesID)
        #expect(stored.value(forKey: "name") as? String == "Sales & Marketing")
        #expect((stored.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 2, "the store's to-many value is kept")
        #expect((sales.value(forKey: "employees") as? Set<NSManagedObject>)?.count == 2)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func anObjectDeletedInTheStore(storeType: String) throws {
        for policy in [NSErrorMergePolicy, NSRollbackMergePolicy, NSMergeByPropertyObjectTrumpMergePolicy] {
            let scenario = try MergeScenario(storeType: storeType, policy: policy)
            scenario.other.delete(try scenario.other.existingObject(with: scenario.annID))
            try scenario.other.save()
            scenario.mineChanges()
            switch policy.mergeType {
            case .errorMergePolicyType:
                let error = try #require(throws: NSError.self) { try scenario.mine.save() }
                let conflict = try #require((error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.first)
                #expect(conflict.newVersionNumber == 0 && conflict.persistedSnapshot == nil)
            case .rollbackMergePolicyType:
                try scenario.mine.save()
                #expect(scenario.ann.managedObjectContext == nil, "the store's deletion wins")
                #expect(try scenario.fixture.coordinator.snapshots(for: [scenario.annID], fresh: true).isEmpty)
            default:
                try scenario.mine.save()
                #expect(try scenario.stored().name == "Anna", "object trump saves the object again")
            }
        }
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func aConflictInOneStoreWritesNothingToAnyStore(storeType: String) throws {
        let fixture = CompanyFixture(storeType: storeType)
        try fixture.addStore(configuration: "Staff")
        try fixture.addStore(configuration: "Projects")
        try fixture.insertStandardData()
        let annID = try fixture.snapshots(fixture.request("Employee", "name == 'Ann'"))[0].objectID
        let mine = MergeScenario.context(fixture.coordinator), other = MergeScenario.context(fixture.coordinator)
        let ann = try mine.existingObject(with: annID)
        try other.existingObject(with: annID).setValue(Int64(150), forKey: "salary")
        try other.save()
        ann.setValue(Int64(120), forKey: "salary")
        NSEntityDescription.insertNewObject(forEntityName: "Project", into: mine).setValue("Apollo", forKey: "title")
        let error = try #require(throws: NSError.self) { try mine.save() }
        #expect(error.code == NSManagedObjectMergeError)
        #expect(try fixture.count(fixture.request("Project")) == 0, "the other store's insert is not written")
        #expect(mine.insertedObjects.first?.objectID.isTemporaryID == true, "the new object keeps its temporary ID")
        mine.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try mine.save()
        #expect(try fixture.count(fixture.request("Project")) == 1)
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func anObjectDeletedInTheContextAndChangedInTheStore(storeType: String) throws {
        for policy in [NSMergePolicy.rollback, NSMergePolicy.mergeByPropertyStoreTrump] {
            let scenario = try MergeScenario(storeType: storeType, policy: policy)
            try scenario.otherSaves()
            scenario.mine.delete(scenario.ann)
            try scenario.mine.save()
            let stored = try scenario.fixture.coordinator.snapshots(for: [scenario.annID], fresh: true)[scenario.annID]
            if policy.mergeType == .rollbackMergePolicyType {
                #expect(stored?.values["salary"] as? Int64 == 150, "rollback discards the deletion")
                #expect(scenario.ann.managedObjectContext === scenario.mine && !scenario.ann.isDeleted)
            } else {
                #expect(stored == nil, "the deletion goes ahead")
            }
        }
    }

    @Test(arguments: StoreTypesUnderTest.all)
    func aCustomPolicysResolveIsCalled(storeType: String) throws {
        let policy = RecordingMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        let scenario = try MergeScenario(storeType: storeType, policy: policy)
        try scenario.otherSaves()
        scenario.mineChanges()
        try scenario.mine.save()
        let seen = policy.seen
        #expect(seen.count == 1 && seen.first?.sourceObject === scenario.ann)
        #expect(seen.first?.cachedSnapshot?["salary"] as? Int64 == 100)
        #expect(try scenario.stored().salary == 120, "super's object-trump resolution ran")

        let refusing = RefusingMergePolicy(merge: .overwriteMergePolicyType)
        let again = try MergeScenario(storeType: storeType, policy: refusing)
        try again.otherSaves()
        again.mineChanges()
        let error = try #require(throws: NSError.self) { try again.mine.save() }
        #expect(error.code == RefusingMergePolicy.code)
        #expect(try again.stored().name == "Ann", "a policy that throws fails the save")
    }
}

/// Records the conflicts it sees, then resolves them as its type says.
final class RecordingMergePolicy: NSMergePolicy, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [NSMergeConflict] = []
    var seen: [NSMergeConflict] { lock.withLock { recorded } }

    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        lock.withLock { recorded += list }
        try super.resolve(optimisticLockingConflicts: list)
    }
}

/// Refuses every conflict with its own error.
final class RefusingMergePolicy: NSMergePolicy, @unchecked Sendable {
    static let code = 4242
    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        throw NSError(domain: NSCocoaErrorDomain, code: Self.code)
    }
}
