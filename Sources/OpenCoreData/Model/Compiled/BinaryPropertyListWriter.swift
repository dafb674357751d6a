import Foundation

/// Writes a binary property list (`bplist00`) including keyed-archiver UIDs, which
/// swift-corelibs-foundation's `PropertyListSerialization` can't write from Swift.
///
/// The format: the header `bplist00`, the objects (a marker byte whose high nibble is the type and
/// low nibble the length, 15 meaning an integer length follows), the offset table and a 32-byte
/// trailer (offset size, reference size, object count, top object, offset-table position; all
/// big-endian). Objects are laid out as CoreFoundation's writer lays them out (see
/// `flatten(_:)`), so that an archive can be byte-identical to Apple's.
struct BinaryPropertyListWriter {
    /// A property-list value to write.
    indirect enum Value: Hashable {
        case string(String)
        case integer(Int64)
        case real(Double)
        case bool(Bool)
        case data(Data)
        case date(Date)
        /// A keyed-archiver reference to the object at this index of `$objects`.
        case uid(Int)
        case array([Value])
        /// A dictionary, in the order given.
        case dictionary([(String, Value)])

        static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.string(let a), .string(let b)): return a == b
            case (.integer(let a), .integer(let b)): return a == b
            case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
            case (.bool(let a), .bool(let b)): return a == b
            case (.data(let a), .data(let b)): return a == b
            case (.date(let a), .date(let b)): return a == b
            case (.uid(let a), .uid(let b)): return a == b
            case (.array(let a), .array(let b)): return a == b
            case (.dictionary(let a), .dictionary(let b)): return a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
            default: return false
            }
        }

        func hash(into hasher: inout Hasher) {
            switch self {
            case .string(let v): hasher.combine(0); hasher.combine(v)
            case .integer(let v): hasher.combine(1); hasher.combine(v)
            case .real(let v): hasher.combine(2); hasher.combine(v.bitPattern)
            case .bool(let v): hasher.combine(3); hasher.combine(v)
            case .data(let v): hasher.combine(4); hasher.combine(v)
            case .date(let v): hasher.combine(5); hasher.combine(v)
            case .uid(let v): hasher.combine(6); hasher.combine(v)
            case .array(let v): hasher.combine(7); hasher.combine(v)
            case .dictionary(let v): hasher.combine(8); for (key, value) in v { hasher.combine(key); hasher.combine(value) }
            }
        }
    }

    /// The objects in table order, and the index each distinct value is referenced by.
    private var table: [Value] = []
    private var firstIndex: [Value: Int] = [:]

    /// The binary property list of `root`.
    static func data(_ root: Value) -> Data {
        var writer = BinaryPropertyListWriter()
        writer.flatten(root)
        return writer.serialized(top: 0)
    }

    /// Appends `value` and what it contains to the table, in Core Foundation's order: a container
    /// before its elements, a dictionary's keys before its values. Strings, numbers, dates and
    /// data are written once; other values are appended each time they occur, but references
    /// always go to the first equal one (what CoreFoundation's writer does).
    private mutating func flatten(_ value: Value) {
        switch value {
        case .string, .integer, .real, .date, .data:
            guard firstIndex[value] == nil else { return }
        default:
            break
        }
        if firstIndex[value] == nil { firstIndex[value] = table.count }
        table.append(value)
        switch value {
        case .array(let items):
            for item in items { flatten(item) }
        case .dictionary(let pairs):
            for (key, _) in pairs { flatten(.string(key)) }
            for (_, item) in pairs { flatten(item) }
        default:
            break
        }
    }

    private func reference(_ value: Value) -> Int { firstIndex[value] ?? 0 }

    private func serialized(top: Int) -> Data {
        let referenceSize = Self.byteCount(UInt64(max(table.count - 1, 0)))
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(table.count)
        for value in table {
            offsets.append(out.count)
            switch value {
            case .array(let items):
                out += Self.marker(0xA, count: items.count)
                for item in items { out += Self.bigEndian(UInt64(reference(item)), size: referenceSize) }
            case .dictionary(let pairs):
                out += Self.marker(0xD, count: pairs.count)
                for (key, _) in pairs { out += Self.bigEndian(UInt64(reference(.string(key))), size: referenceSize) }
                for (_, item) in pairs { out += Self.bigEndian(UInt64(reference(item)), size: referenceSize) }
            default:
                out += Self.scalarBytes(value)
            }
        }
        let tableOffset = out.count
        let offsetSize = Self.byteCount(UInt64(tableOffset))
        for offset in offsets { out += Self.bigEndian(UInt64(offset), size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        out += Self.bigEndian(UInt64(table.count), size: 8)
        out += Self.bigEndian(UInt64(top), size: 8)
        out += Self.bigEndian(UInt64(tableOffset), size: 8)
        return Data(out)
    }

    private static func scalarBytes(_ value: Value) -> [UInt8] {
        switch value {
        case .bool(let bool): return [bool ? 0x09 : 0x08]
        case .integer(let int): return integerBytes(int)
        case .real(let double): return [0x23] + bigEndian(double.bitPattern, size: 8)
        case .date(let date): return [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
        case .data(let data): return marker(0x4, count: data.count) + Array(data)
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) { return marker(0x5, count: string.utf8.count) + Array(string.utf8) }
            let units = Array(string.utf16)
            return marker(0x6, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .uid(let uid):
            let size = byteCount(UInt64(uid))
            return [0x80 | UInt8(size - 1)] + bigEndian(UInt64(uid), size: size)
        case .array, .dictionary:
            return []
        }
    }

    /// An integer object: 1, 2, 4 or 8 bytes; negative integers always take 8.
    private static func integerBytes(_ int: Int64) -> [UInt8] {
        guard int >= 0 else { return [0x13] + bigEndian(UInt64(bitPattern: int), size: 8) }
        let size = byteCount(UInt64(int))
        let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3
        return [0x10 | exponent] + bigEndian(UInt64(int), size: size)
    }

    private static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0x0F] + integerBytes(Int64(count))
    }

    /// The bytes (1, 2, 4 or 8) an unsigned value needs.
    private static func byteCount(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}
