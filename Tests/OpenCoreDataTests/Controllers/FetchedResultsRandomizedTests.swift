import Foundation
import Testing
@testable import OpenCoreData

/// Random batches of inserts, deletes and updates (sort key, section key, predicate field):
/// after each batch, applying the reported section and object changes to the previous
/// arrangement must give exactly the controller's new arrangement, which must equal a fresh
/// fetch.
@Suite struct FetchedResultsRandomizedTests {
    /// The test's own model of the arrangement: section names and their objects.
    struct Model: Equatable {
        var names: [String] = []
        var rows: [[ObjectIdentifier]] = []

        init<T>(_ controller: NSFetchedResultsController<T>) {
            for section in controller.sections ?? [] {
                names.append(section.name)
                rows.append((section.objects ?? []).map { ObjectIdentifier($0 as AnyObject) })
            }
        }

        /// Applies the delegate's changes as a table view does: removals at old paths (from
        /// the end), deleted sections, inserted sections, insertions at new paths (from the
        /// start); updates must point at their object in both arrangements.
        mutating func apply(_ delegate: RecordingFetchDelegate) {
            let before = self
            let removals = delegate.objectChanges.filter { $0.type == .delete || $0.type == .move }
                .compactMap { change in change.old.map { (change.object, $0) } }
                .sorted { ($0.1.section, $0.1.row) > ($1.1.section, $1.1.row) }
            for (object, path) in removals {
                #expect(rows[path.section][path.row] == ObjectIdentifier(object), "removal at \(path) is not its object")
                rows[path.section].remove(at: path.row)
            }
            for change in delegate.sectionChanges.filter({ $0.type == .delete }).sorted(by: { $0.index > $1.index }) {
                #expect(rows[change.index].isEmpty, "deleted section \(change.name) still has objects")
                #expect(names[change.index] == change.name)
                rows.remove(at: change.index)
                names.remove(at: change.index)
            }
            for change in delegate.sectionChanges.filter({ $0.type == .insert }).sorted(by: { $0.index < $1.index }) {
                rows.insert([], at: change.index)
                names.insert(change.name, at: change.index)
            }
            let insertions = delegate.objectChanges.filter { $0.type == .insert || $0.type == .move }
                .compactMap { change in change.new.map { (change.object, $0) } }
                .sorted { ($0.1.section, $0.1.row) < ($1.1.section, $1.1.row) }
            for (object, path) in insertions {
                rows[path.section].insert(ObjectIdentifier(object), at: path.row)
            }
            for change in delegate.objectChanges where change.type == .update {
                guard let old = change.old, let new = change.new else {
                    Issue.record("update without both index paths")
                    continue
                }
                #expect(before.rows[old.section][old.row] == ObjectIdentifier(change.object))
                #expect(rows[new.section][new.row] == ObjectIdentifier(change.object))
            }
        }
    }

    @Test(arguments: [NSInMemoryStoreType, NSSQLiteStoreType])
    func randomBatchesReplayToTheNewArrangement(storeType: String) throws {
        var random = SeededGenerator(state: 20_261_124)
        let fixture = try FetchedResultsFixture(storeType: storeType)
        let context = fixture.context
        let groups = ["A", "B", "C", "D", "E", "F"]
        var counter = 0
        func insertRandom() {
            counter += 1
            fixture.insert("n\(counter)", group: groups.randomElement(using: &random), rank: Int.random(in: 0..<20, using: &random),
                           visible: Int.random(in: 0..<4, using: &random) > 0)
        }
        for _ in 0..<30 { insertRandom() }
        try context.save()

        let sort = [("group", true), ("rank", true), ("name", true)]
        let controller = fixture.controller("visible == YES", sort: sort)
        let delegate = RecordingFetchDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        let check = fixture.request("visible == YES", sort: sort)
        var reported = 0

        for round in 0..<200 {
            var model = Model(controller)
            delegate.reset()
            let all = try context.fetch(fixture.request())
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let target = all.randomElement(using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0: insertRandom()
                case 1: if let target, !target.isDeleted { context.delete(target) }
                case 2: target?.setValue(groups.randomElement(using: &random), forKey: "group")
                case 3: target?.setValue(Int64.random(in: 0..<20, using: &random), forKey: "rank")
                case 4: target?.setValue(Bool.random(using: &random), forKey: "visible")
                default: target?.setValue(Int64.random(in: 0..<20, using: &random), forKey: "rank")
                         target?.setValue(groups.randomElement(using: &random), forKey: "group")
                }
            }
            if round % 3 == 0 { try context.save() } else { context.processPendingChanges() }

            model.apply(delegate)
            let expected = Model(controller)
            #expect(model == expected, "round \(round): replayed changes differ from the new arrangement")
            let fetched = try context.fetch(check).map(ObjectIdentifier.init)
            #expect(expected.rows.flatMap { $0 } == fetched, "round \(round): the arrangement differs from a fresh fetch")
            #expect(controller.fetchedObjects?.map(ObjectIdentifier.init) == fetched)
            #expect(expected.names == expected.names.sorted() && Set(expected.names).count == expected.names.count)
            if !delegate.events.isEmpty {
                reported += 1
                #expect(delegate.events.first == "will" && delegate.events.last == "did")
            }
            if model != expected || expected.rows.flatMap({ $0 }) != fetched {
                let have = Set(expected.rows.flatMap { $0 })
                for object in try context.fetch(check) where !have.contains(ObjectIdentifier(object)) {
                    Issue.record("round \(round) missing \(object.value(forKey: "name") ?? "-") \(object.value(forKey: "group") ?? "-") inserted=\(object.isInserted) updated=\(object.isUpdated) events=\(delegate.events)")
                }
                break
            }
        }
        #expect(reported > 150)
    }
}
