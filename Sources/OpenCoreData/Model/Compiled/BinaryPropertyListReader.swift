import Foundation

/// A binary property list that ``BinaryPropertyListReader`` refused: what is wrong, and where.
struct BinaryPropertyListError: Error, CustomStringConvertible, Equatable {
    /// What is wrong with the data.
    let reason: String
    /// The byte offset the problem was found at, when there is one.
    let offset: Int?

    var description: String {
        if let offset { return "not a valid binary property list: \(reason) (at byte \(offset))" }
        return "not a valid binary property list: \(reason)"
    }
}

/// Reads a binary property list (`bplist00`) strictly, checking every offset, length and
/// reference, so that no input can crash the process.
///
/// swift-corelibs-foundation's `PropertyListSerialization` segfaults on some crafted binary plists
/// (a set holding a collection, for one), so every binary plist from outside is read here
/// instead (through ``PropertyListInput``). The result has the shapes `PropertyListSerialization`
/// returns: `String`, `Data`, `Date`, `Bool`, `NSNumber` for integers and reals, `[Any]`,
/// `[String: Any]` and `Set<AnyHashable>`. A keyed-archiver UID becomes `["CF$UID": NSNumber]`,
/// its XML property list spelling, which ``KeyedArchive`` reads.
///
/// Stricter than Core Foundation: dictionary keys must be strings and distinct, sets may hold only
/// strings, numbers, dates and data (distinct), nesting is limited to ``maximumDepth`` and a
/// container may not contain itself.
struct BinaryPropertyListReader {
    /// The deepest nesting of arrays, sets and dictionaries accepted. Real property lists nest a
    /// few levels (keyed archives are flat tables); the limit keeps the recursive reader well
    /// inside a secondary thread's stack.
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let offsetTable: Int
    /// The end of the object area (the offset table's start).
    private let objectsEnd: Int
    /// Objects already read, by index (shared objects are read once).
    private var cache: [Int: Any] = [:]
    /// Containers being read, by index: a reference back to one of them is a cycle.
    private var open: Set<Int> = []
    /// How many values each container read so far stands for once shared objects are counted at
    /// every place they appear (``maximumExpandedSize``).
    private var expandedSizes: [Int: Int] = [:]
    /// The most values a property list may stand for with its shared objects expanded. A
    /// file of a few hundred bytes can share one object at each of 64 levels and so stand for
    /// 2^64 values: every reader that walks the result would hang. Real property lists share
    /// strings and keyed archives share by UID, so they stay far below this.
    private var maximumExpandedSize: Int { max(1 << 20, bytes.count * 16) }

    /// Whether `data` starts like a binary property list (`bplist`).
    static func isBinaryPropertyList(_ data: Data) -> Bool {
        data.starts(with: Array("bplist".utf8))
    }

    /// The property list in `data`.
    static func propertyList(from data: Data) throws(BinaryPropertyListError) -> Any {
        var reader = try BinaryPropertyListReader(Array(data))
        return try reader.readTop()
    }

    private init(_ bytes: [UInt8]) throws(BinaryPropertyListError) {
        self.bytes = bytes
        guard bytes.count >= 8, bytes[0..<8].elementsEqual("bplist00".utf8) else {
            let version = String(decoding: bytes.prefix(8), as: UTF8.self)
            throw BinaryPropertyListError(reason: "the header is \"\(version)\", not \"bplist00\"", offset: 0)
        }
        guard bytes.count >= 8 + 1 + 32 else {
            throw BinaryPropertyListError(reason: "\(bytes.count) bytes is too short for a header, an object and a trailer", offset: nil)
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw BinaryPropertyListError(reason: "the trailer gives offset size \(offsetSize) and reference size \(referenceSize) (each must be 1 to 8)", offset: trailer + 6)
        }
        let count = Self.unsigned(bytes, at: trailer + 8, size: 8)
        let top = Self.unsigned(bytes, at: trailer + 16, size: 8)
        let table = Self.unsigned(bytes, at: trailer + 24, size: 8)
        guard count >= 1, count <= UInt64(trailer) else {
            throw BinaryPropertyListError(reason: "the trailer gives \(count) objects", offset: trailer + 8)
        }
        guard top < count else {
            throw BinaryPropertyListError(reason: "the top object \(top) is beyond the \(count) objects", offset: trailer + 16)
        }
        guard table >= 9, table <= UInt64(trailer),
              count.multipliedReportingOverflow(by: UInt64(offsetSize)).partialValue <= UInt64(trailer) - table,
              count <= UInt64(trailer) / UInt64(offsetSize) else {
            throw BinaryPropertyListError(reason: "the offset table (at \(table), \(count) entries of \(offsetSize) bytes) does not fit before the trailer", offset: trailer + 24)
        }
        objectCount = Int(count)
        offsetTable = Int(table)
        objectsEnd = Int(table)
        self.top = Int(top)
    }

