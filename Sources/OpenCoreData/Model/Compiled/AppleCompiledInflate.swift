import Foundation

/// Decompresses raw DEFLATE data (RFC 1951, no zlib or gzip header), the form in which Core Data
/// keeps a copy of the model in a SQLite store's `Z_MODELCACHE.Z_CONTENT`. Corelibs Foundation
/// exposes no decompression, and the package takes no new dependencies, so it is written here in
/// the canonical-Huffman style of zlib's reference decoder `puff`: small and strict rather than fast.
struct RawInflate {
    /// Why a stream cannot be decompressed.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case truncated
        case invalidBlockType
        case storedLengthMismatch
        case invalidCode
        case invalidCodeLengths
        case distanceTooFar
        case outputTooLarge(limit: Int)

        var description: String {
            switch self {
            case .truncated: return "the compressed data ends early"
            case .invalidBlockType: return "a block has the reserved type 3"
            case .storedLengthMismatch: return "a stored block's length and its complement disagree"
            case .invalidCode: return "a Huffman code is not in the block's code table"
            case .invalidCodeLengths: return "a block's code lengths do not form a valid code"
            case .distanceTooFar: return "a back-reference points before the start of the data"
            case .outputTooLarge(let limit): return "the data inflates beyond \(limit) bytes"
            }
        }
    }

    /// The decompressed bytes of `data`; throws ``Failure`` on a damaged stream or when the result
    /// would exceed `limit` bytes.
    static func inflate(_ data: Data, limit: Int = 256 << 20) throws -> Data {
        var state = RawInflate(input: [UInt8](data), limit: limit)
        var last = false
        while !last {
            last = try state.bits(1) == 1
            switch try state.bits(2) {
            case 0: try state.stored()
            case 1:
                let fixed = try fixedCodes.get()
                try state.codes(literal: fixed.literal, distance: fixed.distance)
            case 2:
                let (literal, distance) = try state.dynamicTables()
                try state.codes(literal: literal, distance: distance)
            default: throw Failure.invalidBlockType
            }
        }
        return Data(state.output)
    }

    private let input: [UInt8]
    private let limit: Int
    private var position = 0
    private var bitBuffer = 0
    private var bitCount = 0
    private var output: [UInt8] = []

    private init(input: [UInt8], limit: Int) {
        self.input = input
        self.limit = limit
    }

    /// `count` bits, least significant first.
    private mutating func bits(_ count: Int) throws -> Int {
        var value = bitBuffer
        while bitCount < count {
            guard position < input.count else { throw Failure.truncated }
            value |= Int(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        bitBuffer = value >> count
        bitCount -= count
        return value & ((1 << count) - 1)
    }

    private mutating func stored() throws {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw Failure.truncated }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        guard length == ~complement & 0xFFFF else { throw Failure.storedLengthMismatch }
        position += 4
        guard position + length <= input.count else { throw Failure.truncated }
        guard output.count + length <= limit else { throw Failure.outputTooLarge(limit: limit) }
        output.append(contentsOf: input[position..<(position + length)])
        position += length
    }

    /// A canonical Huffman code: how many codes of each length, and the symbols in code order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        /// Builds the code from per-symbol lengths; `complete` demands that every code is used.
        init(lengths: [Int], complete: Bool) throws {
            for length in lengths { counts[length] += 1 }
            guard counts[0] != lengths.count else {
                if complete { throw Failure.invalidCodeLengths }
                return
            }
            var left = 1
            for length in 1..<16 {
                left = left * 2 - counts[length]
                guard left >= 0 else { throw Failure.invalidCodeLengths }
            }
            if complete, left > 0, lengths.count - counts[0] != 1 { throw Failure.invalidCodeLengths }
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private mutating func decode(_ code: Huffman) throws -> Int {
        var value = 0, first = 0, index = 0
        for length in 1..<16 {
            value |= try bits(1)
            let count = code.counts[length]
            if value - count < first { return code.symbols[index + (value - first)] }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        throw Failure.invalidCode
    }

    private static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                     35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                      3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8,
                                        9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private mutating func codes(literal: Huffman, distance: Huffman) throws {
        while true {
            let symbol = try decode(literal)
            if symbol < 256 {
                guard output.count < limit else { throw Failure.outputTooLarge(limit: limit) }
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let lengthIndex = symbol - 257
                guard lengthIndex < Self.lengthBase.count else { throw Failure.invalidCode }
                let length = Self.lengthBase[lengthIndex] + (try bits(Self.lengthExtra[lengthIndex]))
                let distanceIndex = try decode(distance)
                guard distanceIndex < Self.distanceBase.count else { throw Failure.invalidCode }
                let back = Self.distanceBase[distanceIndex] + (try bits(Self.distanceExtra[distanceIndex]))
                guard back <= output.count else { throw Failure.distanceTooFar }
                guard output.count + length <= limit else { throw Failure.outputTooLarge(limit: limit) }
                let start = output.count - back
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    /// DEFLATE's fixed codes, built once. They are valid by construction; the `Result` only
    /// keeps a trap out of the reader.
    private static let fixedCodes = Result { () throws -> (literal: Huffman, distance: Huffman) in
        var lengths = [Int](repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        return (try Huffman(lengths: lengths, complete: false),
                try Huffman(lengths: [Int](repeating: 5, count: 30), complete: false))
    }

    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private mutating func dynamicTables() throws -> (Huffman, Huffman) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw Failure.invalidCodeLengths }
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengthLengths[Self.codeLengthOrder[index]] = try bits(3) }
        let codeLengthCode = try Huffman(lengths: codeLengthLengths, complete: true)

        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try decode(codeLengthCode)
            switch symbol {
            case 0..<16:
                lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw Failure.invalidCodeLengths }
                lengths.append(contentsOf: repeatElement(previous, count: 3 + (try bits(2))))
            case 17:
                lengths.append(contentsOf: repeatElement(0, count: 3 + (try bits(3))))
            default:
                lengths.append(contentsOf: repeatElement(0, count: 11 + (try bits(7))))
            }
        }
        guard lengths.count == literalCount + distanceCount, lengths[256] != 0 else { throw Failure.invalidCodeLengths }
        let literal = try Huffman(lengths: Array(lengths[0..<literalCount]), complete: false)
        let distance = try Huffman(lengths: Array(lengths[literalCount...]), complete: false)
        return (literal, distance)
    }
}
