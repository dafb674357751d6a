@testable import OpenCoreData

/// Models written for the tests: an Xcode `contents` file using every element and attribute of
/// the format, and the same model built in code.
enum ModelSamples {
    /// Writes `contents` as `<directory>/<name>.xcdatamodel/contents` and returns the folder.
    static func writeVersion(_ contents: String, named name: String = "Blog", in directory: URL) throws -> URL {
        let folder = directory.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    /// A blog model with inheritance, every relationship shape, constraints, an index, user
    /// info, a fetched property, a derived attribute, templates and configurations. It also uses
    /// old spellings (`syncable`, `indexed`) and unknown elements and attributes, which the
    /// reader must ignore.
    static let blogXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" \
    systemVersion="1" minimumToolsVersion="Xcode 4.3" sourceLanguage="Swift" userDefinedModelVersionIdentifier="v7" futureAttribute="x">
        <entity name="Item" representedClassName="Item" isAbstract="YES" versionHashModifier="m1" codeGenerationType="class" syncable="YES">
            <attribute name="created" attributeType="Date" defaultDateTimeInterval="100" minValueString="0" usesScalarValueType="NO" syncable="YES"/>
            <attribute name="title" optional="YES" attributeType="String" minValueString="1" maxValueString="80" regularExpressionString="[A-Z].*" indexed="YES" elementID="oldTitle" syncable="YES">
                <userInfo>
                    <entry key="note" value="shown in lists"/>
                </userInfo>
            </attribute>
            <userInfo>
                <entry key="table" value="items"/>
            </userInfo>
        </entity>
        <entity name="Post" representedClassName="Post" parentEntity="Item" syncable="YES">
            <attribute name="rating" optional="YES" attributeType="Integer 16" defaultValueString="3" minValueString="1" maxValueString="5" usesScalarValueType="YES"/>
            <attribute name="score" optional="YES" attributeType="Double" defaultValueString="0.5"/>
            <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="9.99"/>
            <attribute name="body" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="link" optional="YES" attributeType="URI" defaultValueString="https://example.com"/>
            <attribute name="token" optional="YES" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F"/>
            <attribute name="commentCount" optional="YES" attributeType="Integer 32" derived="YES" derivationExpression="comments.@count"/>
            <attribute name="featured" attributeType="Boolean" defaultValueString="YES"/>
            <relationship name="author" maxCount="1" deletionRule="Deny" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>
            <relationship name="comments" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Comment" inverseName="post" inverseEntity="Comment"/>
            <relationship name="tags" optional="YES" toMany="YES" minCount="1" maxCount="5" deletionRule="No Action" destinationEntity="Tag" inverseName="posts" inverseEntity="Tag"/>
            <fetchedProperty name="recentComments" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Comment" predicateString="post == $FETCH_SOURCE AND text != nil"/>
            </fetchedProperty>
            <fetchIndex name="byRating">
                <fetchIndexElement property="rating" type="Binary" order="descending"/>
                <fetchIndexElement property="title" type="Binary" order="ascending"/>
            </fetchIndex>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="title"/>
                    <constraint value="author"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
            <somethingNew attribute="ignored"/>
        </entity>
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String" defaultValueString="Anonymous"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="author" inverseEntity="Post"/>
        </entity>
        <entity name="Comment" syncable="YES">
            <attribute name="text" optional="YES" attributeType="String"/>
            <relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="comments" inverseEntity="Post"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="label" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="tags" inverseEntity="Post"/>
        </entity>
        <fetchRequest name="PostsByAuthor" entity="Post" predicateString="author.name == $NAME"/>
        <fetchRequest name="TopPosts" entity="Post" predicateString="rating &gt;= 4" fetchLimit="10" returnObjectsAsFaults="NO"/>
        <configuration name="Content">
            <memberEntity name="Post"/>
            <memberEntity name="Comment"/>
        </configuration>
        <configuration name="People">
            <memberEntity name="Author"/>
        </configuration>
        <elements>
            <element name="Post" positionX="0" positionY="0" width="128" height="100"/>
        </elements>
    </model>
    """

    /// The blog model built in code, equal to ``blogXML`` read from disk.
    static func blogInCode() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            attribute.defaultValue = defaultValue
            return attribute
        }
        func relationship(_ name: String, to destination: NSEntityDescription, maxCount: Int, rule: NSDeleteRule,
                          optional: Bool = true) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = maxCount
            relationship.deleteRule = rule
            relationship.isOptional = optional
            return relationship
        }
        func entity(_ name: String, className: String = "NSManagedObject") -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName = className
            return entity
        }

        let item = entity("Item", className: "Item")
        let post = entity("Post", className: "Post")
        let author = entity("Author", className: "Author")
        let comment = entity("Comment")
        let tag = entity("Tag", className: "Tag")

        item.isAbstract = true
        item.versionHashModifier = "m1"
        item.userInfo = ["table": "items"]
        let created = attribute("created", .dateAttributeType, optional: false, defaultValue: Date(timeIntervalSinceReferenceDate: 100))
        created.setValidationPredicates([NSPredicate(format: #"SELF >= CAST(0, "NSDate")"#)], warnings: [NSNumber(value: 1640)])
        let title = attribute("title", .stringAttributeType)
        title.isIndexed = true
        title.renamingIdentifier = "oldTitle"
        title.userInfo = ["note": "shown in lists"]
        title.setValidationPredicates([NSPredicate(format: "length >= 1"), NSPredicate(format: "length <= 80"),
                                       NSPredicate(format: "SELF MATCHES %@", "[A-Z].*")],
                                      warnings: [NSNumber(value: 1670), NSNumber(value: 1660), NSNumber(value: 1680)])
        item.properties = [created, title]

        let rating = attribute("rating", .integer16AttributeType, defaultValue: Int16(3))
        rating.setValidationPredicates([NSPredicate(format: "SELF >= 1"), NSPredicate(format: "SELF <= 5")],
                                       warnings: [NSNumber(value: 1620), NSNumber(value: 1610)])
        let body = attribute("body", .binaryDataAttributeType)
        body.allowsExternalBinaryDataStorage = true
        let commentCount = NSDerivedAttributeDescription()
        commentCount.name = "commentCount"
        commentCount.attributeType = .integer32AttributeType
        commentCount.derivationExpression = NSExpression(format: "comments.@count")
        let postAuthor = relationship("author", to: author, maxCount: 1, rule: .denyDeleteRule, optional: false)
        let postComments = relationship("comments", to: comment, maxCount: 0, rule: .cascadeDeleteRule)
        postComments.isOrdered = true
        let postTags = relationship("tags", to: tag, maxCount: 5, rule: .noActionDeleteRule)
        postTags.minCount = 1
        let recent = NSFetchedPropertyDescription()
        recent.name = "recentComments"
        let recentRequest = NSFetchRequest<NSFetchRequestResult>(entityName: "Comment")
        recentRequest.predicate = NSPredicate(format: "post == $FETCH_SOURCE AND text != nil")
        recent.fetchRequest = recentRequest
        post.properties = [
            rating,
            attribute("score", .doubleAttributeType, defaultValue: 0.5),
            attribute("price", .decimalAttributeType, defaultValue: Decimal(string: "9.99")),
            body,
            attribute("link", .URIAttributeType, defaultValue: URL(string: "https://example.com")),
            attribute("token", .UUIDAttributeType, defaultValue: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
            commentCount,
            attribute("featured", .booleanAttributeType, optional: false, defaultValue: true),
            postAuthor, postComments, postTags, recent,
        ]
        let ratingIndex = NSFetchIndexElementDescription(property: rating, collationType: .binary)
        ratingIndex.isAscending = false
        post.indexes = [NSFetchIndexDescription(name: "byRating", elements: [ratingIndex,
                                                                             NSFetchIndexElementDescription(property: title, collationType: .binary)])]
        post.uniquenessConstraints = [["title", "author"]]

        let authorPosts = relationship("posts", to: post, maxCount: 0, rule: .nullifyDeleteRule)
        author.properties = [attribute("name", .stringAttributeType, optional: false, defaultValue: "Anonymous"), authorPosts]
        let commentPost = relationship("post", to: post, maxCount: 1, rule: .nullifyDeleteRule)
        comment.properties = [attribute("text", .stringAttributeType), commentPost]
        let tagPosts = relationship("posts", to: post, maxCount: 0, rule: .nullifyDeleteRule)
        tag.properties = [attribute("label", .stringAttributeType, optional: false), tagPosts]

        postAuthor.inverseRelationship = authorPosts
        authorPosts.inverseRelationship = postAuthor
        postComments.inverseRelationship = commentPost
        commentPost.inverseRelationship = postComments
        postTags.inverseRelationship = tagPosts
        tagPosts.inverseRelationship = postTags

        item.subentities = [post]
        let model = NSManagedObjectModel()
        model.entities = [item, post, author, comment, tag]
        model.versionIdentifiers = ["v7"]
        model.setEntities([post, comment], forConfigurationName: "Content")
        model.setEntities([author], forConfigurationName: "People")
        let byAuthor = NSFetchRequest<NSFetchRequestResult>(entityName: "Post")
        byAuthor.predicate = NSPredicate(format: "author.name == $NAME")
        model.setFetchRequestTemplate(byAuthor, forName: "PostsByAuthor")
        let top = NSFetchRequest<NSFetchRequestResult>(entityName: "Post")
        top.predicate = NSPredicate(format: "rating >= 4")
        top.fetchLimit = 10
        top.returnsObjectsAsFaults = false
        model.setFetchRequestTemplate(top, forName: "TopPosts")
        return model
    }

    /// Loads ``blogXML`` from a fresh temporary folder.
    /// Adds the template `AuthorsByName` (sorted, properties to fetch, dictionary results) to a
    /// blog model, for the compiled-format round trips.
    static func addAuthorsByName(to model: NSManagedObjectModel) {
        let sorted = NSFetchRequest<NSFetchRequestResult>(entityName: "Author")
        sorted.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        sorted.propertiesToFetch = ["name"]
        sorted.resultType = .dictionaryResultType
        model.setFetchRequestTemplate(sorted, forName: "AuthorsByName")
    }

    static func loadBlog() throws -> (model: NSManagedObjectModel, directory: URL) {
        let directory = try Fixtures.temporaryDirectory()
        let url = try writeVersion(blogXML, in: directory)
        return (try NSManagedObjectModel.load(contentsOf: url), directory)
    }
}
