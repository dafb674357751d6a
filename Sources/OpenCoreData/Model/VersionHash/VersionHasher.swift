import Foundation

/// Core Data's version hashes, computed exactly as Apple's framework computes them.
///
/// The algorithm follows Core Data's own implementation (`_versionHash:inStyle:` of the property
/// and entity classes, as public decompilations of the framework show it) and is checked byte for
/// byte against what Apple's tools wrote into the fixtures: every entity of every version of the
/// fixture models (`VersionInfo.plist` of `SampleModel.momd` and `SampleModel3.momd`), the
/// `NSStoreModelVersionHashes` and model caches of the fixture SQLite stores, the source and
/// destination hashes of the fixture mapping model, the per-property hashes momc writes into the
/// optimized `.omo` model, the model checksums (`NSManagedObjectModel_VersionChecksums`,
/// `NSStoreModelVersionChecksumKey`) and the store digest (`NSStoreModelVersionHashesDigest`).
///
/// All digests are SHA-256 except the store digest (SHA-512). Strings are fed as their UTF-8
/// bytes without a terminator; integers as little-endian bytes of the stated width.
///
/// - Property: `SHA-256(name, flags as 2 bytes, versionHashModifier)` where flags is
///   1 (optional) | 2 (transient) | 4 (read-only; always 0 here).
/// - Attribute: `SHA-256(property hash, attributeType as 4 bytes,
///   [0x01 if allowsExternalBinaryDataStorage], [0x01 if preservesValueInHistoryOnDeletion])`.
/// - Relationship: `SHA-256(property hash, destination entity name, inverse name (omitted when
///   the relationship is its own inverse), maxCount as 4 bytes, minCount as 4 bytes,
///   [0x01 0x00 if ordered])`. The delete rule does not take part, although Apple's
///   documentation lists it.
/// - Derived attribute: `SHA-256(derivationExpression.predicateFormat)` (Core Data also feeds a
///   filtering predicate, which this model does not have). This follows Core Data's code; no
///   fixture holds a derived attribute to confirm it.
/// - Entity: `SHA-256(name, isAbstract as 1 byte, [superentity's hash], the hashes of all its
///   non-transient attributes and relationships, inherited ones included, sorted by name,
///   versionHashModifier, then each uniqueness constraint (its names joined by ".") in sorted
///   order)`. Fetched properties, user info, class name, defaults, validation rules, indexes and
///   the renaming identifier do not take part.
///
/// Untested against Apple for lack of fixtures: ordered relationships (the `0x01 0x00` bytes),
/// derived attributes, the two attribute flags and read-only properties.
///
/// An entity's hash takes its superentity's and every inherited property's: computed naively,
/// a deep inheritance chain costs the cube of its depth. ``Memo`` keeps each entity's and
/// property's hash for one computation over many entities (``hashes(of:)``), and a model in use
/// (immutable) keeps its entities' hashes (``NSEntityDescription/versionHash``).
enum VersionHasher {
    /// The hashes computed so far in one computation, by entity and property identity. Only
    /// valid while the model does not change.
    final class Memo {
        var entities: [ObjectIdentifier: Data] = [:]
        var properties: [ObjectIdentifier: Data] = [:]
        init() {}
    }

    /// The version hashes of `entities` by name, each entity and property hashed once.
    static func hashes(of entities: [NSEntityDescription]) -> [String: Data] {
        let memo = Memo()
        return Dictionary(entities.compactMap { entity in entity.name.map { ($0, hash(of: entity, memo: memo)) } },
                          uniquingKeysWith: { first, _ in first })
    }

    static func hash(of entity: NSEntityDescription) -> Data {
        hash(of: entity, memo: Memo())
    }

    /// `entity`'s hash, reusing and filling `memo`; the superentity's hash is its cached one
    /// when its model is in use.
    static func hash(of entity: NSEntityDescription, memo: Memo) -> Data {
        if let known = memo.entities[ObjectIdentifier(entity)] { return known }
        ModelWorkCounter.record(.entityVersionHash)
        var digest = SHA256()
        digest.update(utf8: entity.name ?? "")
        digest.update([entity.isAbstract ? 1 : 0])
        if let superentity = entity.superentity {
            digest.update(superentity.frozenVersionHash ?? hash(of: superentity, memo: memo))
        }
        let persistent = entity.properties
            .filter { ($0 is NSAttributeDescription || $0 is NSRelationshipDescription) && !$0.isTransient }
            .sorted { precedes($0.name, $1.name) }
        for property in persistent {
            if let known = memo.properties[ObjectIdentifier(property)] {
                digest.update(known)
            } else {
                let computed = hash(of: property)
                memo.properties[ObjectIdentifier(property)] = computed
                digest.update(computed)
            }
        }
        if let modifier = entity.versionHashModifier {
            digest.update(utf8: modifier)
        }
        let constraints = entity.uniquenessConstraintNames
            .map { $0.joined(separator: ".") }
            .filter { !$0.isEmpty }
            .sorted(by: precedes)
        for constraint in constraints {
            digest.update(utf8: constraint)
        }
        let result = digest.finalize()
        memo.entities[ObjectIdentifier(entity)] = result
        return result
    }

