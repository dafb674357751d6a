/// A growing byte buffer with the binary store's primitive encodings (see ``BinaryStoreFormat``).
struct BinaryStoreWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func raw(_ values: [UInt8]) { bytes.append(contentsOf: values) }

    mutating func raw(_ data: Data) { bytes.append(contentsOf: data) }

    mutating func uint32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func varint(_ value: Int) { varint(UInt64(UInt(bitPattern: value))) }

    mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            varint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func data(_ value: Data) {
        varint(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func double(_ value: Double) { uint64(value.bitPattern) }

    mutating func float(_ value: Float) { uint32(value.bitPattern) }

    mutating func uuid(_ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
    }

    /// Appends the CRC-32 of everything written so far.
    mutating func appendChecksum() {
        let checksum = bytes.withUnsafeBytes { CRC32.checksum($0) }
        uint32(checksum)
    }
}
