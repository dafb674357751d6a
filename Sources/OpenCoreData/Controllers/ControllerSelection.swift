import Foundation

/// A controller's ``NSObjectController/selection``: the selected objects answering keys as one.
///
/// As AppKit's selection proxy: with one selected object a key reads that object's value; with
/// none, ``NSBindingSelectionMarker/noSelection``; with several, their common value, or
/// ``NSBindingSelectionMarker/multipleValues`` when they differ (always, when the controller's
/// `alwaysUsesMultipleValuesMarker` is set); a key the objects don't have reads
/// ``NSBindingSelectionMarker/notApplicable``. Setting a value sets it on every selected object.
///
/// Differs from AppKit: a value of its own type rather than a proxy `Any`, read with
/// `value(forKey:)`/`value(forKeyPath:)` or ``KeyValueAccess``.
public struct ControllerSelection: KeyValueCoding {
    /// The selected objects, in selection order.
    public let objects: [Any]
    let alwaysUsesMultipleValuesMarker: Bool

    init(objects: [Any], alwaysUsesMultipleValuesMarker: Bool = false) {
        self.objects = objects
        self.alwaysUsesMultipleValuesMarker = alwaysUsesMultipleValuesMarker
    }

    /// The single selected object, or nil when there are none or several.
    public var object: Any? { objects.count == 1 ? objects[0] : nil }

    public func value(forKey key: String) -> Any? {
        guard !objects.isEmpty else { return NSBindingSelectionMarker.noSelection }
        var values: [Any?] = []
        for object in objects {
            do {
                values.append(try KeyValueAccess.value(forKey: key, of: object))
            } catch {
                return NSBindingSelectionMarker.notApplicable
            }
        }
        if values.count == 1 { return values[0] }
        if alwaysUsesMultipleValuesMarker { return NSBindingSelectionMarker.multipleValues }
        let first = values[0]
        for value in values.dropFirst() where !ValueComparison.isEqualConstant(first, value) {
            return NSBindingSelectionMarker.multipleValues
        }
        return first
    }

    /// The value at `keyPath`: its first key is read as ``value(forKey:)`` reads it, the rest
    /// on that value (a marker stays a marker).
    public func value(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        let first = value(forKey: String(keyPath[..<dot]))
        if first is NSBindingSelectionMarker { return first }
        return try? KeyValueAccess.value(forKeyPath: String(keyPath[keyPath.index(after: dot)...]), of: first)
    }

    /// Sets `value` for `key` on every selected object (a managed object through
    /// `setValue(_:forKey:)`, which traps on a key its entity doesn't have, as Apple's does).
    public func setValue(_ value: Any?, forKey key: String) {
        for object in objects {
            if let managed = object as? NSManagedObject {
                managed.setValue(value, forKey: key)
            } else if let dictionary = object as? NSMutableDictionary {
                dictionary[key] = value
            }
        }
    }
}
