import CoreDataTutorial
import Foundation
import Testing
@testable import OpenCoreData

/// `NSArrayController` without AppKit: arrangement, selection, entity mode and bindings.
@Suite("Array controller") struct ArrayControllerTests {
    @Test func arrangesTheContentFilteredAndSorted() {
        let controller = NSArrayController(content: [item("cherry", ["n": 3]), item("apple", ["n": 1]), item("banana", ["n": 2])])
        #expect(names(controller.arrangedObjects) == ["cherry", "apple", "banana"])
        controller.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(names(controller.arrangedObjects) == ["apple", "banana", "cherry"])
        controller.filterPredicate = NSPredicate(format: "n >= 2")
        #expect(names(controller.arrangedObjects) == ["banana", "cherry"])
        #expect((controller.content as? [Any])?.count == 3)
        #expect(names(controller.arrange(controller.content as? [Any] ?? [])) == ["banana", "cherry"])

        // Added objects go at the end of the arrangement until it is arranged again; the
        // filter is cleared so that they show.
        controller.addObject(item("avocado", ["n": 0]))
        #expect(controller.filterPredicate == nil)
        #expect(names(controller.arrangedObjects) == ["apple", "banana", "cherry", "avocado"])
        controller.rearrangeObjects()
        #expect(names(controller.arrangedObjects) == ["apple", "avocado", "banana", "cherry"])

        controller.automaticallyRearrangesObjects = true
        controller.insert(item("aardvark"), atArrangedObjectIndex: 3)
        #expect(names(controller.arrangedObjects) == ["aardvark", "apple", "avocado", "banana", "cherry"])
    }

    @Test func insertsAtAnIndexAndKeepsTheFilterWhenAsked() {
        let controller = NSArrayController(content: [item("a"), item("b"), item("c")])
        controller.clearsFilterPredicateOnInsertion = false
        controller.filterPredicate = NSPredicate(format: "name != 'b'")
        #expect(names(controller.arrangedObjects) == ["a", "c"])
        controller.insert(item("x"), atArrangedObjectIndex: 1)
        #expect(names(controller.arrangedObjects) == ["a", "x", "c"])
        #expect(controller.filterPredicate != nil)
        #expect(names(controller.selectedObjects) == ["x"])
        controller.insert(contentsOf: [item("y"), item("z")], atArrangedObjectIndexes: IndexSet([0, 1]))
        #expect(names(controller.arrangedObjects) == ["y", "z", "a", "x", "c"])
        #expect(controller.selectionIndexes == IndexSet([0, 1]))
        #expect((controller.content as? [Any])?.count == 6)
    }

    @Test func clearingTheFilterForAnInsertionKeepsTheSelectedObject() {
        let controller = NSArrayController(content: [item("a"), item("b"), item("c")])
        controller.selectsInsertedObjects = false
        controller.filterPredicate = NSPredicate(format: "name == 'c'")
        #expect(names(controller.selectedObjects) == ["c"])
        controller.addObject(item("d"))
        #expect(controller.filterPredicate == nil)
        #expect(names(controller.selectedObjects) == ["c"])
        controller.insert(item("x"), atArrangedObjectIndex: controller.selectionIndex)
        #expect(names(controller.arrangedObjects) == ["a", "b", "x", "c", "d"])
    }

