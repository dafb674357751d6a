import Foundation

/// A position in the persistent history of one or more stores: for each store (by its
/// identifier), the number of the last transaction seen.
///
/// Apple's token is opaque and archived with `NSSecureCoding`; this one is `Codable` (and
/// `Hashable`), so it can be kept in a file or user defaults as JSON. Differs from Apple: no
/// `NSSecureCoding` (Linux's Foundation has no keyed archiver for it).
public final class NSPersistentHistoryToken: NSObject, NSCopying, Codable, @unchecked Sendable {
    /// The last transaction number seen, by store identifier. Immutable.
    public let transactionNumbers: [String: Int64]

    init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? NSPersistentHistoryToken)?.transactionNumbers == transactionNumbers
    }

    public override var hash: Int { transactionNumbers.hashValue }

    public override var description: String {
        "<NSPersistentHistoryToken \(transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))>"
    }
}
