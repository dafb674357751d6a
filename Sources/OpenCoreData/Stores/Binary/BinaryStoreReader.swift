/// A cursor over a binary store file's bytes with the format's primitive decodings (see
/// ``BinaryStoreFormat``). Every read checks the bounds and throws
/// ``BinaryStoreFormatError/truncated`` past the end; it never traps.
struct BinaryStoreReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int
    /// Where reading must stop (before the checksum).
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    var isAtEnd: Bool { offset >= end }

    mutating func byte() throws -> UInt8 {
        guard offset < end else { throw BinaryStoreFormatError.truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint32() throws -> UInt32 {
        guard end - offset >= 4 else { throw BinaryStoreFormatError.truncated }
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func uint64() throws -> UInt64 {
        guard end - offset >= 8 else { throw BinaryStoreFormatError.truncated }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw BinaryStoreFormatError.truncated }
            let byte = bytes[offset]
            offset += 1
            guard shift < 64 else { throw BinaryStoreFormatError.malformed("a varint longer than 10 bytes at offset \(offset - 1)") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A varint used as a count or index, bounded by what the rest of the file could hold.
    mutating func count() throws -> Int {
        let value = try varint()
        guard value <= UInt64(end - offset) + 1 << 20 else {
            throw BinaryStoreFormatError.malformed("a count of \(value) at offset \(offset) exceeds the file")
        }
        return Int(value)
    }

    mutating func zigzag() throws -> Int64 {
        let value = try varint()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    /// `count` raw bytes, without copying.
    mutating func slice(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, end - offset >= count else { throw BinaryStoreFormatError.truncated }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    mutating func string() throws -> String {
        let utf8 = try slice(try count())
        guard let string = String(validating: utf8.bindMemory(to: UInt8.self), as: UTF8.self) else {
            throw BinaryStoreFormatError.malformed("a string that is not UTF-8 at offset \(offset - utf8.count)")
        }
        return string
    }

    mutating func data() throws -> Data { Data(try slice(try count())) }

    mutating func double() throws -> Double { Double(bitPattern: try uint64()) }

    mutating func float() throws -> Float { Float(bitPattern: try uint32()) }

    mutating func uuid() throws -> UUID {
        let raw = try slice(16)
        var value = UUID().uuid
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: raw) }
        return UUID(uuid: value)
    }
}
