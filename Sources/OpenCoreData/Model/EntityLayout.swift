/// Where each attribute and relationship of an entity lives in an object's values and in its
/// snapshots: one slot per property, inherited properties first, computed once per entity.
///
/// Objects and snapshots keep their values in a `ContiguousArray<SlotValue>` indexed by slot
/// (``SlotValues``), so reading a property by key costs one lookup of the key here and an index,
/// and a snapshot's buffer becomes an object's values without a copy (copy-on-write shares it
/// until one of them writes). Fetched properties have no slot (their results are cached apart).
///
/// Immutable once made. A frozen entity (its model is used by a coordinator) makes its layout
/// once; an editable entity makes a new one when asked, and objects made while the model was
/// still editable move their values to the new layout by name (``ManagedObjectState``).
// @unchecked Sendable: every stored property is a `let` of immutable values; the property
// descriptions belong to a frozen model when layouts are shared between threads.
final class EntityLayout: @unchecked Sendable {
    /// What a slot holds.
    enum Kind: UInt8 {
        /// An attribute's value.
        case attribute
        /// A to-one relationship: its destination's ID in a snapshot; in an object, the
        /// destination object, or its ID when the object keeps its snapshot's values
        /// (``keptDestinationSlot``).
        case toOne
        /// A to-many relationship: an ``ObjectList`` in an object (nil: a relationship fault or
        /// empty); always nil in a snapshot, whose destinations are in ``ObjectSnapshot/toMany``.
        case toMany
    }

    /// The property of each slot.
    let properties: ContiguousArray<NSPropertyDescription>
    /// The name of each slot's property.
    let names: ContiguousArray<String>
    /// What save-time validation needs of each slot's property, read once (see ``SlotRule``).
    let rules: ContiguousArray<SlotRule>
    /// The kind of each slot.
    let kinds: ContiguousArray<Kind>
    /// Whether each slot's property is transient (never stored, never in a snapshot).
    let isTransient: ContiguousArray<Bool>
    /// The slots of relationships (to-one and to-many), in order.
    let relationshipSlots: [Int]
    /// The slots of transient properties, in order.
    let transientSlots: [Int]
    /// The slots of persistent attributes, in order.
    let persistentAttributeSlots: [Int]
    /// Whether every slot is a persistent attribute (no relationship, nothing transient): a
    /// snapshot's values are then the object's as they are.
    var holdsOnlyAttributes: Bool { transientSlots.isEmpty && relationshipSlots.isEmpty }
    /// The slot of the one relationship, a to-one, of an entity with nothing transient: an
    /// object may keep a snapshot's values as they are, that destination as its ID (see
    /// `NSManagedObject.load(_:in:defaultingTransients:destinations:)`). Nil for any other entity.
    let keptDestinationSlot: Int?
    /// Every slot empty: new objects, faults and snapshots filled by name start from this buffer
    /// (shared until written); rows decoded or built slot by slot start from
    /// ``makeEmptyValues()``.
    let emptyValues: SlotValues

    /// Every slot empty, in a buffer of its own: for a row about to be written slot by slot.
    ///
    /// The first write to a copy of ``emptyValues`` copies the shared buffer first; this one is
    /// the row's from the start.
    @inline(__always)
    func makeEmptyValues() -> SlotValues {
        SlotValues(repeating: .none, count: count)
    }

    /// Each attribute's default value (converted as setters store values), nil elsewhere: the
    /// values a new object starts with (``makeDefaultValues()``).
    let defaultValues: SlotValues

    /// Whether some attribute (persistent or transient) has a default value.
    let hasDefaultValues: Bool

    /// ``defaultValues`` in a buffer of their own: a new object's values, about to be written.
    ///
    /// Sharing ``defaultValues`` instead made the object's first write copy the shared buffer
    /// (a uniqueness check and the copy on top of the write; when slot buffers were
    /// `ContiguousArray`s, the copy went through the enum's value witness, about 850
    /// instructions for ten slots against about 350 for this buffer).
    func makeDefaultValues() -> SlotValues {
        hasDefaultValues ? defaultValues.copy() : makeEmptyValues()
    }

    /// The persistent attributes with a default value: what a new object has changed.
    let defaultedSlots: ChangedSlots
    /// Open addressing from a key's ``keyHash(_:)`` to its slot + 1 (0: empty), at most half full.
    private let slotTable: ContiguousArray<Int32>
    /// Open addressing from the two words of a name kept inline in its `String` (a small
    /// string: up to 15 UTF-8 bytes) to its slot + 1 (0: empty), at most half full; empty when
    /// no name is small. See ``slot(forKey:)``.
    private let smallNames: ContiguousArray<(words: (UInt64, UInt64), slot: Int32)>

    /// The number of slots.
    var count: Int { properties.count }

