import Foundation
import Testing
@testable import OpenCoreData

/// ``EntityLayout``: slots, the key lookup, the per-slot rules, and the cast-free value reads
/// (``ValueComparison/exact(_:as:)``) the fast paths use.
@Suite struct EntityLayoutTests {
    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
        GraphTestModel.attribute(name, type, optional: optional)
    }

    @Test func inheritedSlotsComeFirstAndEveryNameIsFound() {
        let animal = NSEntityDescription()
        animal.name = "Animal"
        animal.properties = [Self.attribute("name", .stringAttributeType)]
        let dog = NSEntityDescription()
        dog.name = "Dog"
        dog.properties = [Self.attribute("breed", .stringAttributeType), Self.attribute("age", .integer16AttributeType)]
        animal.subentities = [dog]

        let layout = EntityLayout(dog)
        #expect(Array(layout.names) == ["name", "breed", "age"])
        #expect(layout.slot(forKey: "name") == 0)
        #expect(layout.slot(forKey: "breed") == 1)
        #expect(layout.slot(forKey: "age") == 2)
        #expect(layout.slot(forKey: "weight") == nil)
        #expect(layout.slot(forKey: "") == nil)
        #expect(layout.slot(forKey: "Name") == nil)
    }

    /// Many names (long ones, non-ASCII ones, names that are prefixes of each other) in one
    /// table: each is found at its own slot, and near misses are not found.
    @Test func lookupOverManyNames() {
        var names = (0..<300).map { "attribute\($0)" }
        names += ["a", "ab", "abc", "é", "e\u{301}x", "名前", "a_long_property_name_well_past_fifteen_bytes", "ZPK"]
        let entity = NSEntityDescription()
        entity.name = "Wide"
        entity.properties = names.map { Self.attribute($0, .integer64AttributeType) }
        let layout = EntityLayout(entity)
        for (slot, name) in names.enumerated() {
            #expect(layout.slot(forKey: name) == slot, "\(name)")
            // A key equal in content but built separately (its own storage) is found too.
            #expect(layout.slot(forKey: String(decoding: Array(name.utf8), as: UTF8.self)) == slot)
        }
        for missing in ["attribute300", "attribute", "abcd", "e", "名", "a_long_property_name_well_past_fifteen_byte"] {
            #expect(layout.slot(forKey: missing) == nil, "\(missing)")
        }
    }

    /// Names kept inline in their `String`s (up to 15 UTF-8 bytes) are found by their words,
    /// longer ones by hashing their bytes; keys built at run time find both, near misses neither.
    @Test func smallAndLongNamesAreFoundByKeysBuiltAnyWay() {
        let names = ["a0", "fifteen_bytes__", "sixteen_bytes___", "größe", "x"]
        #if !os(Android)
        #expect(EntityLayout.smallWords("a0") != nil && EntityLayout.smallWords("fifteen_bytes__") != nil)
        #endif
        #expect(EntityLayout.smallWords("sixteen_bytes___") == nil, "16 bytes are not kept inline")
        let entity = NSEntityDescription()
        entity.name = "Mixed"
        entity.properties = names.map { Self.attribute($0, .integer64AttributeType) }
        let layout = EntityLayout(entity)
        for (slot, name) in names.enumerated() {
            let half = name.index(name.startIndex, offsetBy: name.count / 2)
            let built = "\(name[..<half])\(name[half...])"
            #expect(layout.slot(forKey: name) == slot && layout.slot(forKey: built) == slot, "\(name)")
            #expect(layout.slot(forKey: String(name.dropLast()) + "?") == nil, "\(name)")
        }
        for missing in ["a1", "A0", "fifteen_bytes_!", "größ", "sixteen_bytes__!", "y", ""] {
            #expect(layout.slot(forKey: missing) == nil, "\(missing)")
        }
    }

    /// A short name or key kept out of line (a string with reserved capacity) has no inline
    /// words: it is found through the hashed path, whichever side is the small one.
    @Test func shortStringsKeptOutOfLineAreFoundToo() {
        func outOfLine(_ text: String) -> String {
            var string = String()
            string.reserveCapacity(32)
            string += text
            return string
        }
        #expect(EntityLayout.smallWords(outOfLine("a0")) == nil, "reserved capacity keeps a short string out of line")
        let entity = NSEntityDescription()
        entity.name = "OutOfLine"
        entity.properties = [Self.attribute("a0", .integer64AttributeType), Self.attribute(outOfLine("b1"), .integer64AttributeType)]
        let layout = EntityLayout(entity)
        #expect(layout.slot(forKey: outOfLine("a0")) == 0, "a key out of line, the name inline")
        #expect(layout.slot(forKey: "b1") == 1, "a key inline, the name out of line")
        #expect(layout.slot(forKey: outOfLine("b1")) == 1)
        #expect(layout.slot(forKey: "b2") == nil && layout.slot(forKey: outOfLine("a1")) == nil)
    }

    @Test func rulesAreReadFromTheProperties() {
        let entity = NSEntityDescription()
        entity.name = "Item"
        let count = Self.attribute("count", .integer64AttributeType, optional: false)
        let title = Self.attribute("title", .stringAttributeType)
        title.setValidationPredicates([NSPredicate(format: "length > 2")], withValidationWarnings: ["too short"])
        let when = Self.attribute("when", .dateAttributeType)
        let derived = NSDerivedAttributeDescription()
        derived.name = "derivedCount"
        derived.attributeType = .integer64AttributeType
        derived.derivationExpression = NSExpression(format: "count")
        entity.properties = [count, title, when, derived]

        let rules = EntityLayout(entity).rules
        #expect(rules.map(\.isOptional) == [false, true, true, true])
        #expect(rules.map(\.hasPredicates) == [false, true, false, false])
        #expect(rules.map(\.isValidatedAtSave) == [true, true, true, false])
        #expect(rules[0].hasExactType(Int64(3)))
        #expect(!rules[0].hasExactType(3))            // Int, converted by the setters
        #expect(!rules[0].hasExactType(NSNumber(value: 3)))
        #expect(rules[1].hasExactType("x"))
        #expect(!rules[1].hasExactType(NSString(string: "x")))
        // Dates are always checked (a date must be finite).
        #expect(!rules[2].hasExactType(Date()))
    }

    @Test func exactReadsOnlyTheExactType() {
        #expect(ValueComparison.exact(Int64(-7) as Any, as: Int64.self) == -7)
        #expect(ValueComparison.exact(7 as Any, as: Int64.self) == nil)
        #expect(ValueComparison.exact(Int32(7) as Any, as: Int64.self) == nil)
        #expect(ValueComparison.exact(NSNumber(value: 7) as Any, as: Int64.self) == nil)
        #expect(ValueComparison.exact(Optional<Int64>.some(7) as Any, as: Int64.self) == nil)
        #expect(ValueComparison.exact("short" as Any, as: String.self) == "short")
        let long = String(repeating: "long string on the heap ", count: 4)
        #expect(ValueComparison.exact(long as Any, as: String.self) == long)
        #expect(ValueComparison.exact(Data([1, 2, 3]) as Any, as: Data.self) == Data([1, 2, 3]))
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        #expect(ValueComparison.exact(date as Any, as: Date.self) == date)
        #expect(ValueComparison.exact(true as Any, as: Bool.self) == true)
        #expect(ValueComparison.exact(2.5 as Any, as: Double.self) == 2.5)
        #expect(ValueComparison.exact(Int16(2) as Any, as: Int32.self) == nil)
        // Class instances are stored inline too; a subclass is not the exact type.
        let object = NSObject()
        #expect(ValueComparison.exact(object as Any, as: NSObject.self) === object)
        #expect(ValueComparison.exact(NSNumber(value: 1) as Any, as: NSObject.self) == nil)
        // A value too large for Any's inline buffer is boxed: left to `as?`.
        let wide = (Int64(1), Int64(2), Int64(3), Int64(4))
        #expect(ValueComparison.exact(wide as Any, as: (Int64, Int64, Int64, Int64).self) == nil)
    }

    @Test func holdsReadsTheTypeOfAnOptionalAny() {
        let int64 = ObjectIdentifier(Int64.self)
        #expect(ValueComparison.holds(Int64(-7), exactly: int64))
        #expect(!ValueComparison.holds(7, exactly: int64))
        #expect(!ValueComparison.holds(Int32(7), exactly: int64))
        #expect(!ValueComparison.holds(nil, exactly: int64))
        #expect(!ValueComparison.holds(NSNumber(value: 7), exactly: int64))
        // A value inside a further optional is the optional's type: left to the general check.
        #expect(!ValueComparison.holds(Optional<Int64>.some(7) as Any, exactly: int64))
        let long = String(repeating: "long string on the heap ", count: 4)
        #expect(ValueComparison.holds(long, exactly: ObjectIdentifier(String.self)))
        #expect(!ValueComparison.holds(NSString(string: "x"), exactly: ObjectIdentifier(String.self)))
    }

    @Test func rulesAcceptOptionalValuesAsTheirTypesAllow() {
        let entity = NSEntityDescription()
        entity.name = "Item"
        let count = Self.attribute("count", .integer64AttributeType, optional: false)
        let note = Self.attribute("note", .stringAttributeType)
        let title = Self.attribute("title", .stringAttributeType)
        title.setValidationPredicates([NSPredicate(format: "length > 2")], withValidationWarnings: ["too short"])
        entity.properties = [count, note, title]
        let rules = EntityLayout(entity).rules
        #expect(rules[0].accepts(Int64(3) as Any?))
        #expect(!rules[0].accepts(3 as Any?))
        // An optional converts to `Any?` by its wrapped value; boxed in `Any` first, it stays an
        // optional inside, which the general check unwraps.
        #expect(rules[0].accepts(Optional<Int64>.some(3) as Any?))
        #expect(!rules[0].accepts(Optional<Int64>.some(3) as Any as Any?))
        #expect(!rules[0].accepts(nil))
        #expect(rules[1].accepts(nil))
        #expect(rules[1].accepts("x" as Any?))
        // Predicates are always evaluated: even a value of the exact type is not accepted here.
        #expect(!rules[2].accepts("long enough" as Any?))
        #expect(rules[2].accepts(nil))
    }

    @Test func sameTypeEqualAnswersAsTheGeneralRules() {
        #expect(ValueComparison.sameTypeEqual(Int64(1), Int64(1)) == true)
        #expect(ValueComparison.sameTypeEqual(Int64(1), Int64(2)) == false)
        #expect(ValueComparison.sameTypeEqual("a", "a") == true)
        #expect(ValueComparison.sameTypeEqual(Double.nan, Double.nan) == nil)
        #expect(ValueComparison.sameTypeEqual(Int64(1), Int32(1)) == nil)
        #expect(ValueComparison.sameTypeEqual(Date(timeIntervalSinceReferenceDate: 1), Date(timeIntervalSinceReferenceDate: 1)) == true)
        #expect(ValueComparison.sameTypeEqual(NSNumber(value: 1), NSNumber(value: 1)) == nil)
    }

    /// A row's own empty buffer has every slot empty and is not the shared ``emptyValues``:
    /// writing it leaves the layout's buffer empty.
    @Test func rowsGetEmptyBuffersOfTheirOwn() {
        let entity = NSEntityDescription()
        entity.name = "Row"
        entity.properties = (0..<5).map { Self.attribute("a\($0)", .integer64AttributeType) }
        let layout = EntityLayout(entity)
        func isEmpty(_ values: SlotValues) -> Bool { values.count == 5 && values.allSatisfy { $0.isNone } }
        func address(_ values: SlotValues) -> UnsafePointer<SlotValue>? { values.withUnsafeBufferPointer { $0.baseAddress } }
        var row = layout.makeEmptyValues()
        #expect(isEmpty(row))
        #expect(address(row) != address(layout.emptyValues))
        row[4] = .int64(9)
        #expect(isEmpty(layout.emptyValues))
        #expect(isEmpty(layout.makeEmptyValues()))
        #expect(row[4].inlineType == ObjectIdentifier(Int64.self))
    }

    /// A typed value of an inline case's exact type goes into that case (what typed setters
    /// store); any other type, optionals included, does not.
    @Test func inlineSlotValuesOfTypedValues() {
        func check<T>(_ value: T) {
            let slot = SlotValue(inline: value)
            #expect(slot?.inlineType == ObjectIdentifier(T.self), "\(T.self)")
            #expect(slot.map { ValueComparison.isEqualConstant($0.any(), value) } == true, "\(T.self)")
        }
        check(Int64(-1)); check(Int32(2)); check(Int16(3)); check(4.5); check(Float(5.5)); check(true)
        check(Date(timeIntervalSinceReferenceDate: 3.25)); check("text"); check(String(repeating: "long ", count: 10))
        #expect(SlotValue(inline: 7) == nil)
        #expect(SlotValue(inline: Optional<Int64>.some(1)) == nil)
        #expect(SlotValue(inline: Decimal(2)) == nil)
        #expect(SlotValue(inline: NSNumber(value: 1)) == nil)
    }

    /// A slot keeps each value in the case of its exact type and gives back what was stored:
    /// the attribute types' values inline, anything else (an `Int`, an optional, an object)
    /// as it was.
    @Test func slotValuesKeepTheExactType() {
        let date = Date(timeIntervalSinceReferenceDate: 3.25)
        let inline: [Any] = [Int64(-1), Int32(2), Int16(3), 4.5, Float(5.5), true, date, "text"]
        for value in inline {
            let slot = SlotValue(value)
            #expect(slot.inlineType == ObjectIdentifier(type(of: value)), "\(type(of: value))")
            #expect(type(of: slot.any()!) == type(of: value))
            #expect(ValueComparison.isEqualConstant(slot.any(), value))
        }
        let others: [Any] = [7, NSNumber(value: 7), Data([1]), Decimal(2), Optional<Int64>.some(1) as Any, NSObject()]
        for value in others {
            let slot = SlotValue(value)
            guard case .other(let kept) = slot else {
                Issue.record("\(type(of: value)) was not kept as given")
                continue
            }
            #expect(type(of: kept) == type(of: value))
            #expect(slot.inlineType == nil)
        }
        #expect(SlotValue(nil).isNone && SlotValue(nil).any() == nil)
        #expect(!SlotValue(Int64(0)).isNone)
    }

    /// A typed read takes an inline value out only as its exact type; anything else is left to
    /// the general conversion.
    @Test func slotValuesGiveTheirExactTypeOnly() {
        func exact<T>(_ slot: SlotValue, as type: T.Type) -> T? {
            slot.inlineType == ObjectIdentifier(T.self) ? slot.inlineValue(as: T.self) : nil
        }
        #expect(exact(SlotValue(Int64(9)), as: Int64.self) == 9)
        #expect(exact(SlotValue(Int64(9)), as: Int.self) == nil)
        #expect(exact(SlotValue(Int32(9)), as: Int64.self) == nil)
        #expect(exact(SlotValue("long enough to live on the heap, not inline"), as: String.self) == "long enough to live on the heap, not inline")
        #expect(exact(SlotValue(true), as: Bool.self) == true)
        #expect(exact(SlotValue(Date(timeIntervalSinceReferenceDate: 5)), as: Date.self) == Date(timeIntervalSinceReferenceDate: 5))
        #expect(exact(SlotValue(Int64(9)), as: Int64?.self) == nil)
        #expect(exact(SlotValue(Data([1])), as: Data.self) == nil)
        #expect(exact(SlotValue(nil), as: Int64.self) == nil)
    }

    /// Two slot values of one inline case compare directly; NaN and other cases are left to the
    /// general comparison, as ``ValueComparison/sameTypeEqual(_:_:)`` leaves them.
    @Test func slotValuesCompareWithinACase() {
        #expect(SlotValue(Int64(1)).sameCaseEqual(SlotValue(Int64(1))) == true)
        #expect(SlotValue(Int64(1)).sameCaseEqual(SlotValue(Int64(2))) == false)
        #expect(SlotValue("a").sameCaseEqual(SlotValue("b")) == false)
        #expect(SlotValue(nil).sameCaseEqual(SlotValue(nil)) == true)
        #expect(SlotValue(Int64(1)).sameCaseEqual(SlotValue(Int32(1))) == nil)
        #expect(SlotValue(Double.nan).sameCaseEqual(SlotValue(Double.nan)) == nil)
        #expect(SlotValue(Float.nan).sameCaseEqual(SlotValue(Float(1))) == nil)
        #expect(SlotValue(NSNumber(value: 1)).sameCaseEqual(SlotValue(NSNumber(value: 1))) == nil)
    }

    /// Setting a slot back to its committed value leaves the object unchanged, whatever the
    /// value's case; a value of another type or NaN counts as a change.
    @Test func changesAreJudgedBySlotValue() throws {
        let entity = NSEntityDescription()
        entity.name = "Reading"
        entity.properties = [Self.attribute("count", .integer64AttributeType), Self.attribute("level", .doubleAttributeType),
                             Self.attribute("label", .stringAttributeType), Self.attribute("blob", .binaryDataAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let reading = NSManagedObject(entity: entity, insertInto: context)
        reading.setValue(Int64(4), forKey: "count")
        reading.setValue(1.5, forKey: "level")
        reading.setValue("x", forKey: "label")
        reading.setValue(Data([9]), forKey: "blob")
        try context.save()
        reading.setValue(Int64(4), forKey: "count")
        reading.setValue(1.5, forKey: "level")
        reading.setValue("x", forKey: "label")
        reading.setValue(Data([9]), forKey: "blob")
        #expect(reading.changedValues().isEmpty)
        reading.setValue(Double.nan, forKey: "level")
        reading.setValue(Data([8]), forKey: "blob")
        #expect(Set(reading.changedValues().keys) == ["level", "blob"])
    }

    @Test func changedSlotsAreASupersetPast63() {
        let set = ChangedSlots([0, 5, 62])
        #expect(set.contains(0) && set.contains(5) && set.contains(62))
        #expect(!set.contains(1) && !set.contains(63) && !set.contains(200))
        let far = ChangedSlots([70])
        // Slots past 63 share one bit: the set may say more than was inserted, never less.
        #expect(far.contains(70) && far.contains(64) && far.contains(1000))
        #expect(!far.contains(3))
        #expect(ChangedSlots([Int]()).isEmpty)
    }

    /// An object made while its model was editable keeps working after a property is added and
    /// the model is frozen by a coordinator.
    @Test func objectMadeBeforeAPropertyWasAddedFindsIt() throws {
        let entity = NSEntityDescription()
        entity.name = "Note"
        entity.properties = [Self.attribute("title", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let note = NSManagedObject(entity: entity, insertInto: nil)
        note.setValue("first", forKey: "title")
        entity.properties += [Self.attribute("rank", .integer64AttributeType)]
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        try note.setValueThrowing(Int64(3), forKey: "rank")
        #expect(note.value(forKey: "rank") as? Int64 == 3)
        #expect(note.value(forKey: "title") as? String == "first")
    }

    /// A key equal to a property's name as a Swift string, but in another Unicode normalization,
    /// reads and writes that property, as the property dictionaries find it.
    @Test func keysAreComparedAsSwiftStrings() throws {
        let entity = NSEntityDescription()
        entity.name = "Place"
        entity.properties = [Self.attribute("caf\u{E9}", .stringAttributeType)]   // é, precomposed
        let model = NSManagedObjectModel()
        model.entities = [entity]
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        let place = NSManagedObject(entity: entity, insertInto: nil)
        let decomposed = "cafe\u{301}"                                               // e + combining acute
        try place.setValueThrowing("open", forKey: decomposed)
        #expect(place.value(forKey: "caf\u{E9}") as? String == "open")
        #expect(place.value(forKey: decomposed) as? String == "open")
    }
}

