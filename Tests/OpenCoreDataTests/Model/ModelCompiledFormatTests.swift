import Testing
@testable import OpenCoreData

/// `coredata model compile` output loads back to an equal model.
@Suite struct ModelCompiledFormatTests {
    @Test func compilingAPackageWritesEveryVersionAndLoadsTheCurrentOne() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("SampleModel.momd")
        try CompiledModelFormat.compile(modelAt: Fixtures.sampleModel, to: destination)
        let files = try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted()
        #expect(files == ["SampleModel.ocdmom", "SampleModel2.ocdmom", "SampleModel3.ocdmom", "VersionInfo.plist"])

        let info = try #require(try PropertyListSerialization.propertyList(
            from: Data(contentsOf: destination.appendingPathComponent("VersionInfo.plist")), format: nil) as? [String: Any])
        #expect(info["NSManagedObjectModel_CurrentVersionName"] as? String == "SampleModel")
        let hashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        #expect(hashes.keys.sorted() == ["SampleModel", "SampleModel2", "SampleModel3"])

        let original = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel)
        let loaded = try NSManagedObjectModel.load(contentsOf: destination)
        #expect(loaded.isEqual(original))
        #expect(loaded.versionIdentifiers == original.versionIdentifiers)
        #expect(hashes["SampleModel"] == original.entityVersionHashesByName)
        let checksums = try #require(info["NSManagedObjectModel_VersionChecksums"] as? [String: String])
        #expect(checksums["SampleModel"] == original.versionChecksum)
        // Apple's VersionInfo.plist holds the same hashes for the same versions.
        let apple = try AppleCompiledModelReader.versionInfo(ofModelDirectory: Fixtures.sampleModelMomd)
        #expect(apple.versionHashes["SampleModel3"] == hashes["SampleModel3"])
        #expect(NSManagedObjectModel(contentsOf: destination)?.isEqual(original) == true)

        for version in ["SampleModel2", "SampleModel3"] {
            let file = destination.appendingPathComponent("\(version).ocdmom")
            let source = Fixtures.sampleModel.appendingPathComponent("\(version).xcdatamodel")
            #expect(try NSManagedObjectModel.load(contentsOf: file).isEqual(try NSManagedObjectModel.load(contentsOf: source)))
        }
    }

    @Test func everyFeatureRoundTrips() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        ModelSamples.addAuthorsByName(to: model)
        model.localizationDictionary = ["Entity/Post": "Article"]
        let tag = try #require(model.entitiesByName["Tag"])
        tag.userInfo = ["weight": 3, "aliases": ["label", "keyword"], "nested": ["on": true]]
        tag.attributesByName["label"]!.setValidationPredicates([NSPredicate(format: "length > 2")],
                                                              withValidationWarnings: ["Label too short"])
        tag.attributesByName["label"]!.versionHashModifier = "v2"
        let expression = NSExpressionDescription()
        expression.name = "postCount"
        expression.expression = NSExpression(format: "posts.@count")
        expression.expressionResultType = .integer64AttributeType
        tag.properties += [expression]

        let compiled = directory.appendingPathComponent("Blog.momd")
        try CompiledModelFormat.write(versions: [("Blog", model)], currentVersion: "Blog", to: compiled)
        let loaded = try NSManagedObjectModel.load(contentsOf: compiled)
        #expect(loaded.isEqual(model))
        #expect(loaded.isEqual(ModelSamples.blogInCode()) == false)   // it has the extra template
        #expect(loaded.localizationDictionary == ["Entity/Post": "Article"])
        #expect(loaded.versionIdentifiers == ["v7"])
        #expect(loaded.configurations == ["Content", "People"])
        let template = try #require(loaded.fetchRequestTemplate(forName: "AuthorsByName"))
        #expect(template.sortDescriptors?.first?.key == "name" && template.sortDescriptors?.first?.ascending == false)
        #expect(template.resultType == .dictionaryResultType)
        let post = try #require(loaded.entitiesByName["Post"])
        #expect(post.attributesByName["price"]?.defaultValue as? Decimal == Decimal(string: "9.99"))
        #expect(post.attributesByName["rating"]?.defaultValue as? Int16 == 3)
        #expect(post.attributesByName["created"]?.validationWarnings.first as? NSNumber == NSNumber(value: 1640))
        #expect(post.superentity?.name == "Item")
        #expect(post.relationshipsByName["tags"]?.inverseRelationship?.entity?.name == "Tag")
        #expect(loaded.entityVersionHashesByName == model.entityVersionHashesByName)
        let loadedTag = try #require(loaded.entitiesByName["Tag"])
        #expect((loadedTag.userInfo?["weight"] as? NSNumber)?.intValue == 3)
        #expect(loadedTag.userInfo?["aliases"] as? [String] == ["label", "keyword"])
        #expect(loadedTag.attributesByName["label"]?.validationWarnings.first as? String == "Label too short")
        #expect((loadedTag.propertiesByName["postCount"] as? NSExpressionDescription)?.expressionResultType == .integer64AttributeType)
    }

    @Test func aSingleVersionCompilesToAFolderWithOneFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel")
        let destination = directory.appendingPathComponent("out")
        try CompiledModelFormat.compile(modelAt: source, to: destination)
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted()
                == ["SampleModel3_v2.ocdmom", "VersionInfo.plist"])
        #expect(try NSManagedObjectModel.load(contentsOf: destination).isEqual(try NSManagedObjectModel.load(contentsOf: source)))
    }

    @Test func damagedCompiledFilesAreReported() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("M.momd")
        try CompiledModelFormat.compile(modelAt: Fixtures.sampleModel3, to: destination)
        try FileManager.default.removeItem(at: destination.appendingPathComponent("SampleModel3.ocdmom"))
        #expect { try NSManagedObjectModel.load(contentsOf: destination) } throws: { error in
            (error as? ManagedObjectModelError)?.kind == .invalidCompiledModel
                && (error as? ManagedObjectModelError)?.file?.lastPathComponent == "SampleModel3.ocdmom"
        }
    }
}
