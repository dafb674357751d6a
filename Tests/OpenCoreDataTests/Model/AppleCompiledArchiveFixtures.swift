@testable import OpenCoreData

/// Builds small keyed archives shaped as Apple's Foundation and Core Data write them, for what the
/// momc fixtures do not contain. References are written as `{"CF$UID": n}` dictionaries, the
/// XML-plist form of a keyed-archiver UID.
final class ArchiveBuilder {
    private var objects: [Any] = ["$null"]
    private var classIndexes: [String: Int] = [:]

    typealias Ref = [String: Any]

    /// Appends a plain value (string, number) and returns its reference.
    func value(_ value: Any) -> Ref {
        objects.append(value)
        return ["CF$UID": objects.count - 1]
    }

    /// Appends an object of class `chain[0]` (its superclasses follow) with `fields`.
    func object(_ chain: [String], _ fields: [String: Any]) -> Ref {
        let classRef = classRecord(chain)
        var dictionary = fields
        dictionary["$class"] = classRef
        objects.append(dictionary)
        return ["CF$UID": objects.count - 1]
    }

    func array(_ items: [Ref], className: String = "NSArray") -> Ref {
        object([className, "NSObject"], ["NS.objects": items])
    }

    func dictionary(_ entries: [(String, Ref)], className: String = "NSDictionary") -> Ref {
        object([className, "NSObject"], ["NS.keys": entries.map { value($0.0) }, "NS.objects": entries.map(\.1)])
    }

    func data(root: Ref) throws -> Data {
        let plist: [String: Any] = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": root], "$objects": objects]
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    private func classRecord(_ chain: [String]) -> Ref {
        if let index = classIndexes[chain[0]] { return ["CF$UID": index] }
        objects.append(["$classname": chain[0], "$classes": chain])
        classIndexes[chain[0]] = objects.count - 1
        return ["CF$UID": objects.count - 1]
    }

    // MARK: Predicates and expressions as Foundation archives them

    func keyPath(_ path: String) -> Ref {
        object(["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"], [
            "NSExpressionType": 3,
            "NSOperand": object(["NSSelfExpression", "NSExpression", "NSObject"], ["NSExpressionType": 1]),
            "NSSelectorName": value("valueForKeyPath:"),
            "NSArguments": array([object(["NSKeyPathSpecifierExpression", "NSExpression", "NSObject"],
                                         ["NSExpressionType": 10, "NSKeyPath": value(path)])]),
        ])
    }

    func constant(_ constant: Any) -> Ref {
        object(["NSConstantValueExpression", "NSExpression", "NSObject"], ["NSExpressionType": 0, "NSConstantValue": value(constant)])
    }

    func variable(_ name: String) -> Ref {
        object(["NSVariableExpression", "NSExpression", "NSObject"], ["NSExpressionType": 2, "NSVariable": value(name)])
    }

    func evaluatedObject() -> Ref {
        object(["NSSelfExpression", "NSExpression", "NSObject"], ["NSExpressionType": 1])
    }

    func comparison(_ left: Ref, _ operatorClass: String, type: Int, options: (key: String, value: Int)? = nil, _ right: Ref) -> Ref {
        var operatorFields: [String: Any] = ["NSOperatorType": type, "NSModifier": 0]
        if let options { operatorFields[options.key] = options.value }
        return object(["NSComparisonPredicate", "NSPredicate", "NSObject"], [
            "NSLeftExpression": left, "NSRightExpression": right,
            "NSPredicateOperator": object([operatorClass, "NSPredicateOperator", "NSObject"], operatorFields),
        ])
    }

    func and(_ subpredicates: [Ref]) -> Ref {
        object(["NSCompoundPredicate", "NSPredicate", "NSObject"], ["NSCompoundPredicateType": 1, "NSSubpredicates": array(subpredicates)])
    }
}

/// The hand-made compiled models of ``AppleCompiledModelReaderTests``.
enum HandMadeArchive {
    static let attributeClasses = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
    static let entityClasses = ["NSEntityDescription", "NSObject"]

