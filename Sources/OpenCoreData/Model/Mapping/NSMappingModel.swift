import Foundation

/// How the instances of a source model become instances of a destination model: a list of
/// entity mappings.
///
/// Mapping models are read from the `.xcmappingmodel` folders Xcode writes and from the compiled
/// `.cdm` files, or inferred from two models.
open class NSMappingModel: NSObject, @unchecked Sendable {
    // @unchecked Sendable: like Apple's, a mapping model is configured before a migration starts and
    // only read while it runs, from the one thread that runs the migration.

    /// The entity mappings, in the order a migration applies them.
    open var entityMappings: [NSEntityMapping]! = []

    /// The entity mappings keyed by name.
    open var entityMappingsByName: [String: NSEntityMapping] {
        var byName: [String: NSEntityMapping] = [:]
        for mapping in entityMappings ?? [] {
            if let name = mapping.name { byName[name] = mapping }
        }
        return byName
    }

    /// Creates an empty mapping model.
    public override init() {
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSMappingModel else { return false }
        return (entityMappings ?? []) == (other.entityMappings ?? [])
    }

    open override var hash: Int { entityMappings?.count ?? 0 }

    open override var description: String {
        "(NSMappingModel) " + (entityMappings ?? []).map(\.description).joined(separator: "; ")
    }
}