    /// The first slot from `start` on that save-time validation must look at beyond its value's
    /// type: a validated relationship, or a validated attribute whose value in `values` (laid
    /// out by this layout) its rule does not accept as it is (``SlotRule/accepts(_:)-(SlotValue)``).
    /// One pass over the values in place, none of them copied.
    func nextSlotToValidate(in values: SlotValues, from start: Int) -> Int? {
        values.withUnsafeBufferPointer { values in
            rules.withUnsafeBufferPointer { rules in
                kinds.withUnsafeBufferPointer { kinds in
                    var slot = start
                    let end = Swift.min(values.count, rules.count)
                    while slot < end {
                        let rule = rules[slot]
                        guard rule.isValidatedAtSave else {
                            slot += 1
                            continue
                        }
                        guard kinds[slot] == .attribute else { return slot }
                        // The case read once: each read of a value in place copies it.
                        if !rule.accepts(values[slot].caseType) { return slot }
                        slot += 1
                    }
                    return nil
                }
            }
        }
    }

    /// The layout of `entity`'s current properties (inherited ones first).
    init(_ entity: NSEntityDescription) {
        var properties = ContiguousArray<NSPropertyDescription>()
        var kinds = ContiguousArray<Kind>()
        var transient = ContiguousArray<Bool>()
        var byName: [String: Int] = [:]
        var relationships: [Int] = [], transients: [Int] = [], attributes: [Int] = []
        for property in entity.properties {
            let kind: Kind
            switch property {
            case let relationship as NSRelationshipDescription: kind = relationship.isToMany ? .toMany : .toOne
            case is NSAttributeDescription: kind = .attribute
            default: continue
            }
            guard byName[property.name] == nil else { continue }
            let slot = properties.count
            byName[property.name] = slot
            properties.append(property)
            kinds.append(kind)
            transient.append(property.isTransient)
            if kind != .attribute { relationships.append(slot) }
            if property.isTransient { transients.append(slot) } else if kind == .attribute { attributes.append(slot) }
        }
        self.properties = properties
        self.names = ContiguousArray(properties.map(\.name))
        self.rules = ContiguousArray(properties.map(SlotRule.init))
        self.kinds = kinds
        self.isTransient = transient
        self.relationshipSlots = relationships
        self.transientSlots = transients
        self.persistentAttributeSlots = attributes
        self.keptDestinationSlot = transients.isEmpty && relationships.count == 1 && kinds[relationships[0]] == .toOne
            ? relationships[0] : nil
        var size = 4
        while size < properties.count * 2 { size *= 2 }
        var table = ContiguousArray<Int32>(repeating: 0, count: size)
        for (slot, property) in properties.enumerated() {
            var index = Self.keyHash(property.name) & (table.count - 1)
            while table[index] != 0 { index = (index + 1) & (table.count - 1) }
            table[index] = Int32(slot + 1)
        }
        self.slotTable = table
        var small = ContiguousArray<(words: (UInt64, UInt64), slot: Int32)>()
        let smallCount = properties.lazy.filter { Self.smallWords($0.name) != nil }.count
        if smallCount > 0 {
            var size = 4
            while size < smallCount * 2 { size *= 2 }
            small = ContiguousArray(repeating: ((0, 0), 0), count: size)
            for (slot, property) in properties.enumerated() {
                guard let words = Self.smallWords(property.name) else { continue }
                var index = Self.smallHash(words) & (size - 1)
                while small[index].slot != 0 { index = (index + 1) & (size - 1) }
                small[index] = (words, Int32(slot + 1))
            }
        }
        self.smallNames = small
        self.emptyValues = SlotValues(repeating: .none, count: properties.count)
        let defaultValues = SlotValues(properties.map { property -> SlotValue in
            guard let attribute = property as? NSAttributeDescription, let value = attribute.defaultValue else { return .none }
            return SlotValue(some: PropertyValueCoercion.stored(value, for: attribute))
        })
        self.defaultValues = defaultValues
        self.hasDefaultValues = defaultValues.contains { !$0.isNone }
        self.defaultedSlots = ChangedSlots(attributes.filter { !defaultValues[$0].isNone })
    }

    /// The slot of the attribute or relationship named `key`; nil for other keys.
    ///
    /// Hashes the key's UTF-8 bytes with FNV-1a rather than `Hasher` (SipHash behind a
    /// per-process seed): property names are short, and this lookup runs on every
    /// key-value access.
    ///
    /// A key kept inline in its `String` (a small string: up to 15 UTF-8 bytes, as property
    /// names and the literals that name them usually are) is first looked up by its two words
    /// among the names that are small too: equal words are equal bytes, so a match needs no
    /// hashing of bytes nor string comparison. Any other key, or a small one not found that way,
    /// takes the hashed path.
    @inline(__always)
    func slot(forKey key: String) -> Int? {
        if !smallNames.isEmpty, let words = Self.smallWords(key) {
            let mask = smallNames.count - 1
            var index = Self.smallHash(words) & mask
            while true {
                let entry = smallNames[index]
                if entry.slot == 0 { break }
                if entry.words == words { return Int(entry.slot) - 1 }
                index = (index + 1) & mask
            }
        }
        let mask = slotTable.count - 1
        var index = Self.keyHash(key) & mask
        while true {
            let entry = Int(slotTable[index])
            if entry == 0 { return nil }
            if names[entry - 1] == key { return entry - 1 }
            index = (index + 1) & mask
        }
    }

