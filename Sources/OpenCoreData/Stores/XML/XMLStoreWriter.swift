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
        var layouts: [ObjectIdentifier: EntityLayout] = [:]
        for (key, snapshot) in snapshots {
            let entity = snapshot.objectID.entity
            let layout = layouts[ObjectIdentifier(entity)] ?? EntityLayout(entity)
            layouts[ObjectIdentifier(entity)] = layout
            try object(snapshot, key: key, layout: layout, keys: keys, into: &out)
        }
        out += "</database>\n"
        return Data(out.utf8)
    }

    /// An entity's persistent properties in the order they are written: attributes, then
    /// relationships, each sorted by lowercased name.
    private struct EntityLayout {
        let typeName: String
        let attributes: [NSAttributeDescription]
        let relationships: [NSRelationshipDescription]

        init(_ entity: NSEntityDescription) {
            typeName = XMLStoreDocument.escape((entity.name ?? "").uppercased(), quotes: true)
            attributes = entity.attributesByName.values.filter { !$0.isTransient }.sorted { $0.name.lowercased() < $1.name.lowercased() }
            relationships = entity.relationshipsByName.values.filter { !$0.isTransient }.sorted { $0.name.lowercased() < $1.name.lowercased() }
        }
    }

    private func object(_ snapshot: ObjectSnapshot, key: Int64, layout: EntityLayout, keys: [Int64: NSManagedObjectID],
                        into out: inout String) throws {
        out += "    <object type=\"\(layout.typeName)\" id=\"z\(key)\">\n"
        for attribute in layout.attributes {
            guard let value = snapshot[attribute.name], !ValueComparison.isNSNull(value) else { continue }
            let text: String
            do {
                text = try XMLStoreValueCoding.text(of: value, for: attribute)
            } catch let error as XMLStoreValueError {
                throw saveError("\(snapshot.objectID): \(error.description)")
            }
            out += "        <attribute name=\"\(XMLStoreDocument.escape(attribute.name.lowercased(), quotes: true))\" type=\"\(XMLStoreValueCoding.typeName(attribute.attributeType))\">\(XMLStoreDocument.escape(text))</attribute>\n"
        }
        for relationship in layout.relationships {
            let destinations: [NSManagedObjectID]
            if relationship.isToMany {
                destinations = snapshot.toMany[relationship.name] ?? []
            } else {
                destinations = (snapshot[relationship.name] as? NSManagedObjectID).map { [$0] } ?? []
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
