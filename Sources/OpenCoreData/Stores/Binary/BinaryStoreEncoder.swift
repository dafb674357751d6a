/// Writes an atomic store's contents in the binary store format (see ``BinaryStoreFormat``).
struct BinaryStoreEncoder {
    /// The store whose IDs are written as references; IDs of other stores are written as URIs.
    var storeIdentifier: String?

    /// Turns a transformable attribute's value into what is written (its value transformer's
    /// forward transformation). The default keeps the value.
    var transform: (Any, NSAttributeDescription) throws -> Any = { value, _ in value }

    /// One entity of the entity table.
    private struct EntityEntry {
        var entity: NSEntityDescription
        var properties: [(name: String, kind: BinaryStoreFormat.Kind, attribute: NSAttributeDescription?)]
    }

    /// The file for `contents`. The entity table lists `entities` (the model's, so that an
    /// empty store still records them) and every entity that has rows, sorted by name.
    func encode(_ contents: AtomicStoreContents, entities: [NSEntityDescription]) throws -> Data {
        var byName: [String: NSEntityDescription] = [:]
        for entity in entities { if let name = entity.name { byName[name] = entity } }
        for (name, rows) in contents.rows where byName[name] == nil && !rows.isEmpty {
            byName[name] = rows.first?.value.objectID.entity
        }
        let table: [EntityEntry] = byName.keys.sorted().map { name in
            let entity = byName[name]!
            return EntityEntry(entity: entity, properties: entity.properties.compactMap { property in
                BinaryStoreFormat.Kind(property).map { (property.name, $0, property as? NSAttributeDescription) }
            })
        }
        var numbers: [String: Int] = [:]
        for (index, entry) in table.enumerated() { numbers[entry.entity.name ?? ""] = index + 1 }

        var writer = BinaryStoreWriter(capacity: 64 + contents.rowCount * 48)
        writer.raw(BinaryStoreFormat.magic)
        writer.uint32(BinaryStoreFormat.version)
        writer.uint32(0)
        writer.data(try PropertyListSerialization.data(fromPropertyList: Self.propertyListSafe(contents.metadata),
                                                       format: .binary, options: 0))
        writer.varint(table.count)
        for entry in table {
            let name = entry.entity.name ?? ""
            writer.string(name)
            writer.varint(UInt64(max(0, entry.entity.superentity == nil ? contents.lastPrimaryKeys[name] ?? 0 : 0)))
            writer.varint(entry.properties.count)
            for property in entry.properties {
                writer.string(property.name)
                writer.byte(property.kind.rawValue)
            }
        }
        for entry in table {
            let rows = (contents.rows[entry.entity.name ?? ""] ?? [:]).sorted { $0.key < $1.key }
            writer.varint(rows.count)
            for (key, row) in rows {
                writer.varint(UInt64(max(0, key)))
                writer.varint(UInt64(max(0, row.version)))
                for property in entry.properties {
                    do {
                        try write(row, property: property, numbers: numbers, into: &writer)
                    } catch let error as BinaryStoreValueError {
                        throw BinaryStoreValueError(entity: entry.entity.name ?? "?", property: property.name, reason: error.reason)
                    }
                }
            }
        }
        writer.appendChecksum()
        return Data(writer.bytes)
    }

    /// Writes one property value of `row`.
    private func write(_ row: ObjectSnapshot, property: (name: String, kind: BinaryStoreFormat.Kind, attribute: NSAttributeDescription?),
                       numbers: [String: Int], into writer: inout BinaryStoreWriter) throws {
        switch property.kind {
        case .toOne:
            writeReference(row[property.name] as? NSManagedObjectID, numbers: numbers, into: &writer)
        case .toMany, .orderedToMany:
            let ids = row.toMany[property.name] ?? []
            writer.varint(ids.count)
            for id in ids { writeReference(id, numbers: numbers, into: &writer) }
        default:
            guard let value = ValueComparison.unwrap(row[property.name]), !ValueComparison.isNSNull(value) else {
                writer.byte(0)
                return
            }
            writer.byte(1)
            try writeAttribute(value, kind: property.kind, attribute: property.attribute, numbers: numbers, into: &writer)
        }
    }