    /// The two words of `key` when it is a small string (its bytes kept inline, flagged by bit
    /// 61 of the second word on 64-bit Linux and Apple platforms), else nil. Reading a
    /// `String`'s words retains nothing, and words equal to a small string's are that string's
    /// bytes and count. Always nil elsewhere: 32-bit platforms lay strings out differently, and
    /// on Android's arm64 the flag is another bit while pointer tags may set bit 61 (matching
    /// words would still mean equal strings, but the fast path would rarely apply).
    @inline(__always)
    static func smallWords(_ key: String) -> (UInt64, UInt64)? {
        #if os(Android)
        return nil
        #else
        guard MemoryLayout<String>.size == 16 else { return nil }
        let words = unsafeBitCast(key, to: (UInt64, UInt64).self)
        return words.1 & (1 << 61) != 0 ? words : nil
        #endif
    }

    /// The bucket bits of a small string's words.
    @inline(__always)
    static func smallHash(_ words: (UInt64, UInt64)) -> Int {
        let mixed = (words.0 &* 0x9E37_79B9_7F4A_7C15) ^ words.1
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 29))
    }

    /// FNV-1a over `key`'s UTF-8 bytes (a string's bytes, not its `Character`s: names that are
    /// equal as Swift strings but differ in normalization hash apart and are not found, as no
    /// model has such names).
    @inline(__always)
    static func keyHash(_ key: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        if let done = key.utf8.withContiguousStorageIfAvailable({ bytes -> UInt64 in
            var h = hash
            for byte in bytes { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return h
        }) {
            hash = done
        } else {
            for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}

/// The rules of one slot's property that save-time validation and the setters check on every
/// value, read from the property once: the checks of values that already have their attribute's
/// Swift type cost a comparison of metatypes, not a cast.
struct SlotRule {
    /// Whether nil is a valid value.
    let isOptional: Bool
    /// Whether save-time validation looks at the property (attributes other than derived ones,
    /// and relationships).
    let isValidatedAtSave: Bool
    /// Whether the property has validation predicates (a model's minimum, maximum, pattern…).
    let hasPredicates: Bool
    /// The Swift type whose values the attribute keeps as they are and accepts without further
    /// checks (`Int64` for Integer 64…); nil for relationships and for attribute types whose
    /// values are converted or checked (dates must be finite, `Decimal`, transformable…).
    let exactType: ObjectIdentifier?

    init(_ property: NSPropertyDescription) {
        isOptional = property.isOptional
        isValidatedAtSave = !(property is NSDerivedAttributeDescription)
            && (property is NSAttributeDescription || property is NSRelationshipDescription)
        hasPredicates = !property.validationPredicates.isEmpty
        exactType = (property as? NSAttributeDescription).flatMap { PropertyValueCoercion.exactType(of: $0.attributeType) }
    }

    /// Whether the property's rules accept `value` with nothing more to check: nil for an
    /// optional property, or a value of ``exactType`` when there are no validation predicates.
    @inline(__always)
    func accepts(_ value: Any?) -> Bool {
        // The common case, a value of the exact type, without copying it out of the optional.
        if !hasPredicates, let exactType, ValueComparison.holds(value, exactly: exactType) { return true }
        guard let value else { return isOptional }
        return !hasPredicates && hasExactType(value)
    }

    /// ``accepts(_:)`` for a slot's value: an inline value's case names its type.
    @inline(__always)
    func accepts(_ value: SlotValue) -> Bool {
        accepts(value.caseType)
    }

    /// ``accepts(_:)`` for a slot's value given by its ``SlotValue/CaseType``: nil when the
    /// attribute is optional, else a value of ``exactType`` when there are no predicates (an
    /// `.other` value is left to the full check).
    @inline(__always)
    func accepts(_ type: SlotValue.CaseType) -> Bool {
        switch type {
        case .none: isOptional
        case .inline(let inlineType): !hasPredicates && inlineType == exactType
        case .other: false
        }
    }

    /// Whether `value` has ``exactType``: the attribute keeps it unchanged and its type rules
    /// accept it (validation predicates aside).
    @inline(__always)
    func hasExactType(_ value: Any) -> Bool {
        guard let exactType else { return false }
        return ObjectIdentifier(type(of: value)) == exactType
    }
}

/// A set of slot numbers, as bits: which values an object changed since it was last loaded or
/// saved. Slots past 63 share one "some later slot" bit, so the set may say more than changed,
/// never less: callers compare values to decide.
struct ChangedSlots: Equatable {
    private var bits: UInt64 = 0

    init() {}

    /// The set of `slots`.
    init<S: Sequence<Int>>(_ slots: S) {
        for slot in slots { insert(slot) }
    }

    var isEmpty: Bool { bits == 0 }

    mutating func insert(_ slot: Int) { bits |= slot < 63 ? 1 << UInt64(slot) : 1 << 63 }

    func contains(_ slot: Int) -> Bool { bits & (slot < 63 ? 1 << UInt64(slot) : 1 << 63) != 0 }

    mutating func removeAll() { bits = 0 }

    mutating func formUnion(_ other: ChangedSlots) { bits |= other.bits }
}