    static func hash(of property: NSPropertyDescription) -> Data {
        switch property {
        case let derived as NSDerivedAttributeDescription:
            var digest = SHA256()
            if let expression = derived.derivationExpression {
                digest.update(utf8: expression.description)
            }
            return digest.finalize()
        case let attribute as NSAttributeDescription:
            var digest = SHA256()
            digest.update(baseHash(of: attribute))
            digest.update(littleEndian: UInt64(attribute.attributeType.rawValue), width: 4)
            if attribute.allowsExternalBinaryDataStorage { digest.update([1]) }
            if attribute.preservesValueInHistoryOnDeletion { digest.update([1]) }
            return digest.finalize()
        case let relationship as NSRelationshipDescription:
            var digest = SHA256()
            digest.update(baseHash(of: relationship))
            if let destination = relationship.destinationEntity?.name ?? relationship.destinationEntityName {
                digest.update(utf8: destination)
            }
            if let inverseName = relationship.inverseRelationship?.name ?? relationship.inverseName,
               !isOwnInverse(relationship, inverseName: inverseName) {
                digest.update(utf8: inverseName)
            }
            digest.update(littleEndian: UInt64(UInt32(truncatingIfNeeded: relationship.maxCount)), width: 4)
            digest.update(littleEndian: UInt64(UInt32(truncatingIfNeeded: relationship.minCount)), width: 4)
            if relationship.isOrdered { digest.update([1, 0]) }
            return digest.finalize()
        default:
            return baseHash(of: property)
        }
    }

    /// The model checksum Xcode writes in `VersionInfo.plist` (`NSManagedObjectModel_VersionChecksums`)
    /// and Core Data in store metadata (`NSStoreModelVersionChecksumKey`), base64-encoded there:
    /// SHA-256 over the entity hashes in entity-name order.
    static func modelChecksum(entityVersionHashes: [String: Data]) -> Data {
        var digest = SHA256()
        for name in entityVersionHashes.keys.sorted(by: precedes) {
            digest.update(entityVersionHashes[name]!)
        }
        return digest.finalize()
    }

    /// The `NSStoreModelVersionHashesDigest` of store metadata (base64-encoded there): SHA-512
    /// over each entity's name followed by its hash, in entity-name order.
    static func storeHashesDigest(entityVersionHashes: [String: Data]) -> Data {
        var digest = SHA512()
        for name in entityVersionHashes.keys.sorted(by: precedes) {
            digest.update(name.utf8)
            digest.update(entityVersionHashes[name]!)
        }
        return digest.finalize()
    }

    // MARK: Pieces

    /// The part every property shares: name, flags, modifier.
    private static func baseHash(of property: NSPropertyDescription) -> Data {
        var digest = SHA256()
        digest.update(utf8: property.name)
        let flags: UInt64 = (property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0)
        digest.update(littleEndian: flags, width: 2)
        if let modifier = property.versionHashModifier {
            digest.update(utf8: modifier)
        }
        return digest.finalize()
    }

    /// Whether the relationship is its own inverse (a reflexive relationship such as
    /// `Person.spouse` ↔ `Person.spouse`), directly or as inherited from a superentity.
    private static func isOwnInverse(_ relationship: NSRelationshipDescription, inverseName: String) -> Bool {
        if let inverse = relationship.inverseRelationship, inverse === relationship { return true }
        guard inverseName == relationship.name,
              let destination = relationship.destinationEntity?.name ?? relationship.destinationEntityName,
              let owner = relationship.entity else { return false }
        var current: NSEntityDescription? = owner
        while let entity = current {
            if entity.name == destination { return true }
            current = entity.superentity
        }
        return false
    }

    /// `NSString.compare(_:)` without options: UTF-16 code unit order.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }
}
