import Foundation
import Testing
@testable import OpenCoreData

@Suite("ObjectList: ordered members with holes")
struct ObjectListTests {
    private static func objects(_ count: Int) -> [NSManagedObject] {
        let entity = GraphTestModel.entity("Item")
        return (0..<count).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
    }

    /// Checks everything the list answers against `expected`, the members in order.
    private static func check(_ list: ObjectList, _ expected: [NSManagedObject], _ all: [NSManagedObject],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(list.objects.elementsEqual(expected, by: ===), sourceLocation: sourceLocation)
        #expect(list.count == expected.count && list.isEmpty == expected.isEmpty, sourceLocation: sourceLocation)
        #expect(Array(list).elementsEqual(expected, by: ===), sourceLocation: sourceLocation)
        for object in all {
            let index = expected.firstIndex { $0 === object }
            #expect(list.contains(object) == (index != nil), sourceLocation: sourceLocation)
            #expect(list.index(of: object) == index, sourceLocation: sourceLocation)
        }
        #expect(list.sameMembers(as: ObjectList(expected), ordered: true), sourceLocation: sourceLocation)
        #expect(list.sameMembers(as: ObjectList(expected.reversed()), ordered: false), sourceLocation: sourceLocation)
    }

    /// Random insertions, positional insertions, removals and reorders: after every step the
    /// list answers as an array with the same operations does.
    @Test func agreesWithAnArrayThroughRandomChanges() {
        let all = Self.objects(40)
        var generator = SeededGenerator(state: 0x0B1)
        var list = ObjectList()
        var expected: [NSManagedObject] = []
        for step in 0..<1_500 {
            let object = all.randomElement(using: &generator)!
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                let added = list.insert(object)
                #expect(added == !expected.contains { $0 === object })
                if added { expected.append(object) }
            case 4..<8:
                let removed = list.remove(object)
                #expect(removed == expected.contains { $0 === object })
                expected.removeAll { $0 === object }
            case 8:
                let index = Int.random(in: 0...expected.count, using: &generator)
                list.insert(object, at: index)
                expected.removeAll { $0 === object }
                expected.insert(object, at: min(index, expected.count))
            default:
                let order = all.shuffled(using: &generator).prefix(5)
                list.reorder(like: Array(order))
                let ordered = order.filter { member in expected.contains { $0 === member } }
                expected = ordered + expected.filter { member in !ordered.contains { $0 === member } }
            }
            if step % 50 == 0 || step > 1_450 { Self.check(list, expected, all) }
        }
        list.removeAll()
        Self.check(list, [], all)
    }

    /// Removing members from the front, as deleting a parent's children does: the rest keep
    /// their order at every step, and a removed member inserted again comes last, once.
    @Test func removingFromTheFrontKeepsTheOrder() {
        let all = Self.objects(100)
        var list = ObjectList(all)
        for (index, object) in all.enumerated().prefix(70) {
            let removed = list.remove(object), removedAgain = list.remove(object)
            #expect(removed && !removedAgain)
            Self.check(list, Array(all[(index + 1)...]), all)
        }
        let inserted = list.insert(all[3]), insertedAgain = list.insert(all[3])
        #expect(inserted && !insertedAgain)
        Self.check(list, Array(all[70...]) + [all[3]], all)
        list.insert(all[5], at: 1)
        Self.check(list, [all[70], all[5]] + Array(all[71...]) + [all[3]], all)
    }

    /// A copy of a list is a value: changing one leaves the other as it was.
    @Test func copiesAreIndependent() {
        let all = Self.objects(10)
        var list = ObjectList(all)
        let copy = list
        for object in all.prefix(4) { list.remove(object) }
        list.insert(all[0])
        Self.check(copy, all, all)
        Self.check(list, Array(all[4...]) + [all[0]], all)
    }
}
