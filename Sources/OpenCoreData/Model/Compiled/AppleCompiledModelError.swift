import Foundation

/// A compiled model written by Apple's tools (`.mom` file or `.momd` folder) that cannot be read,
/// with the file and the element (entity, property, fetch request…) where reading stopped.
public struct AppleCompiledModelError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// The file is not a keyed archive (the underlying decoding error's description).
        case notAnArchive(String)
        /// The archive's root object is not an `NSManagedObjectModel` (its class name).
        case notAModel(String?)
        /// A `.momd` folder without a readable `VersionInfo.plist`, or one naming no model.
        case missingVersionInfo(String)
        /// The `.mom` file a `.momd` folder's version info names does not exist.
        case missingVersion(String)
        /// A required coded field is absent or of the wrong kind.
        case missingField(String)
        /// A reference to an entity the model does not contain.
        case unknownEntity(String)
        /// An archived predicate or expression this reader does not rebuild (its class name).
        case unsupportedPredicate(String)
        /// A value the model rejects (its message).
        case invalidValue(String)
    }

    /// The `.mom` file or `.momd` folder.
    public let file: URL
    /// Where in the model: "entity Car", "property Car.owner", "fetch request allCars", or `nil`.
    public let element: String?
    public let reason: Reason

    public init(file: URL, element: String? = nil, reason: Reason) {
        self.file = file
        self.element = element
        self.reason = reason
    }

    public var description: String {
        let place = file.path + (element.map { " (\($0))" } ?? "")
        switch reason {
        case .notAnArchive(let detail): return "\(place): not a compiled Core Data model: \(detail)"
        case .notAModel(let className):
            return "\(place): the archive holds \(className ?? "no object"), not an NSManagedObjectModel"
        case .missingVersionInfo(let detail): return "\(place): \(detail)"
        case .missingVersion(let name): return "\(place): the model version \"\(name)\" has no .mom file"
        case .missingField(let key): return "\(place): missing or malformed \(key)"
        case .unknownEntity(let name): return "\(place): no entity named \"\(name)\""
        case .unsupportedPredicate(let className): return "\(place): cannot read an archived \(className)"
        case .invalidValue(let message): return "\(place): \(message)"
        }
    }
}
