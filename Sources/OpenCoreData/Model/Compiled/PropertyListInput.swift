import Foundation

/// The one way a property list from outside (a file, a store, an archive) is read.
///
/// Binary property lists go to ``BinaryPropertyListReader``, because swift-corelibs-foundation's
/// `PropertyListSerialization` can crash on crafted ones; XML and OpenStep property lists go to
/// `PropertyListSerialization`, which throws on malformed ones. The result has
/// `PropertyListSerialization`'s shapes either way.
package enum PropertyListInput {
    /// The property list in `data`. Throws ``BinaryPropertyListError`` for a bad binary property
    /// list, `PropertyListSerialization`'s error for a bad text one.
    package static func propertyList(from data: Data) throws -> Any {
        if BinaryPropertyListReader.isBinaryPropertyList(data) {
            return try BinaryPropertyListReader.propertyList(from: data)
        }
        return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }
}
