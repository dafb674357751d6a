import Foundation
import GRDB

extension SQLiteValueCoding {
    /// Apple's column form of an attribute that allows external binary data storage
    /// (`allowsExternalBinaryDataStorage`), for binary and transformable attributes.
    ///
    /// The column is a blob whose first byte says where the bytes are:
    /// - `0x01`: the bytes follow, in the column;
    /// - `0x02`: the name of a file follows (a UUID string, as its file-system representation,
    ///   ended by a NUL byte), in `.<store name>_SUPPORT/_EXTERNAL_DATA/` next to the store
    ///   (``SQLiteStore/externalDataDirectory``); the file holds the bytes as they are.
    ///
    /// Sources: Core Data's `_PFExternalReferenceData` (`initForExternalLocation:…` writes
    /// `0x01` + bytes, or `0x02` + file name + NUL; `initWithStoreBytes:…` reads them back),
    /// `NSSQLiteConnection`'s row decoding (a first byte of 2 names a file under
    /// `externalDataReferencesDirectory`; 3 is a trap), and `NSSQLCore._supportDirectoryPath`
    /// (`.` + the store's name + `_SUPPORT`, then `_EXTERNAL_DATA`), as shown by decompilations
    /// of CoreData.framework in public repositories; the folder name is also confirmed by
    /// bluecrowbar.com (2011) and public apps that read it (`.Amperfy_SUPPORT/_EXTERNAL_DATA`
    /// for `Amperfy.sqlite`). Apple's save plan moves a value to a file when it is longer than
    /// 128 KiB (`0x20000` bytes; values up to that length stay in the column).
    ///
    /// Differs from Apple: we always write the bytes in the column (`0x01`), whatever their
    /// length — Apple's Core Data reads that form at any length — so a store we write never
    /// gains files. A value whose file is missing reads as `nil`, with a warning on standard
    /// error naming the file, where Apple raises an exception ("External data reference can't
    /// find underlying file."). A blob without a marker byte
    /// we know (Apple traps on `0x03`) is returned as it is.
    enum ExternalData {
        /// The marker of bytes stored in the column.
        static let inlineMarker: UInt8 = 0x01
        /// The marker of bytes stored in a file.
        static let fileMarker: UInt8 = 0x02
        /// Apple's limit: longer values are written to a file by Apple's Core Data.
        static let appleFileThreshold = 0x20000

        /// `value` (the attribute's plain column value) in the column form: a blob gets the
        /// `0x01` marker; NULL stays NULL.
        static func inline(_ value: DatabaseValue) -> DatabaseValue {
            guard case .blob(let data) = value.storage else { return value }
            var stored = Data(capacity: data.count + 1)
            stored.append(inlineMarker)
            stored.append(data)
            return stored.databaseValue
        }

        /// The bytes of a stored blob: what follows a `0x01` marker, the contents of the file a
        /// `0x02` marker names in `directory` (`nil` when it can't be read), or the blob itself
        /// when it has no marker we know (an empty blob included).
        static func bytes(_ stored: Data, directory: URL?) -> Data? {
            guard let marker = stored.first else { return stored }
            switch marker {
            case inlineMarker:
                return Data(stored.dropFirst())
            case fileMarker:
                guard let name = fileName(stored), let directory else { return nil }
                let file = directory.appendingPathComponent(name)
                guard let data = try? Data(contentsOf: file) else {
                    FileHandle.standardError.write(Data(
                        "CoreData: warning: External data reference can't find underlying file \(file.path); the value reads as nil.\n".utf8))
                    return nil
                }
                return data
            default:
                return stored
            }
        }

        /// The file name of a `0x02` blob: the bytes after the marker up to the first NUL, when
        /// they are a plain file name (no path separators).
        static func fileName(_ stored: Data) -> String? {
            guard stored.first == fileMarker else { return nil }
            let name = String(decoding: stored.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return nil }
            return name
        }
    }
}

extension NSAttributeDescription {
    /// Whether the attribute's column holds Apple's external-data form
    /// (``SQLiteValueCoding/ExternalData``): a binary or transformable attribute that allows
    /// external binary data storage.
    var storesBinaryDataExternally: Bool {
        allowsExternalBinaryDataStorage && (attributeType == .binaryDataAttributeType || attributeType == .transformableAttributeType)
    }
}

extension SQLiteStore {
    /// The folder Apple's Core Data keeps externally stored binary data in:
    /// `.<store file name without its extension>_SUPPORT/_EXTERNAL_DATA` next to the store
    /// (see ``SQLiteValueCoding/ExternalData``). `nil` for a store without a file URL.
    var externalDataDirectory: URL? {
        guard let url, url.isFileURL else { return nil }
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
            .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }
}
