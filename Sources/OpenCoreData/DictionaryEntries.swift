/// The entries of a `[String: Any]` read where the dictionary keeps them, without copying keys
/// and values out.
///
/// `for (key, value) in dictionary` copies each key (a retain of its storage word) and each
/// value (a call through its type's value witnesses), then destroys both: about 120
/// instructions an entry, most of a batch insert's own cost per row (W9). ``forEach(in:_:)``
/// hands out pointers to them instead.
///
/// A native Swift dictionary keeps its entries in one object, the standard library's
/// `__RawDictionaryStorage` (`@_fixed_layout`: part of Swift's stable ABI on Apple platforms,
/// and the same code on Linux): the object header, then `_count`, `_capacity`, `_scale` (with
/// three smaller fields in its word), `_seed`, `_rawKeys` and `_rawValues`, each a word, then
/// the occupancy bitmap, one bit per bucket, followed by the keys and then the values, each an
/// array indexed by bucket. Before reading a dictionary this way, its header must agree with
/// that layout: its count, the bitmap's population, and key and value arrays exactly where the
/// layout puts them for its bucket count. The layout is also checked once per process against a
/// dictionary read the ordinary way (``layoutMatches``). Where either check fails, the entries
/// are read the ordinary way, so a different standard library costs speed, never correctness.
enum DictionaryEntries {
    /// Calls `body` with a pointer to each key and its value, in the dictionary's order. The
    /// pointers are valid only during the call.
    @inline(__always)
    static func forEach(in dictionary: [String: Any],
                        _ body: (UnsafePointer<String>, UnsafePointer<Any>) throws -> Void) rethrows {
        if dictionary.isEmpty { return }
        if layoutMatches, let storage = storage(of: dictionary) {
            try withExtendedLifetime(dictionary) { try visit(storage, body) }
            return
        }
        for (key, value) in dictionary {
            try withUnsafePointer(to: key) { key in try withUnsafePointer(to: value) { value in try body(key, value) } }
        }
    }

    /// Calls `body` with each occupied bucket's key and value, in bucket order.
    @inline(__always)
    private static func visit(_ storage: Storage, _ body: (UnsafePointer<String>, UnsafePointer<Any>) throws -> Void) rethrows {
        let keys = storage.keys.assumingMemoryBound(to: String.self)
        let values = storage.values.assumingMemoryBound(to: Any.self)
        for wordIndex in 0..<storage.wordCount {
            var word = storage.bitmap.load(fromByteOffset: wordIndex * 8, as: UInt64.self) & storage.mask(wordIndex)
            while word != 0 {
                let bucket = wordIndex * 64 + word.trailingZeroBitCount
                word &= word - 1
                try body(keys + bucket, values + bucket)
            }
        }
    }

    /// Where a dictionary's storage keeps its bitmap, keys and values.
    private struct Storage {
        let bitmap: UnsafeRawPointer
        let keys: UnsafeRawPointer
        let values: UnsafeRawPointer
        let bucketCount: Int
        var wordCount: Int { (bucketCount + 63) / 64 }

        /// The bits of bitmap word `index` that stand for buckets (all 64 but in a short last word).
        @inline(__always)
        func mask(_ index: Int) -> UInt64 {
            let used = bucketCount - index * 64
            return used >= 64 ? ~0 : (1 << UInt64(used)) &- 1
        }
    }

    /// Word offsets in `__RawDictionaryStorage`, after the two-word object header.
    private static let countOffset = 2, scaleOffset = 4, keysOffset = 6, valuesOffset = 7, bitmapOffset = 8

    /// The storage of a non-empty native `dictionary`, when its header agrees with the layout
    /// described above; nil otherwise.
    @inline(__always)
    private static func storage(of dictionary: [String: Any]) -> Storage? {
        #if _runtime(_ObjC)
        // A dictionary may be an Objective-C one, bridged.
        return nil
        #else
        let word = MemoryLayout<Int>.size
        guard MemoryLayout<[String: Any]>.size == word, word == 8, MemoryLayout<String>.stride == 16,
              MemoryLayout<String>.alignment <= word, MemoryLayout<Any>.stride == 32, MemoryLayout<Any>.alignment <= word else { return nil }
        let object = unsafeBitCast(dictionary, to: UnsafeRawPointer.self)
        let count = object.load(fromByteOffset: countOffset * word, as: Int.self)
        let scale = Int(object.load(fromByteOffset: scaleOffset * word, as: Int8.self))
        guard count == dictionary.count, (0...40).contains(scale) else { return nil }
        let bucketCount = 1 << scale
        guard bucketCount >= count else { return nil }
        let bitmap = object + bitmapOffset * word
        let wordCount = (bucketCount + 63) / 64
        let keys = bitmap + wordCount * word
        let values = keys + bucketCount * MemoryLayout<String>.stride
        guard object.load(fromByteOffset: keysOffset * word, as: UnsafeRawPointer.self) == keys,
              object.load(fromByteOffset: valuesOffset * word, as: UnsafeRawPointer.self) == values else { return nil }
        let storage = Storage(bitmap: bitmap, keys: keys, values: values, bucketCount: bucketCount)
        var occupied = 0
        for index in 0..<wordCount {
            occupied += (bitmap.load(fromByteOffset: index * word, as: UInt64.self) & storage.mask(index)).nonzeroBitCount
        }
        return occupied == count ? storage : nil
        #endif
    }

    /// Whether dictionaries read in place give exactly what ordinary iteration gives: checked
    /// once, on dictionaries of small and large keys, inline and boxed values, and several
    /// bucket counts.
    static let layoutMatches: Bool = {
        for size in [1, 3, 7, 12, 40, 100] {
            var dictionary: [String: Any] = [:]
            for index in 0..<size {
                let key = index % 2 == 0 ? "k\(index)" : "a key long enough to be stored apart from its string, \(index)"
                dictionary[key] = index % 3 == 0 ? Int64(index) as Any : "value \(index)" as Any
            }
            guard let storage = storage(of: dictionary) else { return false }
            var expected: [String: String] = [:]
            for (key, value) in dictionary { expected[key] = "\(value)" }
            var seen: [String: String] = [:]
            withExtendedLifetime(dictionary) {
                visit(storage) { key, value in seen[key.pointee] = "\(value.pointee)" }
            }
            guard seen == expected, seen.count == size else { return false }
        }
        return true
    }()
}
