import Testing
@testable import OpenCoreData

/// `<ModelName>Model.strings` beside a model fills its localization dictionary.
@Suite struct ModelLocalizationTests {
    private let strings = """
    /* Entities */
    "Entity/Post" = "Article";
    "Property/title/Entity/Post" = "Headline"; // property of one entity
    "Property/rating" = "Stars";
    "ErrorString/Process ID < 1" = "Process ID must not be less than 1";
    "Quote \\"escaped\\"\\n" = "\\U00e9t\\u00e9";
    """

    @Test func stringsBesideAVersionFolderAreLoaded() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = try ModelSamples.writeVersion(ModelSamples.blogXML, in: directory)
        try Data(strings.utf8).write(to: directory.appendingPathComponent("BlogModel.strings"))
        let model = try NSManagedObjectModel.load(contentsOf: version)
        let dictionary = try #require(model.localizationDictionary)
        #expect(dictionary["Entity/Post"] == "Article")
        #expect(dictionary["Property/title/Entity/Post"] == "Headline")
        #expect(dictionary["Property/rating"] == "Stars")
        #expect(dictionary["ErrorString/Process ID < 1"] == "Process ID must not be less than 1")
        #expect(dictionary["Quote \"escaped\"\n"] == "été")
        #expect(dictionary.count == 5)
    }

    @Test func oldStylePlistInUTF16InsideAPackageLprojFolder() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let package = directory.appendingPathComponent("Blog.xcdatamodeld")
        _ = try ModelSamples.writeVersion(ModelSamples.blogXML, named: "Blog 2", in: package)
        let marker = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Blog 2.xcdatamodel"], format: .xml, options: 0)
        try marker.write(to: package.appendingPathComponent(".xccurrentversion"))
        let lproj = directory.appendingPathComponent("en.lproj")
        try FileManager.default.createDirectory(at: lproj, withIntermediateDirectories: true)
        let plist = "{\n  \"Entity/Post\" = \"Billet\";\n  Property/rating = Etoiles;\n}\n"
        try #require(plist.data(using: .utf16)).write(to: lproj.appendingPathComponent("BlogModel.strings"))
        let model = try NSManagedObjectModel.load(contentsOf: package)
        #expect(model.localizationDictionary == ["Entity/Post": "Billet", "Property/rating": "Etoiles"])

        let compiled = directory.appendingPathComponent("Blog.momd")
        try CompiledModelFormat.compile(modelAt: package, to: compiled)
        #expect(try NSManagedObjectModel.load(contentsOf: compiled).localizationDictionary == model.localizationDictionary)
    }

    @Test func noStringsFileMeansNoDictionaryAndABrokenOneIsAnError() throws {
        #expect(try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel).localizationDictionary == nil)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = try ModelSamples.writeVersion(ModelSamples.blogXML, in: directory)
        let file = directory.appendingPathComponent("BlogModel.strings")
        try Data("\"a\" = ".utf8).write(to: file)
        #expect { try NSManagedObjectModel.load(contentsOf: version) } throws: {
            ($0 as? ManagedObjectModelError)?.file == file
        }
    }

    @Test func stringsParserForms() throws {
        #expect(try StringsFile.parse(Data("\"k\";".utf8)) == ["k": "k"])
        #expect(try StringsFile.parse(Data("\u{FEFF}\"a\"=\"b\";/* c */".utf8)) == ["a": "b"])
        let xml = try PropertyListSerialization.data(fromPropertyList: ["x": "y"], format: .xml, options: 0)
        #expect(try StringsFile.parse(xml) == ["x": "y"])
        #expect(throws: StringsFile.ParseError.self) { try StringsFile.parse(Data("\"a\" = \"b\"".utf8)) }
        #expect(throws: StringsFile.ParseError.self) { try StringsFile.parse(Data("\"open".utf8)) }
    }

    @Test func stringsInsideAnAppleMomdAreLoaded() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let momd = directory.appendingPathComponent("SampleModel3.momd")
        try FileManager.default.copyItem(at: Fixtures.sampleModel3Momd, to: momd)
        try Data("\"Entity/User\" = \"Utilisateur\";".utf8).write(to: momd.appendingPathComponent("SampleModel3Model.strings"))
        #expect(try NSManagedObjectModel.load(contentsOf: momd).localizationDictionary == ["Entity/User": "Utilisateur"])
    }

    @Test func lookupsFollowCoreDataKeyTable() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        model.localizationDictionary = [
            "Entity/Post": "Article",
            "Property/title/Entity/Item": "Heading",
            "Property/title/Entity/Post": "Headline",
            "Property/rating": "Stars",
            "ErrorString/Process ID < 1": "Process ID must not be less than 1",
        ]
        #expect(model.localizedEntityName("Post") == "Article")
        #expect(model.localizedEntityName("Tag") == "Tag")
        #expect(model.localizedPropertyName("title", entityName: "Post") == "Headline")
        #expect(model.localizedPropertyName("title", entityName: "Item") == "Heading")
        #expect(model.localizedPropertyName("rating", entityName: "Post") == "Stars")
        #expect(model.localizedPropertyName("label", entityName: "Tag") == "label")
        #expect(model.localizedErrorString("Process ID < 1") == "Process ID must not be less than 1")
        #expect(model.localizedErrorString("Other") == "Other")
        model.localizationDictionary?.removeValue(forKey: "Property/title/Entity/Post")
        #expect(model.localizedPropertyName("title", entityName: "Post") == "Heading")   // from the superentity
    }
}
