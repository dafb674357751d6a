#if !canImport(ObjectiveC)
/// The name of a method, as Objective-C's `Selector` holds it.
///
/// Linux has no Objective-C runtime and therefore no `Selector` type. This one lets Apple code
/// such as `NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:")`
/// or `Selector("compare:")` compile unchanged. It only carries the name: nothing is sent to
/// objects by it; APIs that take one interpret the names they support.
/// Not declared on Apple platforms, where the runtime's `Selector` is used.
public struct Selector: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The selector's name, e.g. `compare:`.
    let name: String

    /// Creates a selector from its name, e.g. `Selector("compare:")`.
    public init(_ name: String) { self.name = name }

    /// Creates a selector from a string literal, e.g. `"localizedCompare:"`.
    public init(stringLiteral value: String) { self.name = value }

    /// The selector's name.
    public var description: String { name }
}

/// The name of a selector, as Foundation's `NSStringFromSelector`.
public func NSStringFromSelector(_ aSelector: Selector) -> String { aSelector.name }

/// A selector from its name, as Foundation's `NSSelectorFromString`.
public func NSSelectorFromString(_ aSelectorName: String) -> Selector { Selector(aSelectorName) }
#endif
