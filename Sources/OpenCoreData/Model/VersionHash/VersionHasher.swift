// TEMPORARY, replaced by the model-mom helper's version-hash algorithm (branch `model-mom`).
// It only keeps the `model` branch building: a deterministic 32-byte hash of the significant
// parts, not Apple's algorithm.

/// Computes the version hashes of entities and properties.
enum VersionHasher {
    static func hash(of entity: NSEntityDescription) -> Data {
        var parts = [entity.name ?? "", entity.superentity?.name ?? "", entity.isAbstract ? "1" : "0",
                     entity.versionHashModifier ?? ""]
        parts += entity.properties.filter { !$0.isTransient }.map { hash(of: $0).base64EncodedString() }
        return digest(parts)
    }

    static func hash(of property: NSPropertyDescription) -> Data {
        var parts = [String(describing: type(of: property)), property.name, property.isOptional ? "1" : "0",
                     property.isTransient ? "1" : "0", property.versionHashModifier ?? ""]
        if let attribute = property as? NSAttributeDescription {
            parts.append(String(attribute.attributeType.rawValue))
        }
        if let relationship = property as? NSRelationshipDescription {
            parts += [relationship.destinationEntityName ?? "", relationship.inverseName ?? "",
                      String(relationship.maxCount), String(relationship.minCount),
                      relationship.isOrdered ? "1" : "0", String(relationship.deleteRule.rawValue)]
        }
        return digest(parts)
    }

    /// Four 64-bit FNV-1a lanes over the joined parts, 32 bytes in all.
    private static func digest(_ parts: [String]) -> Data {
        let bytes = Array(parts.joined(separator: "\u{1F}").utf8)
        var result = Data()
        for lane in 0..<4 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325 &+ UInt64(lane) &* 0x9E37_79B9_7F4A_7C15
            for byte in bytes {
                h ^= UInt64(byte)
                h = h &* 0x100_0000_01b3
            }
            withUnsafeBytes(of: h.bigEndian) { result.append(contentsOf: $0) }
        }
        return result
    }
}
