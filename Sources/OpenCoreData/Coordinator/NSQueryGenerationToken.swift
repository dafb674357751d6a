import Foundation

/// A token that names a generation of the persistent stores: what a pinned context reads
/// (``NSManagedObjectContext/queryGenerationToken``), or ``current`` to pin to the newest.
///
/// Tokens are equal when they name the same generation. A token keeps its generation alive:
/// its read connections stay open (and the SQLite WAL can't be checkpointed past them) until
/// no context and no token refers to it any more.
///
/// Differs from Apple: an archived token (`NSSecureCoding`) names its generation only within
/// the process that archived it, while the generation lives; unarchived elsewhere or later,
/// ``NSManagedObjectContext/setQueryGenerationFrom(_:)`` refuses it with an error.
public final class NSQueryGenerationToken: NSObject, NSSecureCoding, NSCopying, Sendable {
    /// A token that informs a context to use the current generation: the context pins itself to
    /// the generation of the stores at its next read.
    public static let current = NSQueryGenerationToken(kind: .current)

    enum Kind: Sendable {
        /// ``current``.
        case current
        /// A generation of this process.
        case generation(QueryGeneration)
        /// An unarchived token's generation, by identifier (it may be gone).
        case archived(UUID)
    }

    let kind: Kind

    init(kind: Kind) {
        self.kind = kind
        super.init()
    }

    /// The generation the token names, when it still exists; `nil` for ``current``.
    var generation: QueryGeneration? {
        switch kind {
        case .current: return nil
        case .generation(let generation): return generation
        case .archived(let identifier): return QueryGeneration.named(identifier)
        }
    }

    private var identifier: UUID? {
        switch kind {
        case .current: return nil
        case .generation(let generation): return generation.identifier
        case .archived(let identifier): return identifier
        }
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        return identifier == other.identifier
    }

    public override var hash: Int { identifier?.hashValue ?? 0 }

    public override var description: String {
        "<NSQueryGenerationToken: \(identifier.map { "generation \($0.uuidString)" } ?? "current")>"
    }

    // MARK: NSCopying, NSSecureCoding

    /// The token itself: tokens are immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    private static let identifierKey = "generation"

    public func encode(with coder: NSCoder) {
        if let identifier { coder.encode(identifier.uuidString as NSString, forKey: Self.identifierKey) }
    }

    public init?(coder: NSCoder) {
        if let text = coder.decodeObject(of: NSString.self, forKey: Self.identifierKey) {
            guard let identifier = UUID(uuidString: text as String) else { return nil }
            kind = .archived(identifier)
        } else {
            kind = .current
        }
        super.init()
    }
}
