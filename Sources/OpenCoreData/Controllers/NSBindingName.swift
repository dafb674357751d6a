import Foundation

/// The name of a controller binding, as AppKit's `NSBindingName`.
///
/// Differs from AppKit: only the content bindings of ``NSObjectController`` and its subclasses
/// exist (``NSObjectController/bind(_:to:withKeyPath:options:)``); there are no views to bind.
public struct NSBindingName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The content object of an ``NSObjectController``.
    public static let contentObject = NSBindingName("contentObject")
    /// The content of an ``NSArrayController`` as an array (an ordered to-many relationship or
    /// an array-valued key path).
    public static let contentArray = NSBindingName("contentArray")
    /// The content of an ``NSArrayController`` or ``NSTreeController`` as a set (an unordered
    /// to-many relationship).
    public static let contentSet = NSBindingName("contentSet")
}

/// An option of a controller binding, as AppKit's `NSBindingOption`.
public struct NSBindingOption: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// With `true`, objects removed from content bound to a relationship are also deleted from
    /// their context (AppKit's "Deletes Objects On Remove"); by default they only leave the
    /// relationship.
    public static let deletesObjectsOnRemove = NSBindingOption("NSDeletesObjectsOnRemove")
}

/// The values a controller's ``NSObjectController/selection`` answers when it cannot answer
/// with one value, as AppKit's markers.
public final class NSBindingSelectionMarker: NSObject, Sendable {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The selected objects have different values for the key.
    public static let multipleValues = NSBindingSelectionMarker("NSMultipleValuesMarker")
    /// Nothing is selected.
    public static let noSelection = NSBindingSelectionMarker("NSNoSelectionMarker")
    /// The selected object has no such key.
    public static let notApplicable = NSBindingSelectionMarker("NSNotApplicableMarker")

    public override var description: String { name }

    /// Whether `value` is one of the markers.
    public static func isSelectionMarker(_ value: Any?) -> Bool { value is NSBindingSelectionMarker }
}

/// AppKit's marker for a selection whose objects have different values.
public let NSMultipleValuesMarker = NSBindingSelectionMarker.multipleValues
/// AppKit's marker for an empty selection.
public let NSNoSelectionMarker = NSBindingSelectionMarker.noSelection
/// AppKit's marker for a key the selection does not have.
public let NSNotApplicableMarker = NSBindingSelectionMarker.notApplicable
