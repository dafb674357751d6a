import Foundation
import Testing
@testable import OpenCoreData

/// `coredata model compile --format apple`: Apple's `.momd`, compared with what momc wrote for
/// the same models (`Tests/Fixtures/CoreDataPlus/*/Fixtures/*.momd`) and read back.
@Suite("Apple-format compiled models")
struct AppleCompiledModelWriterTests {
    /// Every archived object's class chain, and the keys coded for each class (over all its objects).
    static func shape(of url: URL) throws -> [String: Set<String>] {
        var keys: [String: Set<String>] = [:]
        for case .object(let classes, let fields) in try KeyedArchive(contentsOf: url).objects {
            keys[classes.joined(separator: " < "), default: []].formUnion(fields.keys)
        }
        return keys
    }

    static func compileApple(_ source: URL) throws -> URL {
        let destination = try Fixtures.temporaryDirectory().appendingPathComponent(source.deletingPathExtension().lastPathComponent + ".momd")
        try CompiledModelFormat.compile(modelAt: source, to: destination, format: .apple)
        return destination
    }

    @Test("Every version's .mom has the classes and keys momc writes, and VersionInfo.plist Apple's hashes",
          arguments: [(Fixtures.sampleModel, Fixtures.sampleModelMomd), (Fixtures.sampleModel3, Fixtures.sampleModel3Momd)])
    func sameShapeAsMomc(source: URL, apple: URL) throws {
        let ours = try Self.compileApple(source)
        defer { try? FileManager.default.removeItem(at: ours.deletingLastPathComponent()) }
        let appleInfo = try AppleCompiledModelReader.versionInfo(ofModelDirectory: apple)
        let ourInfo = try AppleCompiledModelReader.versionInfo(ofModelDirectory: ours)
        #expect(ourInfo.currentVersionName == appleInfo.currentVersionName)
        #expect(ourInfo.versionHashes == appleInfo.versionHashes)
        let files = try FileManager.default.contentsOfDirectory(atPath: ours.path).filter { $0.hasSuffix(".mom") }.sorted()
        let appleFiles = try FileManager.default.contentsOfDirectory(atPath: apple.path).filter { $0.hasSuffix(".mom") }.sorted()
        #expect(files == appleFiles)
        for file in files {
            var expected = try Self.shape(of: apple.appendingPathComponent(file))
            // Xcode's build numbers, which momc records and Core Data does not read.
            expected["NSManagedObjectModel < NSObject"]?.subtract(["CDMCompilerToolVersion", "CDMCompilerXcodeVersion"])
            let actual = try Self.shape(of: ours.appendingPathComponent(file))
            #expect(Set(actual.keys) == Set(expected.keys), "\(file): classes")
            for (className, keys) in expected {
                #expect(actual[className] == keys, "\(file): keys of \(className)")
            }
        }
    }

    @Test("A compiled .mom reads back to the model it was compiled from, with the same version hashes")
    func readsBack() throws {
        let ours = try Self.compileApple(Fixtures.sampleModel)
        defer { try? FileManager.default.removeItem(at: ours.deletingLastPathComponent()) }
        for version in ["SampleModel", "SampleModel2", "SampleModel3"] {
            let source = try XcodeModelPackage.readVersion(at: Fixtures.sampleModel.appendingPathComponent(version + ".xcdatamodel"))
            let compiled = try AppleCompiledModelReader.readMom(at: ours.appendingPathComponent(version + ".mom"))
            #expect(compiled.isEqual(source), "\(version)")
            #expect(compiled.entityVersionHashesByName == source.entityVersionHashesByName)
            // And it matches what Apple's momc compiled from the same source.
            let apple = try AppleCompiledModelReader.readMom(at: Fixtures.sampleModelMomd.appendingPathComponent(version + ".mom"))
            #expect(compiled.entityVersionHashesByName == apple.entityVersionHashesByName)
        }
        #expect(try NSManagedObjectModel.load(contentsOf: ours).isEqual(try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel)))
    }

