import Foundation
import GRDB
import Testing
@testable import OpenCoreData

@Suite("Delete rules, applied when pending changes are processed")
struct DeleteRuleTests {
    /// An owner with one item under each rule's relationship, plus a child under the cascade item.
    private func fixture() -> (NSManagedObjectContext, owner: NSManagedObject, items: [String: NSManagedObject], child: NSManagedObject) {
        let context = GraphTestModel.context()
        let owner = GraphTestModel.insert("Owner", context)
        var items: [String: NSManagedObject] = [:]
        for rule in ["cascade", "nullify", "deny", "noAction"] {
            let item = GraphTestModel.insert("Item", context, ["name": rule])
            owner.mutableSetValue(forKey: "\(rule)Items").add(item)
            items[rule] = item
        }
        let child = GraphTestModel.insert("Item", context, ["name": "child", "parent": items["cascade"]!])
        return (context, owner, items, child)
    }

    @Test func rulesRunOnlyWhenPendingChangesAreProcessed() {
        let (context, owner, items, _) = fixture()
        context.delete(owner)
        #expect(items["nullify"]!.value(forKey: "nullifyOwner") as? NSManagedObject === owner)
        #expect(!items["cascade"]!.isDeleted)
        context.processPendingChanges()
        #expect(items["nullify"]!.value(forKey: "nullifyOwner") == nil)
    }

    @Test func nullifyClearsTheInverse() {
        let (context, owner, items, _) = fixture()
        context.delete(owner)
        context.processPendingChanges()
        #expect(items["nullify"]!.value(forKey: "nullifyOwner") == nil)
        #expect(!items["nullify"]!.isDeleted)
    }

    @Test func cascadeDeletesRecursively() throws {
        let (context, owner, items, child) = fixture()
        try context.markAsSavedForTests([owner, child] + Array(items.values))
        context.delete(owner)
        context.processPendingChanges()
        #expect(items["cascade"]!.isDeleted)
        #expect(child.isDeleted)
        #expect(context.deletedObjects == [owner, items["cascade"]!, child])
    }

    @Test func denyAndNoActionLeaveTheDestinations() {
        let (context, owner, items, _) = fixture()
        context.delete(owner)
        context.processPendingChanges()
        #expect(items["deny"]!.value(forKey: "denyOwner") as? NSManagedObject === owner)
        #expect(items["noAction"]!.value(forKey: "noActionOwner") as? NSManagedObject === owner)
        #expect(!items["deny"]!.isDeleted && !items["noAction"]!.isDeleted)
    }

    @Test func prepareForDeletionRunsBeforeTheRules() {
        let model = GraphTestModel.make()
        model.register(RecordingRun.self, forEntityName: "Run")
        let context = GraphTestModel.context(model: model)
        let run = GraphTestModel.insert("Run", context) as! RecordingRun
        run.committedSnapshot = run.persistentSnapshot()
        context.delete(run)
        #expect(!run.events.contains("prepareForDeletion"))
        context.processPendingChanges()
        #expect(run.events.contains("prepareForDeletion"))
        #expect(run.isDeleted)
    }

    /// A `prepareForDeletion()` that makes the context process its pending changes again: the
    /// nested run takes the deletions still waiting (every owner's cascade runs once), as the
    /// outer run would have.
    @Test func prepareForDeletionThatProcessesPendingChangesLeavesNoRuleUnrun() {
        let model = GraphTestModel.make()
        model.register(ReentrantOwner.self, forEntityName: "Owner")
        let context = GraphTestModel.context(model: model)
        let owners = (0..<3).map { _ in GraphTestModel.insert("Owner", context) }
        let items = owners.map { owner in
            let item = GraphTestModel.insert("Item", context)
            owner.mutableSetValue(forKey: "cascadeItems").add(item)
            return item
        }
        context.processPendingChanges()
        for owner in owners { context.delete(owner) }
        context.processPendingChanges()
        // Never saved: deleted, they are dropped.
        let preparations = owners.map { ($0 as? ReentrantOwner)?.preparations ?? 0 }
        #expect(context.insertedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(items.allSatisfy { !$0.isInserted } && preparations == [1, 1, 1])
        #expect(context.registeredObjects.isEmpty)
    }

    /// Deleting objects of two entities related many-to-many in one save removes their links
    /// (join rows, in a SQL store): a new context reads only what is left, on every store.
    @Test(arguments: StoreTypesUnderTest.all)
    func deletingBothSidesOfAManyToManyInOneSaveLeavesNoLinks(storeType: String) throws {
        let s = try CatalogScenario(storeType: storeType)
        let tags = ["t1", "t2"].map { s.insert("Tag", ["name": $0]) }
        let posts = ["p1", "p2"].map { s.insert("Post", ["title": $0]) }
        s.context.performAndWait {
            for post in posts { post.setValue(Set(tags), forKey: "tags") }
        }
        try s.save()
        s.context.performAndWait {
            s.context.delete(tags[0])
            s.context.delete(posts[0])
        }
        try s.save()
        let fresh = CatalogScenario.newContext(on: s.coordinator)
        try fresh.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
            let left = try fresh.fetch(request)
            let titles = left.map { $0.value(forKey: "title") as? String }
            let tagNames = left.map { (($0.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).map { $0.value(forKey: "name") as? String } }
            #expect(titles == ["p2"])
            #expect(tagNames == [["t2"]])
            let tagRequest = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            let tagsLeft = try fresh.fetch(tagRequest)
            let postCounts = tagsLeft.map { (($0.value(forKey: "posts") as? Set<NSManagedObject>) ?? []).count }
            #expect(postCounts == [1])
        }
        // A SQL store reads links through the destinations' rows, which hides a join row left
        // behind: the SQLite store's join table is counted directly.
        if let sqlite = s.store as? SQLiteStore, let url = sqlite.url,
           case .joinTable(let table, _, _, _)? = sqlite.schema.entity(named: "Post")?.toMany["tags"] {
            let rows = try DatabaseQueue(path: url.path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") }
            #expect(rows == 1)
        }
    }

    @Test func deletingANewObjectDiscardsIt() {
        let context = GraphTestModel.context()
        let klass = GraphTestModel.insert("ClassEntity", context)
        let student = GraphTestModel.insert("StudentEntity", context, ["inClass": klass])
        context.delete(student)
        #expect(student.isDeleted && !student.isInserted)
        context.processPendingChanges()
        #expect(!student.isDeleted && !student.isInserted)
        #expect(context.registeredObject(for: student.objectID) == nil)
        #expect(context.deletedObjects.isEmpty && context.insertedObjects == [klass])
        #expect((klass.value(forKey: "students") as? Set<NSManagedObject>)?.isEmpty == true)
    }
}

extension NSManagedObjectContext {
    /// Marks objects as saved without a store: each gets a committed snapshot, so that deleting
    /// it keeps it in `deletedObjects` (as for a saved object).
    func markAsSavedForTests(_ objects: [NSManagedObject]) throws {
        for object in objects {
            object.committedSnapshot = object.persistentSnapshot()
            insertedList.remove(object)
        }
        processPendingChanges()
        undoManager?.removeAllActions()
    }
}

/// An owner whose `prepareForDeletion()` makes its context process pending changes.
final class ReentrantOwner: NSManagedObject {
    private(set) var preparations = 0
    override func prepareForDeletion() {
        preparations += 1
        managedObjectContext?.processPendingChanges()
    }
}
