import Foundation

/// The methods `FUNCTION(receiver, 'selector', arguments…)` may call on receivers of a given
/// type, registered by Swift code.
///
/// Apple's `FUNCTION` sends the selector to the receiver through the Objective-C runtime, so
/// any method of a managed object subclass (or of any class) can be called. Swift on Linux has
/// no such runtime; a type either adopts ``PredicateFunctionTarget``, or its methods are
/// registered here, which also works for types you do not own:
///
/// ```swift
/// PredicateFunctionRegistry.register("fullNameWithTitle:", on: Person.self) { person, arguments in
///     "\(arguments.first as? String ?? "") \(person.name ?? "")"
/// }
/// let predicate = NSPredicate(format: "FUNCTION(SELF, 'fullNameWithTitle:', 'Dr') == 'Dr Ada'")
/// ```
///
/// - The body gets the receiver, typed, and the evaluated arguments (nil for a nil argument).
/// - A registration applies to the type and, for classes, its subclasses; when several
///   registrations of a selector match a receiver, the latest wins, so a subclass can refine a
///   method registered on its superclass by registering after it.
/// - Lookups and registrations may happen on any thread: the table is behind a lock, and a body
///   runs outside it.
/// - A ``PredicateFunctionTarget`` receiver that answers the selector is asked first; the built-in
///   selectors of `BuiltinFunctions/perform(_:on:arguments:)` come after the registry, so a
///   registration can also replace one of them for its type.
public enum PredicateFunctionRegistry {
    /// The body of a registered method, taking the receiver untyped.
    typealias Body = @Sendable (Any, [Any?]) throws -> Any?

    /// Registers `body` as the method `selector` (for example `"distanceTo:"` or `"displayName"`)
    /// of receivers of type `type`.
    public static func register<Receiver>(
        _ selector: String, on type: Receiver.Type,
        _ body: @escaping @Sendable (Receiver, [Any?]) throws -> Any?
    ) {
        let entry = Entry(
            type: ObjectIdentifier(type),
            matches: { $0 is Receiver },
            body: { receiver, arguments in
                guard let typed = receiver as? Receiver else { return nil }
                return try body(typed, arguments)
            })
        table.withLock { $0[selector, default: []].removeAll { $0.type == entry.type }; $0[selector, default: []].append(entry) }
    }

    /// Removes the registration of `selector` on exactly `type` (not its subclasses').
    public static func unregister<Receiver>(_ selector: String, on type: Receiver.Type) {
        let identifier = ObjectIdentifier(type)
        table.withLock { $0[selector]?.removeAll { $0.type == identifier } }
    }

    /// The registered body for `selector` that applies to `receiver`, or nil.
    static func body(for selector: String, receiver: Any) -> Body? {
        let entries = table.withLock { $0[selector] ?? [] }
        return entries.last { $0.matches(receiver) }?.body
    }

    struct Entry: Sendable {
        let type: ObjectIdentifier
        let matches: @Sendable (Any) -> Bool
        let body: Body
    }

    /// The registrations by selector.
    private static let table = Locked<[String: [Entry]]>([:])
}