    @Test("Every attribute type, defaults, bounds, ordered relationships and inheritance round-trip")
    func everyAttributeType() throws {
        let model = try NSManagedObjectModel.load(contentsOf: ClassGeneratorTests.modelURL)
        let data = try AppleCompiledModelWriter.data(for: model)
        let back = try AppleCompiledModelReader.readArchivedModel(data, file: URL(fileURLWithPath: "Library.mom"))
        #expect(back.isEqual(model))
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
        let chapters = try #require(back.entitiesByName["LibBook"]?.relationshipsByName["chapters"])
        #expect(chapters.isOrdered)
        #expect(back.entitiesByName["LibItem"]?.isAbstract == true)
        // Xcode's minimum and maximum come back as the same validation rules.
        let pages = try #require(back.entitiesByName["LibBook"]?.attributesByName["pages"])
        #expect(pages.validationPredicates.map(\.predicateFormat) == ["SELF >= 0", "SELF <= 5000"])
    }

    @Test("Predicates, expressions and fetch requests round-trip: validation rules, derived attributes, fetched properties, templates, configurations")
    func everyModelFeature() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        ModelSamples.addAuthorsByName(to: model)
        let tag = try #require(model.entitiesByName["Tag"])
        tag.attributesByName["label"]!.setValidationPredicates(
            [NSPredicate(format: "length > 2 AND NOT (SELF BEGINSWITH[c] 'x' OR SELF IN {'a', 'b'})"),
             NSPredicate(format: "SUBQUERY(posts, $p, $p.rating BETWEEN {1, 3}).@count == 0 OR FUNCTION(SELF, 'length') > 0")],
            withValidationWarnings: ["Label too short", "Label not allowed"])
        let data = try AppleCompiledModelWriter.data(for: model)
        let back = try AppleCompiledModelReader.readArchivedModel(data, file: URL(fileURLWithPath: "Blog.mom"))
        // An archive keeps an entity's properties in a dictionary: they come back in Xcode's order
        // (attributes, relationships, fetched properties, each by name), not the source's, which
        // lists Post's attributes out of that order. Everything else is equal.
        for entity in model.entities {
            let other = try #require(back.entitiesByName[entity.name ?? ""])
            for property in entity.properties {
                #expect(other.propertiesByName[property.name].map(property.isEqual) == true, "\(entity.name ?? "").\(property.name)")
            }
            #expect(other.properties.count == entity.properties.count)
            if entity.name != "Post" { #expect(other.isEqual(entity), "\(entity.name ?? "")") }
        }
        for (name, template) in model.fetchRequestTemplatesByName {
            #expect(back.fetchRequestTemplate(forName: name).map(template.isEqual) == true, "template \(name)")
        }
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(back.configurations.sorted() == ["Content", "People"])
        #expect(back.fetchRequestTemplate(forName: "TopPosts")?.fetchLimit == 10)
        #expect(back.fetchRequestTemplate(forName: "PostsByAuthor")?.predicate?.predicateFormat == "author.name == $NAME")
        let post = try #require(back.entitiesByName["Post"])
        #expect((post.propertiesByName["commentCount"] as? NSDerivedAttributeDescription)?.derivationExpression?.description == "comments.@count")
        let fetched = try #require(post.propertiesByName["recentComments"] as? NSFetchedPropertyDescription)
        #expect(fetched.fetchRequest?.predicate?.predicateFormat == "post == $FETCH_SOURCE AND text != nil")
        let label = try #require(back.entitiesByName["Tag"]?.attributesByName["label"])
        #expect(label.validationPredicates.map(\.predicateFormat) == tag.attributesByName["label"]!.validationPredicates.map(\.predicateFormat))
        #expect(label.validationWarnings.compactMap { $0 as? String } == ["Label too short", "Label not allowed"])
    }

    @Test("A model with a predicate Apple's format can't hold is refused, naming it, and nothing is written")
    func refusesWhatItCannotWrite() throws {
        let entity = NSEntityDescription()
        entity.name = "Item"
        let attribute = NSAttributeDescription()
        attribute.name = "code"
        attribute.attributeType = .stringAttributeType
        attribute.setValidationPredicates([NSPredicate(block: { _, _ in true })], withValidationWarnings: ["never"])
        entity.properties = [attribute]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let error = try #require(throws: ManagedObjectModelError.self) { try AppleCompiledModelWriter.data(for: model) }
        #expect(error.description.contains("block predicate"))
        #expect(error.description.contains("property 'code' of entity 'Item'"))
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("M.momd")
        #expect(throws: ManagedObjectModelError.self) {
            try CompiledModelFormat.writeApple(versions: [("M", model)], currentVersion: "M", to: destination)
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
