import Foundation

/// An object ID as a value: two words, compared and hashed without dynamic dispatch.
///
/// Two keys are equal exactly when their IDs are ``NSManagedObjectID/isEqual(_:)``: a permanent
/// key is the store identifier, the entity name and the primary key; a temporary key is the
/// entity name and the temporary UUID. Store identifiers and entity names stand as small numbers
/// (``ObjectIDTokens``), equal strings as equal numbers, so a key never compares or hashes text.
/// The context's registry and caches and the SQLite row cache are keyed by it.
///
/// A temporary key holds only the low half of its UUID: every temporary UUID of the process
/// has the same high half (``TemporaryKeys``).
struct ObjectIDKey: Hashable, Sendable, PositionKey {
    /// Store token in the high half, entity token shifted left by one, and bit 0 set for a
    /// temporary key.
    private let space: UInt64
    /// The primary key's bits, or the low half of the temporary UUID.
    private let bits: UInt64

    /// The key of the ID `bits` of an entity (its name's number `entityToken`) in the store
    /// whose ``ObjectIDOrigin/keySpace`` is `storeSpace`: the store's number in the high half,
    /// or 1 for a temporary ID.
    @inline(__always)
    init(storeSpace: UInt64, entityToken: UInt32, bits: UInt64) {
        space = storeSpace | UInt64(entityToken) << 1
        self.bits = bits
    }

    var isTemporary: Bool { space & 1 != 0 }

    /// The primary key; `nil` for a temporary key.
    var primaryKey: Int64? { isTemporary ? nil : Int64(bitPattern: bits) }

    /// The UUID of a temporary key (meaningless for a permanent one).
    var temporaryUUID: UUID { TemporaryKeys.uuid(lowHalf: bits) }

    /// Whether this key's ID was made before `other`'s: permanent keys first, by store, entity
    /// and primary key; then temporary keys in the order the process made them.
    ///
    /// What the controllers order the objects of one change notification by, so that objects
    /// inserted in one event join in the order they were inserted. (A temporary ID's text, with
    /// its counter's low byte first, follows no such order.)
    func precedes(_ other: ObjectIDKey) -> Bool {
        if isTemporary != other.isTemporary { return other.isTemporary }
        if isTemporary { return TemporaryKeys.sequenceNumber(bits) < TemporaryKeys.sequenceNumber(other.bits) }
        if space != other.space { return space < other.space }
        return Int64(bitPattern: bits) < Int64(bitPattern: other.bits)
    }

    /// The two words folded into one (multiplication by an odd constant keeps distinct primary
    /// keys and UUID halves distinct): ``NSManagedObjectID/hash`` and what the hasher gets.
    var mixedBits: UInt64 {
        (bits &* 0x9E37_79B9_7F4A_7C15) ^ space
    }

    /// The two words folded into one for a ``LinearProbingTable``, which multiplies its keys'
    /// bits by the golden-ratio constant and keeps the high bits (Fibonacci hashing): the
    /// primary key (or the temporary UUID's low half) plus an offset for the rest.
    ///
    /// Not ``mixedBits``: Fibonacci hashing spreads consecutive integers evenly over the table,
    /// but not integers already multiplied by the same constant and then XORed with the store
    /// and entity. With those, 5,000 consecutive primary keys took 2 to 46 probes each on
    /// average to insert, depending only on the store's number; with these, about 1.1.
    var probeBits: UInt64 {
        bits &+ space &* 0xC2B2_AE3D_27D4_EB4F
    }

    /// ``probeBits`` for a table that keeps runs of eight consecutive primary keys together
    /// (``ObjectTable``): the primary key's low three bits as they are, above them the rest of
    /// the key plus the offset.
    var runBits: UInt64 {
        ((bits >> 3) &+ space &* 0xC2B2_AE3D_27D4_EB4F) << 3 | bits & 7
    }

    /// ``probeBits``, as a ``PositionBucket`` (``SnapshotsByID``) hashes it.
    var positionHashBits: UInt64 { probeBits }

    /// One word for the hasher instead of two.
    func hash(into hasher: inout Hasher) { hasher.combine(mixedBits) }
}

/// The numbers standing for store identifiers and entity names in ``ObjectIDKey``s: equal
/// strings get equal numbers, different strings different ones.
///
/// A store identifier's number is held by the ``ObjectIDOrigin``s with that identifier and
/// forgotten when the last one goes (a process may open many stores over its life); a later
/// origin with the same identifier gets a new number, which is safe because no ID with the old
/// one is left. Entity names, a model's small vocabulary, keep their numbers for the life of the
/// process. Numbers start at 1 (0 means "none").
enum ObjectIDTokens {
    private struct StoreEntry {
        var token: UInt32
        var holders: Int
    }

    private struct StoreTable {
        var entries: [String?: StoreEntry] = [:]
        var lastToken: UInt32 = 0
    }

    private struct NameTable {
        var tokens: [String?: UInt32] = [:]
    }

    private static let stores = Locked(StoreTable())
    private static let entityNames = Locked(NameTable())

    /// The number of `identifier`, held once more (release it with ``releaseStore(_:)``).
    static func retainStore(_ identifier: String?) -> UInt32 {
        stores.withLock { table in
            if var entry = table.entries[identifier] {
                entry.holders += 1
                table.entries[identifier] = entry
                return entry.token
            }
            // Skips 0 on wrap-around (after four billion store identifiers).
            table.lastToken = table.lastToken == UInt32.max ? 1 : table.lastToken + 1
            table.entries[identifier] = StoreEntry(token: table.lastToken, holders: 1)
            return table.lastToken
        }
    }

    /// Lets go of one hold on `identifier`'s number; the last one forgets it.
    static func releaseStore(_ identifier: String?) {
        stores.withLock { table in
            guard var entry = table.entries[identifier] else { return }
            entry.holders -= 1
            table.entries[identifier] = entry.holders > 0 ? entry : nil
        }
    }

    /// How many store identifiers have a number now (for tests).
    static var storeCount: Int { stores.withLock { $0.entries.count } }

    /// The number of entity name `name` (31 bits, never 0).
    static func entityName(_ name: String?) -> UInt32 {
        entityNames.withLock { table in
            if let token = table.tokens[name] { return token }
            let token = UInt32(truncatingIfNeeded: table.tokens.count + 1) & 0x7FFF_FFFF
            table.tokens[name] = token
            return token
        }
    }
}
