import Foundation
import Testing
@testable import OpenCoreData

/// Random additions, insertions, removals, sorts, filters and selections on an array
/// controller that rearranges automatically: after each step the arrangement must be exactly
/// the content filtered and stably sorted, the content exactly what the test added and did not
/// remove, and the selection valid, kept across rearrangements and, unless the test emptied
/// it, never empty while objects are arranged.
@Suite struct ArrayControllerRandomizedTests {
    @Test(arguments: [UInt64(1), 2, 3])  // seed 3: without selectsInsertedObjects
    func theArrangementAlwaysMatchesTheContent(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        let controller = NSArrayController(content: [])
        controller.automaticallyRearrangesObjects = true
        controller.clearsFilterPredicateOnInsertion = false
        controller.selectsInsertedObjects = seed != 3
        var content: [NSMutableDictionary] = []
        var counter = 0
        let sorts: [[OpenCoreData.NSSortDescriptor]] = [
            [], [NSSortDescriptor(key: "n", ascending: true)], [NSSortDescriptor(key: "n", ascending: false)],
            [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "n", ascending: false)],
        ]
        let filters: [OpenCoreData.NSPredicate?] = [nil, NSPredicate(format: "n < 5"), NSPredicate(format: "group == 'a'")]

        func newItem() -> NSMutableDictionary {
            counter += 1
            return item("o\(counter)", ["n": Int.random(in: 0..<10, using: &random), "group": ["a", "b"].randomElement(using: &random)!])
        }
        func identities(_ objects: [Any]) -> [ObjectIdentifier] { objects.map { ObjectIdentifier($0 as AnyObject) } }

        for step in 0..<300 {
            let selectedBefore = Set(identities(controller.selectedObjects))
            // Sorting, filtering and rearranging keep the selection; so do additions, unless
            // they select what they add.
            var mayChangeSelection = controller.selectsInsertedObjects
            var explicitSelection = false
            let operation = Int.random(in: 0..<8, using: &random)
            switch operation {
            case 0:
                let object = newItem()
                content.append(object)
                controller.addObject(object)
            case 1:
                let object = newItem()
                content.append(object)
                controller.insert(object, atArrangedObjectIndex: Int.random(in: 0...controller.arrangedObjects.count, using: &random))
            case 2 where !controller.arrangedObjects.isEmpty:
                mayChangeSelection = true
                let index = Int.random(in: 0..<controller.arrangedObjects.count, using: &random)
                let object = controller.arrangedObjects[index] as AnyObject
                content.removeAll { $0 === object }
                controller.remove(atArrangedObjectIndex: index)
            case 3:
                controller.sortDescriptors = sorts.randomElement(using: &random)!
                mayChangeSelection = false
            case 4:
                controller.filterPredicate = filters.randomElement(using: &random)!
                mayChangeSelection = false
            case 5 where !controller.arrangedObjects.isEmpty:
                mayChangeSelection = true
                let count = controller.arrangedObjects.count
                controller.setSelectionIndexes(IndexSet((0..<count).filter { _ in Bool.random(using: &random) }))
                explicitSelection = true
            case 6 where !content.isEmpty:
                // Changed values show at the next rearrangement.
                content.randomElement(using: &random)!["n"] = Int.random(in: 0..<10, using: &random)
                controller.rearrangeObjects()
                mayChangeSelection = false
            default:
                mayChangeSelection = true
                controller.selectNext(nil)
            }

            let arranged = identities(controller.arrangedObjects)
            #expect(identities(controller.content as? [Any] ?? []) == identities(content), "step \(step): content")
            #expect(arranged == identities(controller.arrange(content)), "step \(step): arrangement")
            #expect(controller.selectionIndexes.allSatisfy { $0 < arranged.count }, "step \(step): selection in range")
            // An explicitly empty selection is allowed; any other change selects something.
            if !explicitSelection {
                #expect(arranged.isEmpty == controller.selectionIndexes.isEmpty, "step \(step), operation \(operation): avoidsEmptySelection")
            }
            if !mayChangeSelection {
                let stillArranged = selectedBefore.intersection(arranged)
                #expect(stillArranged.isSubset(of: Set(identities(controller.selectedObjects))), "step \(step): preservesSelection")
            }
        }
    }
}
