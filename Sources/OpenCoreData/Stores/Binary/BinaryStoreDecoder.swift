/// Reads a binary store file (see ``BinaryStoreFormat``) into an atomic store's contents.
///
/// The whole file is checked before anything is decoded: magic number (else
/// ``BinaryStoreFormatError/notABinaryStore``), version (``BinaryStoreFormatError/newerVersion(_:)``),
/// length and checksum. Entities and properties are matched to the model by name; those the
/// model lacks (or whose kind changed) are skipped.
struct BinaryStoreDecoder {
    /// The model's entities by name; rows of entities not in it are skipped.
    var entitiesByName: [String: NSEntityDescription]

    /// Makes the ID of a row of this store.
    var makeID: (NSEntityDescription, Int64) -> NSManagedObjectID

    /// Resolves an object-ID value naming an object of another store; `nil` drops the value.
    var resolveURI: (URL) -> NSManagedObjectID? = { _ in nil }

    /// Turns a stored transformable value back into the attribute's value (its value
    /// transformer's reverse transformation). The default keeps the value.
    var reverseTransform: (Any, NSAttributeDescription) throws -> Any = { value, _ in value }

    /// A property of the file's entity table, with what the model makes of it.
    private struct FileProperty {
        var name: String
        var kind: BinaryStoreFormat.Kind
        /// Whether the model has this property with this kind (else the value is read and dropped).
        var keep: Bool
        var attribute: NSAttributeDescription?
    }

    private struct FileEntity {
        var name: String
        var entity: NSEntityDescription?
        var lastPrimaryKey: Int64
        var properties: [FileProperty]
    }

    // MARK: Header

