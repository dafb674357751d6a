import Foundation

/// Reads the compiled mapping models Xcode writes (`.cdm`): an `NSKeyedArchiver` archive whose
/// root is an `NSMappingModel` with `NSEntityMappings` (each an `NSEntityMapping`:
/// `NSMappingName`, `NSMappingType`, `NSSourceEntityName`, `NSSourceEntityVersionHash`,
/// `NSDestinationEntityName`, `NSDestinationEntityVersionHash`, `NSSourceExpression`,
/// `NSEntityMigrationPolicyClassName`, `NSUserInfo`, `NSAttributeMappings` and
/// `NSRelationshipMappings`, whose `NSPropertyMapping`s hold `NSDestinationPropertyName`,
/// `NSValueExpression` and `NSUserInfo`).
///
/// Errors are ``ManagedObjectModelError``s naming the file and the entity or property mapping.
enum CompiledMappingModelReader {
    /// The mapping model archived in `data`, read from `file`.
    static func read(_ data: Data, file: URL) throws -> NSMappingModel {
        let root = try AppleCompiledModelReader.archivedRoot(of: data, file: file, className: "NSMappingModel",
                                                             what: "compiled mapping model")
        guard let nodes = root["NSEntityMappings"]?.elements else {
            throw ManagedObjectModelError(.invalidCompiledModel, "missing or malformed NSEntityMappings", file: file, element: "mapping model")
        }
        let model = NSMappingModel()
        model.entityMappings = try nodes.enumerated().map { index, node in try entityMapping(node, index: index, file: file) }
        return model
    }

    private static func entityMapping(_ node: KeyedArchive.Node, index: Int, file: URL) throws -> NSEntityMapping {
        let name = node["NSMappingName"]?.string
        let element = "entity mapping '\(name ?? "#\(index + 1)")'"
        guard node.classNames.contains("NSEntityMapping") else {
            throw ManagedObjectModelError(.invalidCompiledModel, "expected an NSEntityMapping, found \(node.className ?? "no object")",
                                          file: file, element: element)
        }
        guard let name, !name.isEmpty else {
            throw ManagedObjectModelError(.invalidCompiledModel, "the entity mapping has no NSMappingName", file: file, element: element)
        }
        let rawType = node["NSMappingType"]?.integer ?? 0
        guard let type = NSEntityMappingType(rawValue: UInt(clamping: rawType)) else {
            throw ManagedObjectModelError(.invalidValue, "unknown NSMappingType \(rawType)", file: file, element: element)
        }
        let expressions = AppleArchivedPredicate(file: file, element: element)
        let mapping = NSEntityMapping()
        mapping.name = name
        mapping.mappingType = type
        mapping.sourceEntityName = node["NSSourceEntityName"]?.string
        mapping.destinationEntityName = node["NSDestinationEntityName"]?.string
        mapping.sourceEntityVersionHash = node["NSSourceEntityVersionHash"]?.data
        mapping.destinationEntityVersionHash = node["NSDestinationEntityVersionHash"]?.data
        mapping.entityMigrationPolicyClassName = node["NSEntityMigrationPolicyClassName"]?.string
        mapping.userInfo = MomValues.userInfo(node["NSUserInfo"])
        if let source = node["NSSourceExpression"], !source.isNull { mapping.sourceExpression = try expressions.expression(source) }
        mapping.attributeMappings = try propertyMappings(node["NSAttributeMappings"], entity: name, file: file)
        mapping.relationshipMappings = try propertyMappings(node["NSRelationshipMappings"], entity: name, file: file)
        return mapping
    }

    private static func propertyMappings(_ node: KeyedArchive.Node?, entity: String, file: URL) throws -> [NSPropertyMapping]? {
        guard let node, !node.isNull else { return nil }
        guard let elements = node.elements else {
            throw ManagedObjectModelError(.invalidCompiledModel, "the property mappings are not an array", file: file,
                                          element: "entity mapping '\(entity)'")
        }
        return try elements.enumerated().map { index, property in
            let name = property["NSDestinationPropertyName"]?.string
            let element = "property mapping '\(name ?? "#\(index + 1)")' of entity mapping '\(entity)'"
            guard property.classNames.contains("NSPropertyMapping") else {
                throw ManagedObjectModelError(.invalidCompiledModel,
                    "expected an NSPropertyMapping, found \(property.className ?? "no object")", file: file, element: element)
            }
            var value: NSExpression?
            if let expression = property["NSValueExpression"], !expression.isNull {
                value = try AppleArchivedPredicate(file: file, element: element).expression(expression)
            }
            return NSPropertyMapping(name: name, valueExpression: value, userInfo: MomValues.userInfo(property["NSUserInfo"]))
        }
    }
}
