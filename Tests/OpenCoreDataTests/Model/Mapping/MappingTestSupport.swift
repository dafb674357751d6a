import Foundation
import Testing
@testable import OpenCoreData

/// Models for the mapping tests, written as the entities of an Xcode `contents` file.
enum MappingTestModels {
    /// The model whose `<model>` element holds `entities` (Xcode's `contents` XML).
    static func model(_ entities: String) throws -> NSManagedObjectModel {
        let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        \(entities)
        </model>
        """
        return try XcodeModelContentsReader(file: URL(fileURLWithPath: "/test/contents")).read(Data(xml.utf8))
    }

    /// The entity mapping of `model` whose destination (or, for a remove mapping, source) is `entity`.
    static func mapping(_ model: NSMappingModel, _ entity: String) throws -> NSEntityMapping {
        try #require((model.entityMappings ?? []).first {
            $0.destinationEntityName == entity || ($0.destinationEntityName == nil && $0.sourceEntityName == entity)
        })
    }

    /// The value expression of property mapping `name` of `mapping`, printed; "nil" for none.
    static func expression(_ mapping: NSEntityMapping, _ name: String) throws -> String {
        let property = try #require(((mapping.attributeMappings ?? []) + (mapping.relationshipMappings ?? [])).first { $0.name == name })
        return property.valueExpression.map { $0.description } ?? "nil"
    }

    /// The 134190 error `body` throws.
    static func inferenceError(_ body: () throws -> Void) -> NSError? {
        do {
            try body()
            return nil
        } catch {
            return error as NSError
        }
    }
}