    private func writeReference(_ id: NSManagedObjectID?, numbers: [String: Int], into writer: inout BinaryStoreWriter) {
        guard let id, let key = id.primaryKey, let number = numbers[id.entity.name ?? ""] else {
            writer.varint(0)
            return
        }
        writer.varint(number)
        writer.varint(UInt64(max(0, key)))
    }

    /// Writes a present attribute value of `kind`.
    private func writeAttribute(_ value: Any, kind: BinaryStoreFormat.Kind, attribute: NSAttributeDescription?,
                                numbers: [String: Int], into writer: inout BinaryStoreWriter) throws {
        switch kind {
        case .integer16, .integer32, .integer64:
            writer.zigzag(try Self.integer(value))
        case .boolean:
            if let bool = value as? Bool { writer.byte(bool ? 1 : 0) } else { writer.byte(try Self.integer(value) != 0 ? 1 : 0) }
        case .double:
            writer.double(try Self.double(value))
        case .float:
            if let float = value as? Float { writer.float(float) } else { writer.float(Float(try Self.double(value))) }
        case .decimal:
            let decimal: Decimal
            if let value = value as? Decimal { decimal = value }
            else if let number = NumericValue(value)?.decimalValue { decimal = number }
            else { throw Self.mismatch(value, "a Decimal") }
            writer.string(decimal.description)
        case .string:
            guard let string = value as? String else { throw Self.mismatch(value, "a String") }
            writer.string(string)
        case .date:
            guard let date = value as? Date else { throw Self.mismatch(value, "a Date") }
            writer.double(date.timeIntervalSinceReferenceDate)
        case .binary:
            guard let data = value as? Data else { throw Self.mismatch(value, "Data") }
            writer.data(data)
        case .uuid:
            guard let uuid = value as? UUID else { throw Self.mismatch(value, "a UUID") }
            writer.uuid(uuid)
        case .uri:
            guard let url = value as? URL else { throw Self.mismatch(value, "a URL") }
            writer.string(url.absoluteString)
        case .objectID:
            guard let id = value as? NSManagedObjectID else { throw Self.mismatch(value, "an NSManagedObjectID") }
            writeObjectID(id, numbers: numbers, into: &writer)
        case .transformable:
            let transformed = try attribute.map { try transform(value, $0) } ?? value
            try writeDynamic(transformed, numbers: numbers, into: &writer)
        case .undefined:
            try writeDynamic(value, numbers: numbers, into: &writer)
        case .toOne, .toMany, .orderedToMany:
            break
        }
    }

    /// An object-ID value: a reference (tag 0) to an object of this store, else its URI (tag 1).
    private func writeObjectID(_ id: NSManagedObjectID, numbers: [String: Int], into writer: inout BinaryStoreWriter) {
        if id.storeIdentifier == storeIdentifier, id.primaryKey != nil, numbers[id.entity.name ?? ""] != nil {
            writer.byte(0)
            writeReference(id, numbers: numbers, into: &writer)
        } else {
            writer.byte(1)
            writer.string(id.uriRepresentation().absoluteString)
        }
    }

