/// Makes a stored-looking property of an `NSManagedObject` subclass read and write the object's
/// value for the property's name, as `@NSManaged` does on Apple platforms.
///
/// ```swift
/// final class Run: NSManagedObject {
///     @Managed var date: Date
///     @Managed var processID: Int32
/// }
/// final class ClassEntity: NSManagedObject {
///     @Managed var name: String?
///     @Managed var monitor: StudentEntity?
///     @Managed(toManyAccessors: true) var students: Set<StudentEntity>
/// }
/// ```
/// The getter calls ``NSManagedObject/managedValue(forKey:as:)`` and the setter
/// ``NSManagedObject/setManagedValue(_:forKey:)``, which go through `value(forKey:)` and
/// `setValue(_:forKey:)`: faults fire, changes are tracked and inverse relationships are
/// maintained exactly as for key-value coding.
/// - Numbers are converted across widths exactly (a store may hand back `Int64` for an
///   Integer 32 attribute).
/// - An optional property reads `nil` for a missing value; a non-optional property traps with a
///   message naming the entity and key when the value is `nil` (declare it optional if it may be).
/// - A to-many relationship is read as `Set<Element>` (any `NSManagedObject` subclass as element)
///   or as `NSOrderedSet` for an ordered one.
/// - `toManyAccessors: true` (on a `Set` or `NSOrderedSet` property named, say, `students`) also
///   generates Xcode's to-many accessors `addStudentsObject(_:)`, `removeStudentsObject(_:)`,
///   `addStudents(_:)` and `removeStudents(_:)`. Leave it off to write them yourself, for example
///   on top of `mutableSetValue(forKey:)`.
///
/// `NSManagedObject` is not `Sendable`, as on Apple platforms: objects stay with their context,
/// and their `objectID` (which is `Sendable`) is what crosses threads.
///
/// Differs from Apple: `@NSManaged` needs the Objective-C runtime and fails to link on Linux;
/// `@Managed` is a Swift macro and works everywhere. The property must be a `var` with an explicit
/// type and no initial value (give defaults in the model or in `awakeFromInsert()`).
@attached(accessor)
@attached(peer, names: arbitrary)
public macro Managed(toManyAccessors: Bool = false) = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")