    private let top: Int

    private mutating func readTop() throws(BinaryPropertyListError) -> Any {
        try object(top, depth: 0)
    }

    /// The object at index `index` of the offset table.
    private mutating func object(_ index: Int, depth: Int) throws(BinaryPropertyListError) -> Any {
        if let cached = cache[index] { return cached }
        guard index >= 0, index < objectCount else {
            throw BinaryPropertyListError(reason: "a reference to object \(index), beyond the \(objectCount) objects", offset: nil)
        }
        let start = Self.unsigned(bytes, at: offsetTable + index * offsetSize, size: offsetSize)
        guard start >= 8, start < UInt64(objectsEnd) else {
            throw BinaryPropertyListError(reason: "object \(index) starts at \(start), outside the object area 8..<\(objectsEnd)", offset: offsetTable + index * offsetSize)
        }
        let position = Int(start)
        let marker = bytes[position]
        let value: Any
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: value = false
            case 0x09: value = true
            default: throw BinaryPropertyListError(reason: "object \(index) has marker 0x\(String(marker, radix: 16)), which is not a property-list value", offset: position)
            }
        case 0x1:
            value = NSNumber(value: try integer(at: position))
        case 0x2:
            switch marker & 0x0F {
            case 2: value = NSNumber(value: Float(bitPattern: UInt32(try fixed(position + 1, size: 4))))
            case 3: value = NSNumber(value: Double(bitPattern: try fixed(position + 1, size: 8)))
            default: throw BinaryPropertyListError(reason: "a real of \(1 << (marker & 0x0F)) bytes", offset: position)
            }
        case 0x3:
            guard marker == 0x33 else { throw BinaryPropertyListError(reason: "a date with marker 0x\(String(marker, radix: 16))", offset: position) }
            value = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try fixed(position + 1, size: 8)))
        case 0x4:
            let (count, body) = try length(at: position)
            value = Data(try slice(body, count: count, unit: 1))
        case 0x5:
            let (count, body) = try length(at: position)
            let ascii = try slice(body, count: count, unit: 1)
            guard ascii.allSatisfy({ $0 < 0x80 }) else { throw BinaryPropertyListError(reason: "an ASCII string holds a byte over 0x7F", offset: position) }
            value = String(decoding: ascii, as: UTF8.self)
        case 0x6:
            let (count, body) = try length(at: position)
            let raw = try slice(body, count: count, unit: 2)
            let units = stride(from: 0, to: raw.count, by: 2).map { UInt16(raw[raw.startIndex + $0]) << 8 | UInt16(raw[raw.startIndex + $0 + 1]) }
            guard let string = String(validating: units, as: UTF16.self) else {
                throw BinaryPropertyListError(reason: "a UTF-16 string is not valid UTF-16", offset: position)
            }
            value = string
        case 0x7:
            let (count, body) = try length(at: position)
            guard let string = String(validating: try slice(body, count: count, unit: 1), as: UTF8.self) else {
                throw BinaryPropertyListError(reason: "a UTF-8 string is not valid UTF-8", offset: position)
            }
            value = string
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            guard size <= 4 else { throw BinaryPropertyListError(reason: "a UID of \(size) bytes", offset: position) }
            value = ["CF$UID": NSNumber(value: Int(try fixed(position + 1, size: size)))] as [String: Any]
        case 0xA, 0xC, 0xD:
            guard depth < Self.maximumDepth else {
                throw BinaryPropertyListError(reason: "containers nested deeper than \(Self.maximumDepth)", offset: position)
            }
            guard !open.contains(index) else {
                throw BinaryPropertyListError(reason: "object \(index) contains itself", offset: position)
            }
            open.insert(index)
            defer { open.remove(index) }
            let (container, size) = try container(marker: marker, index: index, at: position, depth: depth)
            guard size <= maximumExpandedSize else {
                throw BinaryPropertyListError(reason: "object \(index) stands for more than \(maximumExpandedSize) values once its shared objects are expanded", offset: position)
            }
            expandedSizes[index] = size
            value = container
        default:
            throw BinaryPropertyListError(reason: "object \(index) has unknown marker 0x\(String(marker, radix: 16))", offset: position)
        }
        cache[index] = value
        return value
    }

    /// The container at `position` and how many values it stands for, itself included.
    private mutating func container(marker: UInt8, index: Int, at position: Int, depth: Int) throws(BinaryPropertyListError) -> (Any, Int) {
        let (count, body) = try length(at: position)
        let kind = marker >> 4
        let references = try slice(body, count: kind == 0xD ? count.multipliedReportingOverflow(by: 2).partialValue : count, unit: referenceSize)
        func reference(_ n: Int) -> Int {
            let value = Self.unsigned(bytes, at: references.startIndex + n * referenceSize, size: referenceSize)
            return value > UInt64(Int.max) ? -1 : Int(value)
        }
        var size = 1
        func child(_ n: Int) throws(BinaryPropertyListError) -> Any {
            let index = reference(n)
            let value = try object(index, depth: depth + 1)
            let (sum, overflow) = size.addingReportingOverflow(expandedSizes[index] ?? 1)
            size = overflow ? Int.max : sum
            return value
        }
        switch kind {
        case 0xA:
            var array: [Any] = []
            array.reserveCapacity(count)
            for n in 0..<count { array.append(try child(n)) }
            return (array, size)
        case 0xC:
            var set = Set<AnyHashable>()
            for n in 0..<count {
                let element = try child(n)
                let hashable: AnyHashable
                switch element {
                case let string as String: hashable = string
                case let data as Data: hashable = data
                case let date as Date: hashable = date
                case let bool as Bool: hashable = bool
                case let number as NSNumber where !(element is [String: Any]): hashable = number
                default:
                    throw BinaryPropertyListError(reason: "set \(index) holds a \(type(of: element)); a set may hold only strings, numbers, dates and data", offset: position)
                }
                guard set.insert(hashable).inserted else {
                    throw BinaryPropertyListError(reason: "set \(index) holds \(hashable) twice", offset: position)
                }
            }
            return (set, size)
        default:
            var dictionary: [String: Any] = [:]
            dictionary.reserveCapacity(count)
            for n in 0..<count {
                guard let key = try child(n) as? String else {
                    throw BinaryPropertyListError(reason: "dictionary \(index) has a key that is not a string", offset: position)
                }
                let value = try child(count + n)
                guard dictionary.updateValue(value, forKey: key) == nil else {
                    throw BinaryPropertyListError(reason: "dictionary \(index) has the key \"\(key)\" twice", offset: position)
                }
            }
            return (dictionary, size)
        }
    }

    /// An integer object (`0x1n`): 1, 2 or 4 bytes unsigned, 8 bytes signed, 16 bytes only when the
    /// value fits in 64 bits (as Core Foundation writes unsigned 64-bit values).
    private func integer(at position: Int) throws(BinaryPropertyListError) -> Int64 {
        let exponent = bytes[position] & 0x0F
        switch exponent {
        case 0, 1, 2: return Int64(try fixed(position + 1, size: 1 << exponent))
        case 3: return Int64(bitPattern: try fixed(position + 1, size: 8))
        case 4:
            let high = try fixed(position + 1, size: 8), low = try fixed(position + 9, size: 8)
            guard high == 0 || (high == UInt64.max && low >> 63 == 1) else {
                throw BinaryPropertyListError(reason: "a 128-bit integer beyond 64 bits", offset: position)
            }
            return Int64(bitPattern: low)
        default:
            throw BinaryPropertyListError(reason: "an integer of \(1 << Int(exponent)) bytes", offset: position)
        }
    }

    /// The element count of the object at `position` (its marker's low nibble, or the integer
    /// object after it when that is 15) and where its body starts.
    private func length(at position: Int) throws(BinaryPropertyListError) -> (count: Int, body: Int) {
        let nibble = Int(bytes[position] & 0x0F)
        guard nibble == 0x0F else { return (nibble, position + 1) }
        let next = position + 1
        guard next < objectsEnd, bytes[next] >> 4 == 0x1, bytes[next] & 0x0F <= 3 else {
            throw BinaryPropertyListError(reason: "a length marker that is not an integer", offset: next)
        }
        let count = try integer(at: next)
        guard count >= 0, count <= Int64(objectsEnd) else {
            throw BinaryPropertyListError(reason: "a length of \(count)", offset: next)
        }
        return (Int(count), next + 1 + (1 << Int(bytes[next] & 0x0F)))
    }

    /// `count` units of `unit` bytes from `start`, all inside the object area.
    private func slice(_ start: Int, count: Int, unit: Int) throws(BinaryPropertyListError) -> ArraySlice<UInt8> {
        let (size, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, count >= 0, start <= objectsEnd, size <= objectsEnd - start else {
            throw BinaryPropertyListError(reason: "\(count) × \(unit) bytes run past the object area", offset: start)
        }
        return bytes[start..<(start + size)]
    }

    /// A big-endian unsigned value of `size` bytes at `position`, inside the object area.
    private func fixed(_ position: Int, size: Int) throws(BinaryPropertyListError) -> UInt64 {
        guard position <= objectsEnd - size else {
            throw BinaryPropertyListError(reason: "a \(size)-byte value runs past the object area", offset: position)
        }
        return Self.unsigned(bytes, at: position, size: size)
    }

    /// A big-endian unsigned value of `size` (1...8) bytes at `position`; the caller checks bounds.
    private static func unsigned(_ bytes: [UInt8], at position: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes[position..<(position + size)] { value = value << 8 | UInt64(byte) }
        return value
    }
}