    @Test func selectionFollowsTheArrangement() {
        let controller = NSArrayController(content: ["d", "b", "a", "c"].map { item($0) })
        #expect(controller.selectionIndexes == IndexSet([0]), "avoidsEmptySelection selects the first object")
        #expect(controller.setSelectionIndex(1))
        #expect(!controller.setSelectionIndex(1), "the same selection is no change")
        #expect(names(controller.selectedObjects) == ["b"])

        // Sorting keeps the selected object selected (preservesSelection).
        controller.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        #expect(controller.selectionIndex == 1 && names(controller.selectedObjects) == ["b"])
        controller.selectNext(nil)
        #expect(names(controller.selectedObjects) == ["c"])
        controller.selectNext(nil)
        #expect(names(controller.selectedObjects) == ["d"])
        #expect(!controller.canSelectNext)
        controller.selectNext(nil)
        #expect(names(controller.selectedObjects) == ["d"])
        controller.selectPrevious(nil)
        #expect(names(controller.selectedObjects) == ["c"])

        #expect(controller.setSelectedObjects(controller.arrangedObjects.filter { names([$0]) != ["b"] }))
        #expect(controller.selectionIndexes == IndexSet([0, 2, 3]))
        #expect(controller.removeSelectionIndexes(IndexSet([2])))
        #expect(controller.addSelectionIndexes(IndexSet([1])))
        #expect(names(controller.selectedObjects) == ["a", "b", "d"])
        #expect(!controller.setSelectionIndexes(IndexSet([0, 1, 3, 99])), "indexes past the end are dropped")

        // Removing the selection selects the object that took the first removed one's place.
        controller.setSelectionIndex(1)
        controller.remove(nil)
        #expect(names(controller.arrangedObjects) == ["a", "c", "d"])
        #expect(names(controller.selectedObjects) == ["c"])
        controller.setSelectionIndex(2)
        controller.remove(atArrangedObjectIndex: 2)
        #expect(names(controller.selectedObjects) == ["c"], "removing the last selects the new last")

        controller.avoidsEmptySelection = false
        controller.remove(contentsOf: controller.selectedObjects)
        #expect(controller.selectionIndexes.isEmpty)
        #expect(controller.selectionIndex == NSNotFound)
        #expect(!controller.canRemove)
    }

    @Test func theSelectionAnswersKeysWithMarkers() throws {
        let controller = NSArrayController(content: [item("a", ["kind": "x"]), item("b", ["kind": "x"]), item("c", ["kind": "y"])])
        controller.avoidsEmptySelection = false
        controller.setSelectionIndexes(IndexSet())
        #expect(controller.selection.value(forKey: "name") as? NSBindingSelectionMarker === NSNoSelectionMarker)
        controller.setSelectionIndex(0)
        #expect(controller.selection.value(forKey: "name") as? String == "a")
        controller.setSelectionIndexes(IndexSet([0, 1]))
        #expect(controller.selection.value(forKey: "kind") as? String == "x", "a value all selected objects share")
        #expect(controller.selection.value(forKey: "name") as? NSBindingSelectionMarker === NSMultipleValuesMarker)
        #expect(try KeyValueAccess.value(forKeyPath: "selection.kind", of: controller) as? String == "x")
        controller.alwaysUsesMultipleValuesMarker = true
        #expect(controller.selection.value(forKey: "kind") as? NSBindingSelectionMarker === NSMultipleValuesMarker)

        controller.selection.setValue("z", forKey: "kind")
        #expect(controller.arrangedObjects.compactMap { ($0 as? NSDictionary)?["kind"] as? String } == ["z", "z", "y"])
    }

    @Test func aManagedObjectsMissingKeyIsNotApplicable() throws {
        let fixture = try ClassesFixture()
        fixture.addClass("A")
        let controller = fixture.classesController()
        #expect(controller.selection.value(forKey: "nosuchkey") as? NSBindingSelectionMarker === NSNotApplicableMarker)
    }

    @Test func postsItsChanges() async {
        let controller = NSArrayController(content: [item("a"), item("b")])
        let recorder = ControllerChangeRecorder(controller)
        controller.setSelectionIndex(1)
        controller.addObject(item("c"))
        controller.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        #expect(recorder.changes.count == 3)
        #expect(recorder.changes[0] == ["selection", "selectionIndexes"])
        #expect(recorder.changes[1].isSuperset(of: ["content", "arrangedObjects", "selectionIndexes"]))
        #expect(recorder.changes[2].contains("arrangedObjects") && !recorder.changes[2].contains("content"))

        var iterator = controller.changes.makeAsyncIterator()
        #expect(controller.selectionIndex == 0)
        #expect(controller.setSelectionIndex(2))
        #expect(await iterator.next() == ["selection", "selectionIndexes"])
    }

    @Test func newObjectsOfAPlainClass() {
        let controller = NSArrayController()
        controller.add(nil)
        #expect(controller.arrangedObjects.count == 1)
        #expect(controller.arrangedObjects.first is NSMutableDictionary)
        controller.objectClass = Note.self
        controller.insert(nil)
        #expect(controller.arrangedObjects.first is Note, "insert puts the new object at the selection")
        controller.isEditable = false
        #expect(!controller.canAdd && !controller.canInsert && !controller.canRemove)
        controller.add(nil)
        #expect(controller.arrangedObjects.count == 2)
    }

    final class Note: NSObject, ControllerObjectInitializable {
        override required init() {}
    }
}
