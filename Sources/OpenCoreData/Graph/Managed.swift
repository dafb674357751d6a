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
/// ``NSManagedObject/setManagedValue(_:forKey:)``, which read and write the stored value between
/// the access and change hooks, as Apple's generated accessors do (not through overrides of
/// `value(forKey:)` or `setValue(_:forKey:)`): faults fire, changes are tracked and undoable,
/// and inverse relationships are maintained exactly as for key-value coding.
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
/// - Xcode's generated to-many accessor functions (`addToPages(_:)`, …) take
///   ``ManagedAccessor()`` instead.
/// - Key paths to `@Managed` properties work where Core Data takes them
///   (`NSSortDescriptor(keyPath: \Book.title, ascending: true)`, `NSExpression(forKeyPath:)`).
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

/// Writes the body of one of Xcode's generated to-many accessors: what `@NSManaged` does on a
/// body-less `func addToPages(_ value: Page)` on Apple platforms.
///
/// ```swift
/// extension Book {
///     @ManagedAccessor public func addToPages(_ value: Page)
///     @ManagedAccessor public func removeFromPages(_ values: NSSet)
///     @ManagedAccessor public func insertIntoChapters(_ value: Chapter, at idx: Int)
/// }
/// ```
/// The operation comes from the name's prefix (`addTo`, `removeFrom`, `insertInto`, `replace`)
/// and the parameters (one object or a collection; an `Int` index or an `NSIndexSet`); the rest
/// of the name is the relationship (`Pages` finds `pages`). The body calls
/// ``NSManagedObject/performToManyAccessor(_:relationship:)``.
///
/// Differs from Apple: a macro name of its own rather than `@Managed`, because Swift refuses a
/// macro whose roles do not all apply to the declaration (a function body role on a property,
/// an accessor role on a function), and an attached macro is chosen by its arguments, not by
/// what it is attached to. Porting a generated file is still one word per line: `@NSManaged`
/// becomes `@Managed` on properties and `@ManagedAccessor` on these functions; delete the
/// `@objc(addPagesObject:)` line above each (Linux has no Objective-C selectors).
@attached(body)
public macro ManagedAccessor() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedAccessorMacro")
