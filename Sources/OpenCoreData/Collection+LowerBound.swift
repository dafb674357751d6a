extension RandomAccessCollection {
    /// The first index whose element is not `isBelow` the value looked for, in a collection
    /// partitioned by it (all elements below first): a binary search, `endIndex` when every
    /// element is below.
    package func lowerBound(where isBelow: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex, count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try isBelow(self[middle]) {
                low = index(after: middle)
                count -= half + 1
            } else {
                count = half
            }
        }
        return low
    }
}
