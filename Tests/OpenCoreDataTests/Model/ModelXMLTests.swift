import Testing
@testable import OpenCoreData

/// Every element and attribute of the Xcode format, read from ``ModelSamples/blogXML``.
@Suite struct ModelXMLTests {
    @Test func modelBuiltInCodeEqualsTheSameModelReadFromXML() throws {
        let (loaded, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let built = ModelSamples.blogInCode()
        for entity in built.entities {
            let other = try #require(loaded.entitiesByName[entity.name!])
            for property in entity.properties {
                #expect(property.isEqual(other.propertiesByName[property.name]), "\(entity.name!).\(property.name)")
            }
            #expect(entity.isEqual(other), "\(entity.name!)")
        }
        #expect(built.isEqual(loaded))
        #expect(loaded.isEqual(built))
        #expect(built.versionIdentifiers == loaded.versionIdentifiers)
        #expect(built.entityVersionHashesByName == loaded.entityVersionHashesByName)
    }

    @Test func equalityNoticesDifferences() throws {
        let (loaded, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let changed = ModelSamples.blogInCode()
        changed.entitiesByName["Post"]!.relationshipsByName["comments"]!.deleteRule = .nullifyDeleteRule
        #expect(!changed.isEqual(loaded))
        let renamed = ModelSamples.blogInCode()
        (renamed.entitiesByName["Tag"]!.attributesByName["label"]!).isOptional = true
        #expect(!renamed.isEqual(loaded))
        let template = ModelSamples.blogInCode()
        template.fetchRequestTemplate(forName: "TopPosts")!.fetchLimit = 11
        #expect(!template.isEqual(loaded))
    }

    @Test func attributesAndTypedDefaults() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let post = try #require(model.entitiesByName["Post"])
        let attributes = post.attributesByName
        #expect(attributes["rating"]?.defaultValue as? Int16 == 3)
        #expect(attributes["score"]?.defaultValue as? Double == 0.5)
        #expect(attributes["price"]?.defaultValue as? Decimal == Decimal(string: "9.99"))
        #expect(attributes["link"]?.defaultValue as? URL == URL(string: "https://example.com"))
        #expect(attributes["token"]?.defaultValue as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(attributes["featured"]?.defaultValue as? Bool == true)
        #expect(attributes["created"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 100))
        #expect(attributes["body"]?.allowsExternalBinaryDataStorage == true)
        let derived = try #require(attributes["commentCount"] as? NSDerivedAttributeDescription)
        #expect(derived.derivationExpression?.keyPath == "comments.@count")
        let title = try #require(attributes["title"])
        #expect(title.entity?.name == "Item")
        #expect(title.isIndexed && title.renamingIdentifier == "oldTitle")
        #expect(title.userInfo?["note"] as? String == "shown in lists")
        #expect(model.entitiesByName["Item"]?.userInfo?["table"] as? String == "items")
        #expect(model.entitiesByName["Item"]?.isAbstract == true)
        #expect(model.entitiesByName["Item"]?.versionHashModifier == "m1")
        #expect(model.entitiesByName["Comment"]?.managedObjectClassName == "NSManagedObject")
    }

    @Test func constraintsBecomeValidationPredicatesAsCoreDataCompilesThem() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let post = try #require(model.entitiesByName["Post"])
        let rating = try #require(post.attributesByName["rating"])
        #expect(rating.validationPredicates.map(\.predicateFormat) == ["SELF >= 1", "SELF <= 5"])
        #expect(rating.validationWarnings.compactMap { ($0 as? NSNumber)?.intValue } == [1620, 1610])
        #expect(rating.validationPredicates[0].evaluate(with: Int16(1)))
        #expect(!rating.validationPredicates[0].evaluate(with: Int16(0)))
        #expect(!rating.validationPredicates[1].evaluate(with: 6))
        let title = try #require(post.attributesByName["title"])
        #expect(title.validationPredicates.map(\.predicateFormat) == ["length >= 1", "length <= 80", #"SELF MATCHES "[A-Z].*""#])
        #expect(title.validationWarnings.compactMap { ($0 as? NSNumber)?.intValue } == [1670, 1660, 1680])
        #expect(!title.validationPredicates[2].evaluate(with: "lower"))
        #expect(title.validationPredicates[2].evaluate(with: "Upper"))
        let created = try #require(post.attributesByName["created"])
        #expect(created.validationWarnings.compactMap { ($0 as? NSNumber)?.intValue } == [1640])
        #expect(created.validationPredicates[0].evaluate(with: Date(timeIntervalSinceReferenceDate: 5)))
        #expect(!created.validationPredicates[0].evaluate(with: Date(timeIntervalSinceReferenceDate: -5)))
    }

