import Foundation
import Logging

/// The one way every store turns a Transformable attribute's value into the `Data` it stores and
/// back, through the attribute's value transformer.
///
/// - No `valueTransformerName`: ``NSSecureUnarchiveFromDataTransformer`` (the transformer
///   registered under `NSSecureUnarchiveFromData`), Apple's default since 2019.
/// - A name: the transformer registered under it. Apple's direction applies: for the unarchiving
///   transformers (``NSSecureUnarchiveFromDataTransformer`` and its subclasses,
///   `NSKeyedUnarchiveFromData`, `NSUnarchiveFromData`), `reverseTransformedValue(_:)` archives the
///   value into `Data` and `transformedValue(_:)` unarchives it; for any other transformer,
///   `transformedValue(_:)` turns the value into `Data` and `reverseTransformedValue(_:)` turns the
///   `Data` back (called even when `allowsReverseTransformation()` is false, as Apple's Core Data
///   does, so that a subclass overriding it works).
///
/// Saving a value that can't be transformed, or naming a transformer that is not registered,
/// throws ``TransformableValueError`` naming the entity, attribute and transformer. Reading never
/// fails a store: stored `Data` that can't be turned back comes back as the `Data` itself, with a
/// warning logged (label `OpenCoreData.Transformable`) saying why. Differs from Apple, which
/// logs and returns `nil`: the bytes stay available (`coredata store dump` shows them).
package enum TransformableValueCoding {
    /// The `Data` to store for `value` of the attribute `attribute` (`Entity.attribute`, for errors).
    package static func storedData(_ value: Any, attribute: String, transformerName: String?) throws -> Data {
        let (transformer, name, unarchives) = try resolve(transformerName, attribute: attribute)
        do {
            if unarchives {
                #if !canImport(Darwin)
                if let secure = transformer as? NSSecureUnarchiveFromDataTransformer { return try secure.archivedData(of: value) }
                #endif
                guard let data = transformer.reverseTransformedValue(value) as? Data else {
                    throw TransformableValueError("it did not archive the value into Data")
                }
                return data
            }
            guard let data = transformer.transformedValue(value) as? Data else {
                throw TransformableValueError("it did not turn the value into Data")
            }
            return data
        } catch let error as TransformableValueError {
            throw TransformableValueError(
                "Can't store the value (\(type(of: value))) of transformable attribute '\(attribute)' with value transformer '\(name)': \(error.description)")
        }
    }

    /// The attribute value that `data` stores; throws ``TransformableValueError`` saying why not.
    static func decodedValue(_ data: Data, attribute: String, transformerName: String?) throws -> Any {
        let (transformer, name, unarchives) = try resolve(transformerName, attribute: attribute)
        do {
            if unarchives {
                #if !canImport(Darwin)
                if let secure = transformer as? NSSecureUnarchiveFromDataTransformer { return try secure.unarchivedValue(from: data) }
                #endif
                guard let value = transformer.transformedValue(data) else { throw TransformableValueError("it returned nil") }
                return value
            }
            // Called whatever allowsReverseTransformation() says, as Apple's Core Data does: a
            // subclass that overrides reverseTransformedValue(_:) reverses.
            guard let value = transformer.reverseTransformedValue(data) else {
                let reason = type(of: transformer).allowsReverseTransformation() ? "it returned nil"
                    : "it returned nil (it does not allow reverse transformation)"
                throw TransformableValueError(reason)
            }
            return value
        } catch let error as TransformableValueError {
            throw TransformableValueError(
                "Can't read the stored value of transformable attribute '\(attribute)' with value transformer '\(name)': \(error.description)")
        }
    }

    /// The attribute value that `data` stores, or `data` itself (with a logged warning) when it
    /// can't be turned back: what the stores load.
    package static func loadedValue(_ data: Data, attribute: String, transformerName: String?) -> Any {
        do {
            return try decodedValue(data, attribute: attribute, transformerName: transformerName)
        } catch {
            logger.warning("\(String(describing: error)); the attribute keeps the stored \(data.count) bytes")
            return data
        }
    }

    /// `Entity.attribute`, for messages.
    package static func label(_ attribute: NSAttributeDescription) -> String {
        "\(attribute.entity?.name ?? "?").\(attribute.name)"
    }

    /// Calls `body` with each persistent Transformable attribute of `snapshot`'s entity that holds
    /// a value (not nil, not `NSNull`), and that value.
    static func forEachValue(in snapshot: ObjectSnapshot, _ body: (NSAttributeDescription, Any) throws -> Void) rethrows {
        for attribute in snapshot.objectID.entity.attributesByName.values
        where attribute.attributeType == .transformableAttributeType && !attribute.isTransient {
            guard let value = ValueComparison.unwrap(snapshot[attribute.name]), !ValueComparison.isNSNull(value) else { continue }
            try body(attribute, value)
        }
    }

    private static let logger = Logger(label: "OpenCoreData.Transformable")

    /// The names of Apple's unarchiving transformers, whose forward direction turns Data into the value.
    private static let unarchivingNames: Set<String> = [
        NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue,
        NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue,
        NSValueTransformerName.unarchiveFromDataTransformerName.rawValue,
    ]

    /// Spellings real models use for the built-in transformers (the class name, the Swift
    /// constant's name), meaning them unless a transformer is registered under that spelling.
    private static let builtInAliases: [String: String] = [
        "NSSecureUnarchiveFromDataTransformer": NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue,
        "NSSecureUnarchiveFromDataTransformerName": NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue,
        "secureUnarchiveFromDataTransformerName": NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue,
        "NSKeyedUnarchiveFromDataTransformerName": NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue,
        "keyedUnarchiveFromDataTransformerName": NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue,
    ]

    private static func resolve(_ transformerName: String?, attribute: String) throws -> (ValueTransformer, String, unarchives: Bool) {
        let name = transformerName.flatMap { $0.isEmpty ? nil : $0 } ?? NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue
        guard let transformer = ValueTransformer.named(name) ?? builtInAliases[name].flatMap(ValueTransformer.named) else {
            throw TransformableValueError(
                "Transformable attribute '\(attribute)' names value transformer '\(name)', which is not registered; register it with ValueTransformer.setValueTransformer(_:forName:) before using the store")
        }
        return (transformer, name, transformer is NSSecureUnarchiveFromDataTransformer || unarchivingNames.contains(builtInAliases[name] ?? name))
    }
}

extension NSAttributeDescription {
    /// The value that `data`, as a store holds it, stands for: `data` turned back through the
    /// attribute's value transformer, as the stores do. Throws an error saying why it can't be
    /// (the transformer is not registered, the data is not an archive of allowed classes…).
    ///
    /// OpenCoreData addition (Apple has no public equivalent), used by `coredata store dump`.
    public func transformableValue(fromStoredData data: Data) throws -> Any {
        try TransformableValueCoding.decodedValue(data, attribute: TransformableValueCoding.label(self),
                                                  transformerName: valueTransformerName)
    }
}
