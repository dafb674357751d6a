import Foundation

/// Writes ``AtomicStoreContents`` in Apple's XML store format (see ``XMLStore``).
struct XMLStoreWriter {
    let store: XMLStore

    func saveError(_ message: String) -> NSError {
        PersistentStoreErrors.make(NSPersistentStoreSaveError, "Could not write the \(PersistentStoreErrors.name(of: store)): \(message).",
                                   stores: [store], url: store.url)
    }

    func write(_ contents: AtomicStoreContents) throws -> Data {
        var keys: [Int64: NSManagedObjectID] = [:]
        var snapshots: [(Int64, ObjectSnapshot)] = []
        for (_, rows) in contents.rows {
            for (key, snapshot) in rows {
                if let other = keys[key] {
                    throw saveError("objects \(other) and \(snapshot.objectID) would share the id z\(key)")
                }
                keys[key] = snapshot.objectID
                snapshots.append((key, snapshot))
            }
        }
        snapshots.sort { $0.0 < $1.0 }
        let nextObjectID = max(contents.lastPrimaryKeys.values.max() ?? 0, snapshots.last?.0 ?? 0, XMLStore.firstObjectID)
        let uuid = contents.metadata[NSStoreUUIDKey] as? String ?? store.identifier ?? ""

        var out = """
        <?xml version="1.0"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

        <database>
            <databaseInfo>
                <version>\(XMLStore.formatVersion)</version>
                <UUID>\(XMLStoreDocument.escape(uuid))</UUID>
                <nextObjectID>\(nextObjectID)</nextObjectID>
                <metadata>\(try metadataPlist(contents.metadata))</metadata>
            </databaseInfo>

        """
        for (key, snapshot) in snapshots {
            try object(snapshot, key: key, keys: keys, into: &out)
        }
        out += "</database>\n"
        return Data(out.utf8)
    }

    private func object(_ snapshot: ObjectSnapshot, key: Int64, keys: [Int64: NSManagedObjectID], into out: inout String) throws {
        let entity = snapshot.objectID.entity
        out += "    <object type=\"\(XMLStoreDocument.escape((entity.name ?? "").uppercased(), quotes: true))\" id=\"z\(key)\">\n"
        let attributes = entity.attributesByName.values.filter { !$0.isTransient }.sorted { $0.name.lowercased() < $1.name.lowercased() }
        for attribute in attributes {
            guard let value = snapshot.values[attribute.name], !(value is NSNull) else { continue }
            let text: String
            do {
                text = try XMLStoreValueCoding.text(of: value, for: attribute)
            } catch let error as XMLStoreValueError {
                throw saveError("\(snapshot.objectID): \(error.description)")
            }
            out += "        <attribute name=\"\(XMLStoreDocument.escape(attribute.name.lowercased(), quotes: true))\" type=\"\(XMLStoreValueCoding.typeName(attribute.attributeType))\">\(XMLStoreDocument.escape(text))</attribute>\n"
        }
        let relationships = entity.relationshipsByName.values.filter { !$0.isTransient }.sorted { $0.name.lowercased() < $1.name.lowercased() }
        for relationship in relationships {
            let destinations: [NSManagedObjectID]
            if relationship.isToMany {
                destinations = snapshot.toMany[relationship.name] ?? []
            } else {
                destinations = (snapshot.values[relationship.name] as? NSManagedObjectID).map { [$0] } ?? []
            }
            var idrefs: [String] = []
            // A reference to an object no longer in the store (deleted without its inverse
            // being updated) is dropped, as an id without an object can't be written.
            for destination in destinations {
                guard let destinationKey = destination.primaryKey, keys[destinationKey] != nil else { continue }
                idrefs.append("z\(destinationKey)")
            }
            let destinationName = (relationship.destinationEntity?.name ?? "").uppercased()
            out += "        <relationship name=\"\(XMLStoreDocument.escape(relationship.name.lowercased(), quotes: true))\" type=\"\(relationship.isToMany ? "0/0" : "1/1")\" destination=\"\(XMLStoreDocument.escape(destinationName, quotes: true))\""
            if !idrefs.isEmpty { out += " idrefs=\"\(idrefs.joined(separator: " "))\"" }
            out += "></relationship>\n"
        }
        out += "    </object>\n"
    }

    /// The metadata as the `<plist version="1.0">…</plist>` element of an XML property list.
    private func metadataPlist(_ metadata: [String: Any]) throws -> String {
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: metadata, format: .xml, options: 0)
        } catch {
            throw saveError("the store metadata is not a property list (\(error)); user metadata values must be property-list values")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let start = text.range(of: "<plist") else { throw saveError("the store metadata could not be written as XML") }
        return text[start.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
