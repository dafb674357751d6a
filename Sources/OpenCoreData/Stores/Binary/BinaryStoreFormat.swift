/// The binary store's file format, version 1. It is ours (Apple's binary store format is
/// private); every number is little-endian.
///
/// Encodings used below:
/// - *varint*: an unsigned integer in LEB128 (7 bits per byte, low bits first, high bit set on
///   every byte but the last); at most 10 bytes.
/// - *zigzag*: a signed integer mapped to unsigned (`(n << 1) ^ (n >> 63)`), then a varint.
/// - *string*: a varint byte count, then that many bytes of UTF-8.
/// - *bytes*: a varint byte count, then the bytes.
/// - *reference*: a varint entity number (the entity's index in the entity table plus 1; 0 means
///   no object), then, when not 0, a varint primary key.
///
/// ```
/// header   8 bytes  magic 4F 43 44 42 49 4E 00 01 ("OCDBIN", 0, 1: ``AtomicFile/binaryMagic``, so
///                   that every file store recognises a binary store file)
///          4 bytes  format version, UInt32 (1). A file with a larger version is refused.
///          4 bytes  flags, UInt32 (0; reserved)
/// metadata bytes    the store metadata as a binary property list (a dictionary)
/// entities varint   the number of entities, then for each:
///            string   the entity name
///            varint   the last primary key used in the entity's inheritance tree (`Z_MAX`);
///                     written on root entities, 0 on subentities
///            varint   the number of properties, then for each:
///              string   the property name
///              UInt8    its kind (``BinaryStoreFormat/Kind``)
/// objects  for each entity, in table order:
///            varint   the number of objects of exactly that entity, then for each:
///              varint   the primary key
///              varint   the optimistic-locking version
///              for each property of the entity, in table order, its value (below)
/// checksum 4 bytes  CRC-32 (IEEE) of every byte before it
/// ```
///
/// Values, by kind. Attributes start with a presence byte (0: nil, 1: a value follows):
/// Integer 16/32/64 zigzag; Boolean one byte (0/1); Double and Date 8 bytes (IEEE 754 bits; a
/// date is seconds since 2001-01-01 UTC, so it round-trips to the bit); Float 4 bytes; Decimal a
/// string (its exact decimal digits); String a string; Binary bytes; UUID 16 bytes; URI a string
/// (the absolute string); object ID a reference when it names an object of this store, else the
/// URI as a string (a tag byte 0 or 1 says which); Transformable and Undefined a
/// ``BinaryStoreFormat/DynamicTag``-tagged value (the transformable's value after its value
/// transformer, when it names one). To-one relationships are a reference (no presence byte);
/// to-many relationships a varint count and that many references, in order for ordered ones.
///
/// An object's properties are those of its entity when the file was written (inherited ones
/// included, transient attributes left out), so a file read with a changed model still parses:
/// properties the model no longer has are skipped, and the version hashes in the metadata tell
/// the coordinator the model changed.
enum BinaryStoreFormat {
    /// The first 8 bytes of every binary store file.
    static var magic: [UInt8] { AtomicFile.binaryMagic }

    /// The format version this build writes, and the largest it reads.
    static let version: UInt32 = 1

    /// Bytes before the metadata: magic, version, flags.
    static let headerLength = 16

    /// Bytes of the trailing checksum.
    static let checksumLength = 4

    /// What a property is, and so how its values are encoded.
    enum Kind: UInt8, Sendable {
        case integer16 = 1, integer32, integer64, decimal, double, float, string, boolean, date,
             binary, uuid, uri, transformable, objectID, undefined
        case toOne = 32, toMany, orderedToMany

        /// The kind of `property`, or `nil` for a property the store does not keep (a transient
        /// attribute, a fetched property).
        init?(_ property: NSPropertyDescription) {
            if property.isTransient { return nil }
            if let relationship = property as? NSRelationshipDescription {
                self = !relationship.isToMany ? .toOne : relationship.isOrdered ? .orderedToMany : .toMany
                return
            }
            guard let attribute = property as? NSAttributeDescription else { return nil }
            switch attribute.attributeType {
            case .integer16AttributeType: self = .integer16
            case .integer32AttributeType: self = .integer32
            case .integer64AttributeType: self = .integer64
            case .decimalAttributeType: self = .decimal
            case .doubleAttributeType: self = .double
            case .floatAttributeType: self = .float
            case .stringAttributeType: self = .string
            case .booleanAttributeType: self = .boolean
            case .dateAttributeType: self = .date
            case .binaryDataAttributeType: self = .binary
            case .UUIDAttributeType: self = .uuid
            case .URIAttributeType: self = .uri
            case .transformableAttributeType: self = .transformable
            case .objectIDAttributeType: self = .objectID
            default: self = .undefined
            }
        }

        var isRelationship: Bool { rawValue >= Kind.toOne.rawValue }
    }

    /// The tags of self-describing values (transformable and undefined attributes): a tag byte,
    /// then the payload in the encoding of the kind of the same name. Arrays are a varint count
    /// and tagged elements; dictionaries a varint count and (string key, tagged value) pairs.
    enum DynamicTag: UInt8, Sendable {
        case null = 0, boolean, integer16, integer32, integer64, int, double, float, decimal, string,
             date, binary, uuid, uri, objectID, array, dictionary, set
    }

    /// The properties of `entity` the file keeps, in the order their values are written.
    static func storedProperties(of entity: NSEntityDescription) -> [(name: String, kind: Kind)] {
        entity.properties.compactMap { property in Kind(property).map { (property.name, $0) } }
    }
}

/// Why a binary store file could not be read; the store turns it into Core Data's error.
enum BinaryStoreFormatError: Error, Equatable {
    /// The file does not start with the magic number (another store type, or not a store).
    case notABinaryStore
    /// The file was written by a newer format version.
    case newerVersion(UInt32)
    /// The file ends before its structure does.
    case truncated
    /// The checksum does not match the contents.
    case checksumMismatch
    /// The structure is inconsistent (a bad kind, tag, reference or string).
    case malformed(String)
}

/// Why a value could not be written; the store turns it into Core Data's error.
struct BinaryStoreValueError: Error {
    /// The entity and property of the value.
    var entity: String
    var property: String
    /// What was wrong.
    var reason: String
}
