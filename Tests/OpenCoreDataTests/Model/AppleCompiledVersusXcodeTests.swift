import Testing
@testable import OpenCoreData

/// Each version momc compiled into the fixture `.momd` folders reads back as the same model as
/// its Xcode source in the `.xcdatamodeld`, and both get the version hashes Apple computed.
@Suite struct AppleCompiledVersusXcodeTests {
    static let versions: [(package: String, momd: String, version: String)] = [
        ("SampleModel/SampleModel.xcdatamodeld", "SampleModel/Fixtures/SampleModel.momd", "SampleModel"),
        ("SampleModel/SampleModel.xcdatamodeld", "SampleModel/Fixtures/SampleModel.momd", "SampleModel2"),
        ("SampleModel/SampleModel.xcdatamodeld", "SampleModel/Fixtures/SampleModel.momd", "SampleModel3"),
        ("SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3"),
        ("SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3_v2"),
        ("SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3_v3"),
    ]

    static func load(package: String, momd: String, version: String) throws -> (xcode: NSManagedObjectModel, compiled: NSManagedObjectModel) {
        let xcode = try NSManagedObjectModel.load(
            contentsOf: Fixtures.coreDataPlus(package).appendingPathComponent(version + ".xcdatamodel"))
        let compiled = try AppleCompiledModelReader.readMom(
            at: Fixtures.coreDataPlus(momd).appendingPathComponent(version + ".mom"))
        return (xcode, compiled)
    }

    @Test(arguments: versions)
    func compiledEqualsSourceEntityByEntity(package: String, momd: String, version: String) throws {
        let (xcode, compiled) = try Self.load(package: package, momd: momd, version: version)
        #expect(compiled.entities.compactMap(\.name) == xcode.entities.compactMap(\.name))
        #expect(compiled.versionIdentifiers == xcode.versionIdentifiers)
        for source in xcode.entities {
            let name = try #require(source.name)
            let entity = try #require(compiled.entitiesByName[name], "entity \(name)")
            #expect(entity.managedObjectClassName == source.managedObjectClassName, "\(name)")
            #expect(entity.isAbstract == source.isAbstract, "\(name)")
            #expect(entity.superentity?.name == source.superentity?.name, "\(name)")
            #expect(entity.subentities.compactMap(\.name) == source.subentities.compactMap(\.name), "\(name)")
            #expect(entity.renamingIdentifier == source.renamingIdentifier, "\(name)")
            #expect(entity.versionHashModifier == source.versionHashModifier, "\(name)")
            #expect(entity.uniquenessConstraintNames == source.uniquenessConstraintNames, "\(name)")
            #expect(entity.indexes.count == source.indexes.count && zip(entity.indexes, source.indexes).allSatisfy { $0.isEqual($1) },
                    "indexes of \(name)")
            #expect(entity.declaredProperties.map(\.name) == source.declaredProperties.map(\.name), "\(name)")
            for sourceProperty in source.declaredProperties {
                let property = try #require(entity.propertiesByName[sourceProperty.name])
                let label = "\(name).\(sourceProperty.name)"
                if let attribute = property as? NSAttributeDescription,
                   let sourceAttribute = sourceProperty as? NSAttributeDescription,
                   attribute.attributeType == .transformableAttributeType {
                    // momc drops the custom class name of a transformable attribute (`customClassName`).
                    #expect(sourceAttribute.attributeValueClassName == "Color", "\(label)")
                    #expect(attribute.attributeValueClassName == nil, "\(label)")
                    #expect(attribute.valueTransformerName == sourceAttribute.valueTransformerName, "\(label)")
                    #expect(attribute.isOptional == sourceAttribute.isOptional && attribute.isTransient == sourceAttribute.isTransient)
                } else {
                    #expect(property.isEqual(sourceProperty), "\(label): \(property) versus \(sourceProperty)")
                }
            }
        }
        #expect(compiled.configurations == xcode.configurations)
        #expect(compiled.fetchRequestTemplatesByName.keys.sorted() == xcode.fetchRequestTemplatesByName.keys.sorted())
    }

    /// Models without transformable attributes compare equal as a whole.
    @Test(arguments: versions.filter { $0.version != "SampleModel" })
    func compiledModelEqualsSourceModel(package: String, momd: String, version: String) throws {
        let (xcode, compiled) = try Self.load(package: package, momd: momd, version: version)
        #expect(compiled.isEqual(xcode))
    }

    @Test(arguments: versions)
    func sourceModelsGetApplesHashes(package: String, momd: String, version: String) throws {
        let (xcode, compiled) = try Self.load(package: package, momd: momd, version: version)
        let info = try AppleCompiledModelReader.versionInfo(ofModelDirectory: Fixtures.coreDataPlus(momd))
        let expected = try #require(info.versionHashes[version])
        #expect(xcode.entityVersionHashesByName == expected)
        #expect(compiled.entityVersionHashesByName == expected)
        for entity in xcode.entities {
            let twin = try #require(compiled.entitiesByName[entity.name ?? ""])
            for property in entity.declaredProperties {
                #expect(property.versionHash == twin.propertiesByName[property.name]?.versionHash, "\(entity.name ?? "").\(property.name)")
            }
        }
    }
}
