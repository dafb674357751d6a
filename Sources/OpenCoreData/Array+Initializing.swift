extension Array {
    /// An array of `count` elements that `initialize` puts in place from the first element's
    /// address: `init(unsafeUninitializedCapacity:initializingWith:)` for code that fills every
    /// place, except that no elements give `[]` without calling `initialize`.
    ///
    /// The standard library's initializer stores the count even when it is zero, and an empty
    /// array's storage is one global shared by every empty array in the process: ThreadSanitizer
    /// reports that store as a race with any other thread reading an empty array's count.
    init(count: Int, initializingFrom initialize: (UnsafeMutablePointer<Element>) throws -> Void) rethrows {
        guard count > 0 else {
            self = []
            return
        }
        try self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            // A capacity above zero has an address.
            guard let base = buffer.baseAddress else { return }
            try initialize(base)
            initialized = count
        }
    }
}
