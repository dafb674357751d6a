extension Array {
    /// An array of `count` elements that `initialize` puts in place from the first element's
    /// address: `init(unsafeUninitializedCapacity:initializingWith:)` for code that fills every
    /// place, except that no elements give `[]` without calling `initialize`.
    ///
    /// The standard library's initializer stores the count even when it is zero, and an empty
    /// array's storage is one global shared by every empty array in the process: ThreadSanitizer
    /// reports that store as a race with any other thread reading an empty array's count.
    init(count: Int, initializingFrom initialize: (UnsafeMutablePointer<Element>) -> Void) {
        precondition(count >= 0, "Array(count:initializingFrom:): negative count \(count)")
        guard count > 0 else {
            self = []
            return
        }
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            // A capacity above zero has an address.
            guard let base = buffer.baseAddress else { return }
            initialize(base)
            initialized = count
        }
    }
}
