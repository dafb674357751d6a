/// CRC-32 (IEEE 802.3, the polynomial of zlib, PNG and gzip), the binary store's checksum.
///
/// Table-driven, one byte at a time: fast enough that checking a 100k-object file costs a few
/// milliseconds, and simple enough to be obviously right (`check` value of "123456789" is
/// `0xCBF43926`).
struct CRC32: Sendable {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    private var state: UInt32 = 0xFFFF_FFFF

    init() {}

    /// Feeds `bytes` into the checksum.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        state = crc
    }

    /// The checksum of everything fed so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// The checksum of `bytes` in one call.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