    /// Checks magic, version, length and checksum of `bytes`, and returns a reader positioned at
    /// the metadata that stops before the checksum.
    static func checkedReader(_ bytes: UnsafeRawBufferPointer) throws -> BinaryStoreReader {
        let magic = BinaryStoreFormat.magic
        let prefix = min(bytes.count, magic.count)
        guard bytes.prefix(prefix).elementsEqual(magic.prefix(prefix)) else { throw BinaryStoreFormatError.notABinaryStore }
        guard bytes.count >= BinaryStoreFormat.headerLength + BinaryStoreFormat.checksumLength else {
            throw BinaryStoreFormatError.truncated
        }
        var header = BinaryStoreReader(bytes, offset: magic.count)
        let version = try header.uint32()
        guard version <= BinaryStoreFormat.version else { throw BinaryStoreFormatError.newerVersion(version) }
        guard version >= 1 else { throw BinaryStoreFormatError.malformed("format version 0") }
        _ = try header.uint32()
        let end = bytes.count - BinaryStoreFormat.checksumLength
        var trailer = BinaryStoreReader(bytes, offset: end)
        let stored = try trailer.uint32()
        guard CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<end])) == stored else {
            throw BinaryStoreFormatError.checksumMismatch
        }
        return BinaryStoreReader(bytes, offset: BinaryStoreFormat.headerLength, end: end)
    }

    /// Reads the metadata property list at the reader's position.
    static func metadata(from reader: inout BinaryStoreReader) throws -> [String: Any] {
        let plist = try reader.slice(try reader.count())
        let object: Any
        do {
            object = try PropertyListInput.propertyList(from: Data(plist))
        } catch {
            throw BinaryStoreFormatError.malformed("the metadata is not a property list (\(error))")
        }
        guard let metadata = object as? [String: Any] else {
            throw BinaryStoreFormatError.malformed("the metadata is not a dictionary")
        }
        return metadata
    }

    /// Only the metadata of the file `data`, after the whole file was checked.
    static func metadata(of data: Data) throws -> [String: Any] {
        try data.withUnsafeBytes { bytes in
            var reader = try checkedReader(bytes)
            return try metadata(from: &reader)
        }
    }

    // MARK: Contents

    /// The metadata, rows and key counters of the file `data`. `prepare` runs after the
    /// metadata is read and before any ID is made (the store adopts the file's UUID there).
    func decode(_ data: Data, prepare: ([String: Any]) -> Void = { _ in }) throws -> AtomicStoreContents {
        try data.withUnsafeBytes { bytes in
            var reader = try Self.checkedReader(bytes)
            var contents = AtomicStoreContents(metadata: try Self.metadata(from: &reader))
            prepare(contents.metadata)
            let table = try readEntityTable(&reader)
            for entry in table where entry.entity?.superentity == nil && entry.lastPrimaryKey > 0 {
                contents.lastPrimaryKeys[entry.name] = entry.lastPrimaryKey
            }
            for entry in table {
                let count = try reader.count()
                var rows: [Int64: ObjectSnapshot] = [:]
                rows.reserveCapacity(entry.entity == nil ? 0 : count)
                for _ in 0..<count {
                    let key = Int64(bitPattern: try reader.varint())
                    let version = Int64(bitPattern: try reader.varint())
                    var values: [String: Any] = Dictionary(minimumCapacity: entry.properties.count)
                    var toMany: [String: [NSManagedObjectID]] = [:]
                    for property in entry.properties {
                        switch property.kind {
                        case .toOne:
                            let id = try readReference(&reader, table: table)
                            if property.keep, let id { values[property.name] = id }
                        case .toMany, .orderedToMany:
                            let count = try reader.count()
                            var ids: [NSManagedObjectID] = []
                            ids.reserveCapacity(count)
                            for _ in 0..<count {
                                if let id = try readReference(&reader, table: table) { ids.append(id) }
                            }
                            if property.keep { toMany[property.name] = ids }
                        default:
                            guard try reader.byte() != 0 else { continue }
                            let value = try readAttribute(&reader, kind: property.kind, table: table)
                            if property.keep, var value {
                                if property.kind == .transformable, let attribute = property.attribute {
                                    value = try reverseTransform(value, attribute)
                                }
                                values[property.name] = value
                            }
                        }
                    }
                    if let entity = entry.entity {
                        rows[key] = ObjectSnapshot(objectID: makeID(entity, key), values: values, toMany: toMany, version: version)
                    }
                }
                if !rows.isEmpty { contents.rows[entry.name] = rows }
            }
            guard reader.isAtEnd else {
                throw BinaryStoreFormatError.malformed("\(reader.end - reader.offset) unexpected bytes after the objects")
            }
            return contents
        }
    }

    private func readEntityTable(_ reader: inout BinaryStoreReader) throws -> [FileEntity] {
        let count = try reader.count()
        var table: [FileEntity] = []
        for _ in 0..<count {
            let name = try reader.string()
            let lastKey = Int64(bitPattern: try reader.varint())
            let entity = entitiesByName[name]
            let modelProperties = entity?.propertiesByName ?? [:]
            var properties: [FileProperty] = []
            for _ in 0..<(try reader.count()) {
                let propertyName = try reader.string()
                let raw = try reader.byte()
                guard let kind = BinaryStoreFormat.Kind(rawValue: raw) else {
                    throw BinaryStoreFormatError.malformed("property '\(propertyName)' of entity '\(name)' has unknown kind \(raw)")
                }
                let modelProperty = modelProperties[propertyName]
                let keep = modelProperty.flatMap(BinaryStoreFormat.Kind.init) == kind
                properties.append(FileProperty(name: propertyName, kind: kind, keep: keep,
                                               attribute: modelProperty as? NSAttributeDescription))
            }
            table.append(FileEntity(name: name, entity: entity, lastPrimaryKey: lastKey, properties: properties))
        }
        return table
    }

    /// A reference; `nil` for "no object" and for objects of entities the model lacks.
    private func readReference(_ reader: inout BinaryStoreReader, table: [FileEntity]) throws -> NSManagedObjectID? {
        let number = try reader.count()
        guard number != 0 else { return nil }
        guard number <= table.count else {
            throw BinaryStoreFormatError.malformed("a reference to entity number \(number) of \(table.count)")
        }
        let key = Int64(bitPattern: try reader.varint())
        guard let entity = table[number - 1].entity else { return nil }
        return makeID(entity, key)
    }

    private func readObjectID(_ reader: inout BinaryStoreReader, table: [FileEntity]) throws -> NSManagedObjectID? {
        switch try reader.byte() {
        case 0: return try readReference(&reader, table: table)
        case 1: return URL(string: try reader.string()).flatMap(resolveURI)
        case let tag: throw BinaryStoreFormatError.malformed("object ID tag \(tag)")
        }
    }

    /// A present attribute value of `kind`; `nil` when it can't be represented here (an object
    /// ID of an unknown store).
    private func readAttribute(_ reader: inout BinaryStoreReader, kind: BinaryStoreFormat.Kind, table: [FileEntity]) throws -> Any? {
        switch kind {
        case .integer16: return try Self.exact(Int16.self, try reader.zigzag())
        case .integer32: return try Self.exact(Int32.self, try reader.zigzag())
        case .integer64: return try reader.zigzag()
        case .boolean: return try reader.byte() != 0
        case .double: return try reader.double()
        case .float: return try reader.float()
        case .decimal: return try Self.decimal(try reader.string())
        case .string: return try reader.string()
        case .date: return Date(timeIntervalSinceReferenceDate: try reader.double())
        case .binary: return try reader.data()
        case .uuid: return try reader.uuid()
        case .uri: return try Self.url(try reader.string())
        case .objectID: return try readObjectID(&reader, table: table)
        case .transformable, .undefined: return try readDynamic(&reader, table: table, depth: 0)
        case .toOne, .toMany, .orderedToMany: return nil
        }
    }

    /// A URI value, refused when its text is not a URL.
    private static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw BinaryStoreFormatError.malformed("a URI value '\(text)' that is not a URL") }
        return url
    }

    /// A self-describing value (``BinaryStoreFormat/DynamicTag``).
    private func readDynamic(_ reader: inout BinaryStoreReader, table: [FileEntity], depth: Int) throws -> Any? {
        guard depth < 256 else { throw BinaryStoreFormatError.malformed("values nested more than 256 deep") }
        let raw = try reader.byte()
        guard let tag = BinaryStoreFormat.DynamicTag(rawValue: raw) else { throw BinaryStoreFormatError.malformed("value tag \(raw)") }
        switch tag {
        case .null: return NSNull()
        case .boolean: return try reader.byte() != 0
        case .integer16: return try Self.exact(Int16.self, try reader.zigzag())
        case .integer32: return try Self.exact(Int32.self, try reader.zigzag())
        case .integer64: return try reader.zigzag()
        case .int: return try Self.exact(Int.self, try reader.zigzag())
        case .double: return try reader.double()
        case .float: return try reader.float()
        case .decimal: return try Self.decimal(try reader.string())
        case .string: return try reader.string()
        case .date: return Date(timeIntervalSinceReferenceDate: try reader.double())
        case .binary: return try reader.data()
        case .uuid: return try reader.uuid()
        case .uri: return try Self.url(try reader.string())
        case .objectID: return try readObjectID(&reader, table: table) ?? NSNull()
        case .array:
            var result: [Any] = []
            for _ in 0..<(try reader.count()) { result.append(try readDynamic(&reader, table: table, depth: depth + 1) ?? NSNull()) }
            return result
        case .set:
            var result = Set<AnyHashable>()
            for _ in 0..<(try reader.count()) {
                guard let element = try readDynamic(&reader, table: table, depth: depth + 1) as? AnyHashable else {
                    throw BinaryStoreFormatError.malformed("a set element that is not hashable")
                }
                result.insert(element)
            }
            return result
        case .dictionary:
            var result: [String: Any] = [:]
            for _ in 0..<(try reader.count()) {
                let key = try reader.string()
                result[key] = try readDynamic(&reader, table: table, depth: depth + 1) ?? NSNull()
            }
            return result
        }
    }

    private static func exact<T: FixedWidthInteger>(_ type: T.Type, _ value: Int64) throws -> T {
        guard let result = T(exactly: value) else { throw BinaryStoreFormatError.malformed("\(value) does not fit \(T.self)") }
        return result
    }

    private static func decimal(_ text: String) throws -> Decimal {
        if text == "NaN" { return Decimal.nan }
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw BinaryStoreFormatError.malformed("a Decimal value '\(text)'")
        }
        return value
    }
}
