import Foundation
import Testing
@testable import OpenCoreData

/// ``SlotValues``: the copy-on-write buffer of an object's or a snapshot's slots.
@Suite struct SlotValuesTests {
    /// A reference a slot can hold, to see when the buffers holding it let it go.
    final class Held {}

    @Test func copiesShareOneBufferUntilOneWrites() {
        var original = SlotValues(repeating: .none, count: 3)
        original[1] = .int64(7)
        var copy = original
        #expect(copy.sharesBuffer(with: original))

        copy[2] = .string("written")
        #expect(!copy.sharesBuffer(with: original))
        #expect(original[1].anyInPlace() as? Int64 == 7)
        #expect(original[2].isNone)
        #expect(copy[1].anyInPlace() as? Int64 == 7)
        #expect(copy[2].anyInPlace() as? String == "written")

        // A buffer of its own is written in place.
        let before = copy.withUnsafeBufferPointer { $0.baseAddress }
        copy[0] = .bool(true)
        #expect(copy.withUnsafeBufferPointer { $0.baseAddress } == before)
    }

    @Test func mutableBufferAccessCopiesASharedBufferFirst() {
        let original = SlotValues([.int64(1), .int64(2)])
        var copy = original
        copy.withUnsafeMutableBufferPointer { slots in slots[0] = .int64(10) }
        #expect(original[0].anyInPlace() as? Int64 == 1)
        #expect(copy[0].anyInPlace() as? Int64 == 10)
        #expect(copy[1].anyInPlace() as? Int64 == 2)
        #expect(!copy.sharesBuffer(with: original))
    }

    @Test func buildsInPlaceAndReadsAsACollection() {
        let values = SlotValues(count: 4) { slots in
            for slot in 0..<4 { (slots + slot).initialize(to: slot.isMultiple(of: 2) ? .int64(Int64(slot)) : .none) }
        }
        #expect(values.count == 4)
        #expect(values.indices == 0..<4)
        #expect(!values.isEmpty)
        #expect(values.map { $0.anyInPlace() as? Int64 } == [0, nil, 2, nil])
        let none = SlotValues(repeating: .none, count: 0)
        #expect(none.isEmpty && none.withUnsafeBufferPointer(\.count) == 0)
        // A copy of its own: equal values, another buffer.
        let copy = values.copy()
        #expect(!copy.sharesBuffer(with: values))
        #expect(copy.map { $0.anyInPlace() as? Int64 } == [0, nil, 2, nil])
    }

    /// Freeing a buffer releases the references its slots hold; a copy made before a write
    /// holds its own.
    @Test func freedBuffersReleaseTheirReferences() {
        weak var held: Held?
        var copy: SlotValues?
        do {
            let object = Held()
            held = object
            var values = SlotValues(repeating: .none, count: 2)
            values[0] = .other(object)
            copy = values
            copy?[1] = .int64(1)   // its own buffer now, holding the reference too
        }
        #expect(held != nil)
        copy = nil
        #expect(held == nil)
    }

    /// Freeing a buffer destroys every slot, scalar and reference cases mixed, up to the last.
    @Test func freeingABufferDestroysEverySlot() {
        weak var middle: Held?
        weak var last: Held?
        do {
            let first = Held(), second = Held()
            middle = first
            last = second
            var values = SlotValues(repeating: .none, count: 6)
            values[0] = .int64(1)
            values[1] = .string(String(repeating: "long enough to live on the heap ", count: 4))
            values[2] = .other(first)
            values[3] = .double(2)
            values[5] = .other(second)
            #expect(middle != nil && last != nil)
        }
        #expect(middle == nil)
        #expect(last == nil)
    }
}
