/// Why a managed object model could not be read, built or changed.
///
/// Not in Apple's API: where Core Data raises an exception (a mutation of a model in use, an
/// overridden property) or returns `nil` without a reason (an unreadable model file), OpenCoreData
/// throws this error from its throwing entry points, such as
/// ``NSManagedObjectModel/load(contentsOf:)`` and ``NSManagedObjectModel/ensureEditable()``.
public struct ManagedObjectModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem.
    public enum Kind: String, Sendable, Equatable {
        /// The model is used by a coordinator and can no longer change.
        case immutableModel
        /// A fetch request template of an immutable model was changed in place.
        case immutableFetchRequest
        /// A subentity declares a property its superentity already has.
        case propertyOverride
        /// Two merged models define an entity with the same name.
        case mergeConflict
        /// A name refers to an entity, property or relationship the model does not have.
        case missingReference
        /// The file or folder does not exist or cannot be read.
        case unreadableFile
        /// The file is not well-formed XML, or not the XML of a Core Data model.
        case malformedXML
        /// An element carries a value that cannot be understood (an unknown attribute type,
        /// a predicate that does not parse).
        case invalidValue
        /// An `.xcdatamodeld` folder whose `.xccurrentversion` is missing, unreadable, or names
        /// a version the folder does not hold.
        case badCurrentVersion
        /// A compiled model file of ours that is damaged or of an unknown format version.
        case invalidCompiledModel
        /// A path of a kind no model reader accepts.
        case unsupportedFormat
    }

    /// The kind of problem.
    public let kind: Kind
    /// What went wrong, in words (Apple's message where Apple has one).
    public let message: String
    /// The file being read, if any.
    public let file: URL?
    /// The element being read (e.g. `relationship 'owner' of entity 'Car'`), if any.
    public let element: String?

    /// Creates an error of `kind` with a message, optionally located in a file and element.
    public init(_ kind: Kind, _ message: String, file: URL? = nil, element: String? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.element = element
    }

    /// `file: element: message`, leaving out the parts that are absent.
    public var description: String {
        var parts: [String] = []
        if let file { parts.append(file.path) }
        if let element { parts.append(element) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }

    /// The same error, located in `file` (when it has no file yet).
    func located(in file: URL) -> ManagedObjectModelError {
        self.file == nil ? ManagedObjectModelError(kind, message, file: file, element: element) : self
    }

    static let immutableModelMessage = "Can't modify an immutable model."
    static let immutableFetchRequestMessage = "Can't modify a named fetch request in an immutable model"
}