    @Test func relationshipsFetchedPropertiesIndexesAndConstraints() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let post = try #require(model.entitiesByName["Post"])
        let relationships = post.relationshipsByName
        let author = try #require(relationships["author"])
        #expect(author.deleteRule == .denyDeleteRule && !author.isOptional && !author.isToMany)
        #expect(author.inverseRelationship?.entity?.name == "Author")
        let comments = try #require(relationships["comments"])
        #expect(comments.deleteRule == .cascadeDeleteRule && comments.isOrdered && comments.isToMany && comments.maxCount == 0)
        let tags = try #require(relationships["tags"])
        #expect(tags.deleteRule == .noActionDeleteRule && tags.minCount == 1 && tags.maxCount == 5 && tags.isToMany)
        #expect(tags.inverseRelationship === model.entitiesByName["Tag"]?.relationshipsByName["posts"])
        let recent = try #require(post.propertiesByName["recentComments"] as? NSFetchedPropertyDescription)
        #expect(recent.fetchRequest?.entityName == "Comment")
        #expect(recent.fetchRequest?.predicate?.predicateFormat == "post == $FETCH_SOURCE AND text != nil")
        let index = try #require(post.indexes.first)
        #expect(index.name == "byRating")
        #expect(index.elements.map(\.isAscending) == [false, true])
        #expect(index.elements[1].property === model.entitiesByName["Item"]?.propertiesByName["title"])
        #expect(post.uniquenessConstraints as? [[String]] == [["title", "author"]])
        #expect(post.properties.prefix(2).map(\.name) == ["created", "title"])
    }

    @Test func templatesConfigurationsAndSubstitution() throws {
        let (model, directory) = try ModelSamples.loadBlog()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(model.versionIdentifiers == ["v7"])
        #expect(model.configurations == ["Content", "People"])
        #expect(model.entities(forConfigurationName: "Content")?.map(\.name) == ["Post", "Comment"])
        #expect(model.entities(forConfigurationName: "People")?.map(\.name) == ["Author"])
        #expect(model.entities(forConfigurationName: nil)?.count == 5)
        #expect(model.entities(forConfigurationName: "PF_DEFAULT_CONFIGURATION_NAME")?.count == 5)
        #expect(model.entities(forConfigurationName: "Default")?.count == 5)
        #expect(model.entities(forConfigurationName: "Nope") == nil)

        let top = try #require(model.fetchRequestTemplate(forName: "TopPosts"))
        #expect(top.entity === model.entitiesByName["Post"])
        #expect(top.fetchLimit == 10 && !top.returnsObjectsAsFaults)
        #expect(top.predicate?.predicateFormat == "rating >= 4")
        let request = try #require(model.fetchRequestFromTemplate(withName: "PostsByAuthor", substitutionVariables: ["NAME": "Ann"]))
        #expect(request.predicate?.predicateFormat == #"author.name == "Ann""#)
        #expect(request.entity === model.entitiesByName["Post"])
        #expect(model.fetchRequestTemplate(forName: "PostsByAuthor")?.predicate?.predicateFormat == "author.name == $NAME")
        #expect(model.fetchRequestFromTemplate(withName: "Missing", substitutionVariables: [:]) == nil)
        model.setFetchRequestTemplate(nil, forName: "TopPosts")
        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["PostsByAuthor"])
    }

    @Test func toleratesOldSpellingsAndUnknownElements() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model name="" userDefinedModelVersionIdentifier="" type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1171" systemVersion="11D50" minimumToolsVersion="Xcode 4.1" macOSVersion="Automatic" iOSVersion="Automatic">
            <entity name="Event" representedClassName="Event" syncable="YES">
                <attribute name="timeStamp" optional="YES" attributeType="Date" minValueString="-978307200" syncable="YES"/>
                <attribute name="count" optional="YES" attributeType="Integer 16" defaultValueString="0.0" indexed="YES" syncable="YES"/>
                <attribute name="ratio" optional="YES" attributeType="Float" defaultValueString="0.0" syncable="YES"/>
                <attribute name="due" optional="YES" attributeType="Date" minDateTimeInterval="10" maxDateTimeInterval="20" syncable="YES"/>
                <attribute name="blob" optional="YES" attributeType="Transformable" syncable="YES"/>
                <attribute name="mystery" optional="YES" attributeType="Undefined" transient="YES" syncable="YES"/>
                <relationship name="children" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Event" inverseName="parent" inverseEntity="Event" storedInTruthFile="YES" syncable="YES"/>
                <relationship name="parent" optional="YES" minCount="1" maxCount="1" deletionRule="Nullify" destinationEntity="Event" inverseName="children" inverseEntity="Event" syncable="YES"/>
                <compoundIndexes><compoundIndex><index value="count"/></compoundIndex></compoundIndexes>
            </entity>
            <fetchRequest name="Recent" entity="Event" predicateString="count > 0" fetchBatchSize="20" includeSubentities="NO" includePendingChanges="NO" includePropertyValues="NO" returnDistinctResults="YES"/>
            <elements><element name="Event" positionX="0" positionY="0" width="0" height="0"/></elements>
        </model>
        """
        let model = try NSManagedObjectModel.load(contentsOf: try ModelSamples.writeVersion(xml, named: "Old", in: directory))
        #expect(model.versionIdentifiers.isEmpty)
        let event = try #require(model.entitiesByName["Event"])
        #expect(event.attributesByName["count"]?.defaultValue as? Int16 == 0)
        #expect(event.attributesByName["count"]?.isIndexed == true)
        #expect(event.attributesByName["ratio"]?.defaultValue as? Float == 0)
        #expect(event.attributesByName["blob"]?.attributeValueClassName == nil)
        #expect(event.attributesByName["mystery"]?.attributeType == .undefinedAttributeType)
        let dateMinimum = try #require(event.attributesByName["timeStamp"]?.validationPredicates.first)
        #expect(dateMinimum.predicateFormat == #"SELF >= CAST(-978307200.000000, "NSDate")"#)
        #expect(dateMinimum.evaluate(with: Date(timeIntervalSince1970: 0)))
        #expect(!dateMinimum.evaluate(with: Date(timeIntervalSince1970: -1)))
        let due = try #require(event.attributesByName["due"])
        #expect(due.validationPredicates.map(\.predicateFormat) == [#"SELF >= CAST(10.000000, "NSDate")"#, #"SELF <= CAST(20.000000, "NSDate")"#])
        #expect(due.validationWarnings.compactMap { ($0 as? NSNumber)?.intValue } == [1640, 1630])
        #expect(event.relationshipsByName["children"]?.inverseRelationship === event.relationshipsByName["parent"])
        #expect(event.relationshipsByName["children"]?.isStoredInExternalRecord == true)
        #expect(event.relationshipsByName["parent"]?.minCount == 1)
        let recent = try #require(model.fetchRequestTemplate(forName: "Recent"))
        #expect(recent.fetchBatchSize == 20 && !recent.includesSubentities && !recent.includesPendingChanges)
        #expect(!recent.includesPropertyValues && recent.returnsDistinctResults && recent.returnsObjectsAsFaults)
    }
}
