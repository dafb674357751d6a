import ArgumentParser
import Testing
@testable import CoreDataCLI
@testable import OpenCoreData

/// `coredata model inspect` and `coredata model compile`.
@Suite struct ModelCommandTests {
    @Test func parsesTheStableForms() throws {
        let inspect = try #require(try CoreDataCommand.parseAsRoot(["model", "inspect", "M.xcdatamodeld"]) as? ModelCommand.Inspect)
        #expect(inspect.model == "M.xcdatamodeld")
        let compile = try #require(try CoreDataCommand.parseAsRoot(["model", "compile", "M.xcdatamodeld", "-o", "M.momd"]) as? ModelCommand.Compile)
        #expect(compile.source == "M.xcdatamodeld" && compile.output == "M.momd")
        #expect(throws: (any Error).self) { try CoreDataCommand.parseAsRoot(["model", "compile", "M.xcdatamodeld"]) }
    }

    @Test func inspectPrintsTheDocumentedJSON() throws {
        let model = try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel3.appendingPathComponent("SampleModel3_v2.xcdatamodel"))
        let pet = model.entitiesByName["Pet"]!.versionHash.base64EncodedString()
        let user = model.entitiesByName["User"]!.versionHash.base64EncodedString()
        let expected = """
        {"entities": [{"name": "Pet", "parent": null, "abstract": false, "className": "Pet", \
        "attributes": [{"name": "name", "type": "String", "optional": false, "transient": false, "default": null}], \
        "relationships": [{"name": "owner", "destination": "User", "inverse": "pet", "toMany": false, "ordered": false, \
        "deleteRule": "Nullify", "minCount": 0, "maxCount": 1, "optional": true}], "fetchedProperties": [], "versionHash": "\(pet)"}, \
        {"name": "User", "parent": null, "abstract": false, "className": "User", \
        "attributes": [{"name": "name", "type": "String", "optional": false, "transient": false, "default": null}, \
        {"name": "petName", "type": "String", "optional": true, "transient": false, "default": null}], \
        "relationships": [{"name": "pet", "destination": "Pet", "inverse": "owner", "toMany": false, "ordered": false, \
        "deleteRule": "Nullify", "minCount": 0, "maxCount": 1, "optional": true}], "fetchedProperties": [], "versionHash": "\(user)"}], \
        "fetchRequests": [], "configurations": {}}
        """
        #expect(ModelInspection.json(for: model) == expected)
    }

    @Test func inspectListsOwnPropertiesTemplatesAndConfigurations() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = ModelInspection.json(for: model)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let entities = try #require(object["entities"] as? [[String: Any]])
        let post = try #require(entities.first { $0["name"] as? String == "Post" })
        #expect(post["parent"] as? String == "Item")
        let attributes = try #require(post["attributes"] as? [[String: Any]])
        #expect(attributes.compactMap { $0["name"] as? String }
                == ["rating", "score", "price", "body", "link", "token", "commentCount", "featured"])
        #expect(attributes.first?["type"] as? String == "Integer 16")
        #expect((attributes.first?["default"] as? NSNumber)?.intValue == 3)
        #expect(attributes.first { $0["name"] as? String == "token" }?["default"] as? String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        let relationships = try #require(post["relationships"] as? [[String: Any]])
        #expect(relationships.compactMap { $0["deleteRule"] as? String } == ["Deny", "Cascade", "No Action"])
        #expect(relationships.compactMap { ($0["maxCount"] as? NSNumber)?.intValue } == [1, 0, 5])
        let fetched = try #require(post["fetchedProperties"] as? [[String: Any]])
        #expect(fetched.first?["entity"] as? String == "Comment")
        #expect(fetched.first?["predicate"] as? String == "post == $FETCH_SOURCE AND text != nil")
        #expect((post["versionHash"] as? String).flatMap { Data(base64Encoded: $0) }?.count == 32)
        let item = try #require(entities.first { $0["name"] as? String == "Item" })
        #expect(item["abstract"] as? Bool == true)
        let templates = try #require(object["fetchRequests"] as? [[String: Any]])
        #expect(templates.compactMap { $0["name"] as? String } == ["PostsByAuthor", "TopPosts"])
        #expect(templates.last?["predicate"] as? String == "rating >= 4")
        #expect(object["configurations"] as? [String: [String]] == ["Content": ["Post", "Comment"], "People": ["Author"]])
        #expect(json.hasPrefix(#"{"entities": [{"name": "Item", "parent": null, "abstract": true, "className": "Item", "attributes": ["#))
        #expect(json.contains(#""configurations": {"Content": ["Post", "Comment"], "People": ["Author"]}}"#))
    }

    @Test func compileRunsAndWritesALoadableFolder() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("SampleModel.momd")
        let command = try #require(try CoreDataCommand.parseAsRoot(["model", "compile", Fixtures.sampleModel.path, "-o", output.path])
                                   as? ModelCommand.Compile)
        try command.run()
        let loaded = try NSManagedObjectModel.load(contentsOf: output)
        #expect(loaded.isEqual(try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel)))
        #expect(ModelInspection.json(for: loaded) == ModelInspection.json(for: try NSManagedObjectModel.load(contentsOf: Fixtures.sampleModel)))
        let inspect = try #require(try CoreDataCommand.parseAsRoot(["model", "inspect", directory.appendingPathComponent("missing").path])
                                   as? ModelCommand.Inspect)
        #expect(throws: ManagedObjectModelError.self) { try inspect.run() }
    }
}
