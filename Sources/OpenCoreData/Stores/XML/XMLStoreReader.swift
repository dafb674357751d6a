import Foundation

/// Reads an XML store file into ``AtomicStoreContents``, mapping Apple's uppercased entity
/// names and lowercased property names back to the model case-insensitively.
///
/// Every problem is a Core Data error naming the file: another store type's file or an XML
/// document that is not a store is `NSPersistentStoreInvalidTypeError` (134000), a newer
/// format version too, and malformed or truncated XML, unknown entities or ids and bad values
/// are `NSFileReadCorruptFileError` (259) with the line.
struct XMLStoreReader {
    let store: XMLStore
    let url: URL

    func corrupt(_ reason: String, line: Int? = nil) -> NSError {
        AtomicFile.corruptFileError(url, storeType: NSXMLStoreType, reason: line.map { "line \($0): \(reason)" } ?? reason)
    }

    func read(_ data: Data, metadataOnly: Bool) throws -> AtomicStoreContents {
        if let found = AtomicFile.sniffStoreType(data), found != NSXMLStoreType {
            throw AtomicFile.wrongTypeError(url, expected: NSXMLStoreType, found: found)
        }
        let root: XMLStoreElement
        do {
            root = try XMLStoreDocument.parse(data)
        } catch let error as XMLStoreSyntaxError {
            if AtomicFile.sniffStoreType(data) == nil, data.first.map({ $0 != UInt8(ascii: "<") && $0 != 0xEF && $0 > 0x20 }) == true {
                throw AtomicFile.wrongTypeError(url, expected: NSXMLStoreType, found: nil)
            }
            throw corrupt(error.description)
        }
        guard root.name == "database" else { throw AtomicFile.wrongTypeError(url, expected: NSXMLStoreType, found: nil) }
        guard let info = root.child("databaseInfo") else { throw corrupt("<database> has no <databaseInfo>", line: root.line) }

        if let versionText = info.child("version")?.text.trimmingCharacters(in: .whitespacesAndNewlines) {
            guard let version = Int64(versionText) else { throw corrupt("<version> '\(versionText)' is not a number", line: info.line) }
            if version > XMLStore.formatVersion {
                throw AtomicFile.newerVersionError(url, storeType: NSXMLStoreType, version: versionText, supported: "\(XMLStore.formatVersion)")
            }
        }
        var metadata = try readMetadata(info, data)
        if let uuid = info.child("UUID")?.text.trimmingCharacters(in: .whitespacesAndNewlines), !uuid.isEmpty {
            metadata[NSStoreUUIDKey] = uuid
        }
        if metadata[NSStoreTypeKey] == nil { metadata[NSStoreTypeKey] = NSXMLStoreType }
        var contents = AtomicStoreContents(metadata: metadata)
        let nextText = info.child("nextObjectID")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let nextObjectID = Int64(nextText) ?? 0
        guard !metadataOnly, let model = store.managedObjectModel else { return contents }
        // A store made with another model version is not read with this one: the base class then
        // reports NSPersistentStoreIncompatibleVersionHashError (134100), which migration expects.
        if metadata[NSStoreModelVersionHashesKey] != nil,
           storeOptionBool(store.options, NSIgnorePersistentStoreVersioningOption) != true,
           !model.isConfiguration(withName: store.configurationName, compatibleWithStoreMetadata: metadata) {
            return contents
        }

        let entities = Dictionary(model.entities.compactMap { entity in entity.name.map { ($0.uppercased(), entity) } },
                                  uniquingKeysWith: { first, _ in first })
        var ids: [Int64: NSManagedObjectID] = [:]
        let objects = root.children.filter { $0.name == "object" }
        for object in objects {
            guard let typeName = object[attribute: "type"], let entity = entities[typeName.uppercased()] else {
                throw corrupt("<object> of unknown entity '\(object[attribute: "type"] ?? "")' (not in the model)", line: object.line)
            }
            let key = try primaryKey(object[attribute: "id"], line: object.line)
            guard ids[key] == nil else { throw corrupt("two objects have id z\(key)", line: object.line) }
            ids[key] = store.objectID(for: entity, primaryKey: key)
        }
        let storeUUID = metadata[NSStoreUUIDKey] as? String
        let resolveID: (URL) -> NSManagedObjectID? = { uri in
            guard uri.host == storeUUID, uri.pathComponents.count >= 3,
                  let entity = model.entitiesByName[uri.pathComponents[1]],
                  let last = uri.pathComponents.last, last.hasPrefix("p"), let key = Int64(last.dropFirst()) else {
                return self.store.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri)
            }
            return self.store.objectID(for: entity, primaryKey: key)
        }
        var propertyMaps: [ObjectIdentifier: [String: NSPropertyDescription]] = [:]
        for object in objects {
            let key = try primaryKey(object[attribute: "id"], line: object.line)
            guard let objectID = ids[key] else { continue }
            let entity = objectID.entity
            let properties = propertyMaps[ObjectIdentifier(entity)] ?? Dictionary(
                entity.propertiesByName.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            propertyMaps[ObjectIdentifier(entity)] = properties
            var snapshot = ObjectSnapshot(objectID: objectID, version: 1)
            for element in object.children {
                let name = element[attribute: "name"] ?? ""
                guard let property = properties[name.lowercased()], !property.isTransient else {
                    throw corrupt("entity \(entity.name ?? "?") has no property '\(name)'", line: element.line)
                }
                switch (element.name, property) {
                case ("attribute", let attribute as NSAttributeDescription):
                    do {
                        snapshot[attribute.name] = try XMLStoreValueCoding.value(of: element.text, for: attribute, resolveID: resolveID)
                    } catch let error as XMLStoreValueError {
                        throw corrupt(error.description, line: element.line)
                    }
                case ("relationship", let relationship as NSRelationshipDescription):
                    let references = (element[attribute: "idrefs"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
                    var destinations: [NSManagedObjectID] = []
                    for reference in references {
                        let key = try primaryKey(String(reference), line: element.line)
                        guard let destination = ids[key] else {
                            throw corrupt("relationship '\(name)' refers to z\(key), which is not in the file", line: element.line)
                        }
                        destinations.append(destination)
                    }
                    if relationship.isToMany {
                        snapshot.toMany[relationship.name] = destinations
                    } else if let destination = destinations.first {
                        snapshot[relationship.name] = destination
                    }
                default:
                    throw corrupt("<\(element.name) name=\"\(name)\"> does not match the model's property \(property.name)", line: element.line)
                }
            }
            for relationship in entity.relationshipsByName.values where relationship.isToMany && !relationship.isTransient
                && snapshot.toMany[relationship.name] == nil {
                snapshot.toMany[relationship.name] = []
            }
            contents.rows[entity.name ?? "", default: [:]][key] = snapshot
        }
        let last = max(nextObjectID, ids.keys.max() ?? 0)
        for entity in model.entities where entity.superentity == nil {
            contents.lastPrimaryKeys[entity.name ?? ""] = last
        }
        return contents
    }

    /// The key of an id `z<n>`.
    private func primaryKey(_ text: String?, line: Int) throws -> Int64 {
        guard let text, text.hasPrefix("z"), let key = Int64(text.dropFirst()), key > 0 else {
            throw corrupt("'\(text ?? "")' is not an object id (z<number>)", line: line)
        }
        return key
    }

    /// The property list inside `<metadata>`, or an empty dictionary.
    private func readMetadata(_ info: XMLStoreElement, _ data: Data) throws -> [String: Any] {
        guard let element = info.child("metadata"), !element.children.isEmpty else { return [:] }
        let plist = Data(data[data.startIndex + element.contentRange.lowerBound..<data.startIndex + element.contentRange.upperBound])
        do {
            guard let dictionary = try PropertyListInput.propertyList(from: plist) as? [String: Any] else {
                throw corrupt("<metadata> does not hold a dictionary", line: element.line)
            }
            return dictionary
        } catch let error as NSError where error.code == NSFileReadCorruptFileError && error.userInfo[NSFilePathErrorKey] != nil {
            throw error
        } catch {
            throw corrupt("<metadata> is not a property list (\(error))", line: element.line)
        }
    }
}