    /// Writes a self-describing value (``BinaryStoreFormat/DynamicTag``).
    private func writeDynamic(_ value: Any, numbers: [String: Int], into writer: inout BinaryStoreWriter) throws {
        typealias Tag = BinaryStoreFormat.DynamicTag
        switch ValueComparison.unwrap(value) {
        case nil, is NSNull: writer.byte(Tag.null.rawValue)
        case let v as Bool: writer.byte(Tag.boolean.rawValue); writer.byte(v ? 1 : 0)
        case let v as Int16: writer.byte(Tag.integer16.rawValue); writer.zigzag(Int64(v))
        case let v as Int32: writer.byte(Tag.integer32.rawValue); writer.zigzag(Int64(v))
        case let v as Int64: writer.byte(Tag.integer64.rawValue); writer.zigzag(v)
        case let v as Int: writer.byte(Tag.int.rawValue); writer.zigzag(Int64(v))
        case let v as Double: writer.byte(Tag.double.rawValue); writer.double(v)
        case let v as Float: writer.byte(Tag.float.rawValue); writer.float(v)
        case let v as Decimal: writer.byte(Tag.decimal.rawValue); writer.string(v.description)
        case let v as String: writer.byte(Tag.string.rawValue); writer.string(v)
        case let v as Date: writer.byte(Tag.date.rawValue); writer.double(v.timeIntervalSinceReferenceDate)
        case let v as Data: writer.byte(Tag.binary.rawValue); writer.data(v)
        case let v as UUID: writer.byte(Tag.uuid.rawValue); writer.uuid(v)
        case let v as URL: writer.byte(Tag.uri.rawValue); writer.string(v.absoluteString)
        case let v as NSManagedObjectID: writer.byte(Tag.objectID.rawValue); writeObjectID(v, numbers: numbers, into: &writer)
        case let v as [String: Any]:
            writer.byte(Tag.dictionary.rawValue)
            writer.varint(v.count)
            for (key, element) in v.sorted(by: { $0.key < $1.key }) {
                writer.string(key)
                try writeDynamic(element, numbers: numbers, into: &writer)
            }
        case let v as Set<AnyHashable>:
            writer.byte(Tag.set.rawValue)
            writer.varint(v.count)
            for element in v { try writeDynamic(element.base, numbers: numbers, into: &writer) }
        case let v as [Any]:
            writer.byte(Tag.array.rawValue)
            writer.varint(v.count)
            for element in v { try writeDynamic(element, numbers: numbers, into: &writer) }
        case let other?:
            if let number = NumericValue(other) {
                switch number {
                case .integer(let v): writer.byte(Tag.integer64.rawValue); writer.zigzag(v)
                case .unsigned(let v): writer.byte(Tag.decimal.rawValue); writer.string(Decimal(v).description)
                case .double(let v): writer.byte(Tag.double.rawValue); writer.double(v)
                case .decimal(let v): writer.byte(Tag.decimal.rawValue); writer.string(v.description)
                }
                return
            }
            throw BinaryStoreValueError(entity: "", property: "",
                                        reason: "a value of type \(type(of: other)) can't be stored; give the attribute a value transformer that turns it into Data")
        }
    }

    // MARK: Values

    private static func integer(_ value: Any) throws -> Int64 {
        switch value {
        case let v as Int64: return v
        case let v as Int32: return Int64(v)
        case let v as Int16: return Int64(v)
        case let v as Int: return Int64(v)
        default:
            switch NumericValue(value) {
            case .integer(let v)?: return v
            case .double(let v)? where v.rounded(.towardZero) == v && abs(v) < 9.2e18: return Int64(v)
            default: throw mismatch(value, "an integer")
            }
        }
    }

    private static func double(_ value: Any) throws -> Double {
        if let double = value as? Double { return double }
        guard let number = NumericValue(value) else { throw mismatch(value, "a number") }
        return number.doubleValue
    }

    private static func mismatch(_ value: Any, _ expected: String) -> BinaryStoreValueError {
        BinaryStoreValueError(entity: "", property: "", reason: "expected \(expected), found a value of type \(type(of: value))")
    }

    /// The metadata with values a property list can't hold (none in practice) left out, so that a
    /// stray key never makes a store unsavable.
    static func propertyListSafe(_ metadata: [String: Any]) -> [String: Any] {
        metadata.filter { PropertyListSerialization.propertyList($0.value, isValidFor: .binary) }
    }
}