    /// `Item(count: Integer 16 in 1...10 default 3, title: String ≤ 20 matching [a-z]+)`, a
    /// configuration "Cloud", and a fetch request template "recent".
    static var model: Data {
        let b = ArchiveBuilder()
        let count = b.object(attributeClasses, [
            "NSPropertyName": b.value("count"), "NSAttributeType": 100, "NSDefaultValue": b.value(3),
            "NSAttributeValueClassName": b.value("NSNumber"), "NSIsOptional": true, "_P": 243,
            "NSFlagsKey": 3, "NSMinValueName": 1, "NSMaxValueName": 10,
        ])
        let matches = b.comparison(b.evaluatedObject(), "NSMatchingPredicateOperator", type: 6, options: ("NSFlags", 0),
                                   b.constant("[a-z]+"))
        let title = b.object(attributeClasses, [
            "NSPropertyName": b.value("title"), "NSAttributeType": 700, "NSAttributeValueClassName": b.value("NSString"),
            "NSIsOptional": true, "_P": 195, "NSFlagsKey": 1, "NSMaxValueName": 20,
            "NSValidationPredicates": b.array([matches]), "NSValidationWarnings": b.array([b.value(1680)]),
            "NSUserInfo": b.dictionary([("hint", b.value("short"))]), "NSVersionHashModifier": b.value("t2"),
        ])
        // 9.99 as NSDecimalNumber archives it: mantissa 999 (little-endian bytes), exponent -2.
        let nineNinetyNine = b.object(["NSDecimalNumberPlaceholder", "NSDecimalNumber", "NSNumber", "NSValue", "NSObject"], [
            "NS.mantissa": Data([0xE7, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), "NS.exponent": -2,
            "NS.length": 1, "NS.negative": false, "NS.compact": true, "NS.mantissa.bo": 1,
        ])
        let price = b.object(attributeClasses, [
            "NSPropertyName": b.value("price"), "NSAttributeType": 400, "NSDefaultValue": nineNinetyNine,
            "NSIsOptional": true, "_P": 243, "NSFlagsKey": 0,
        ])
        // A fetched property: the request's entity is conditional (absent), named beside it.
        let similarRequest = b.object(["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"], [
            "NSPredicate": b.comparison(b.keyPath("title"), "NSEqualityPredicateOperator", type: 4, options: ("NSOptions", 0),
                                        b.object(["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"], [
                                            "NSExpressionType": 3, "NSOperand": b.variable("FETCH_SOURCE"),
                                            "NSSelectorName": b.value("valueForKeyPath:"),
                                            "NSArguments": b.array([b.object(["NSKeyPathSpecifierExpression", "NSExpression", "NSObject"],
                                                                             ["NSExpressionType": 10, "NSKeyPath": b.value("title")])]),
                                        ])),
        ])
        let similar = b.object(["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"], [
            "NSPropertyName": b.value("similar"), "NSFetchRequest": similarRequest,
            "_NSFetchRequestEntityName": b.value("Item"), "_P": 243,
        ])
        let item = b.object(entityClasses, [
            "NSEntityName": b.value("Item"), "NSClassNameForEntity": b.value("Item"),
            "NSUserInfo": b.dictionary([("origin", b.value("test"))]), "NSVersionHashModifier": b.value("v7"),
            "NSProperties": b.dictionary([("similar", similar), ("count", count), ("title", title), ("price", price)],
                                         className: "NSMutableDictionary"),
            "NSSubentities": b.dictionary([], className: "NSMutableDictionary"),
        ])
        let predicate = b.and([
            b.comparison(b.keyPath("count"), "NSComparisonPredicateOperator", type: 2, options: ("NSOptions", 0), b.variable("MIN")),
            b.comparison(b.keyPath("title"), "NSBeginsWithPredicateOperator", type: 8, options: ("NSFlags", 3), b.constant("a")),
        ])
        let sort = b.object(["NSSortDescriptor", "NSObject"], ["NSKey": b.value("title"), "NSAscending": false])
        let request = b.object(["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"], [
            "NSEntity": item, "NSPredicate": predicate, "NSSortDescriptors": b.array([sort]), "NSFetchLimit": 5,
            "NSHasFetchRequestFlags": true, "NSFetchRequestFlags": 30, "NSResultType": 0,
        ])
        let root = b.object(["NSManagedObjectModel", "NSObject"], [
            "NSEntities": b.dictionary([("Item", item)], className: "NSMutableDictionary"),
            "NSConfigurations": b.dictionary([("Cloud", b.array([item], className: "NSSet"))]),
            "NSFetchRequestTemplates": b.dictionary([("recent", request)]),
            "NSVersionIdentifiers": b.array([b.value("9")], className: "NSSet"),
        ])
        return try! b.data(root: root)
    }

    /// An archive whose root is a dictionary, not a model.
    static var notAModel: Data {
        let b = ArchiveBuilder()
        return try! b.data(root: b.dictionary([("a", b.value("b"))]))
    }

    /// A relationship whose destination entity (or, with `inverse`, whose inverse) the model lacks.
    static func danglingRelationship(inverse: Bool = false) -> Data {
        let b = ArchiveBuilder()
        var fields: [String: Any] = [
            "NSPropertyName": b.value("ghost"), "_NSDestinationEntityName": b.value(inverse ? "Item" : "Ghost"),
            "NSMaxCount": 1, "_P": 243,
        ]
        if inverse { fields["_NSInverseRelationshipName"] = b.value("haunts") }
        let ghost = b.object(["NSRelationshipDescription", "NSPropertyDescription", "NSObject"], fields)
        let item = b.object(entityClasses, [
            "NSEntityName": b.value("Item"), "NSProperties": b.dictionary([("ghost", ghost)]),
        ])
        return try! b.data(root: b.object(["NSManagedObjectModel", "NSObject"], ["NSEntities": b.dictionary([("Item", item)])]))
    }
}
