import Testing
@testable import OpenCoreData

/// Format strings as Core Data apps write them, evaluated on a small object graph of dictionaries.
@Suite struct EvaluationRealWorldTests {
    static let day: Double = 86_400
    static var book: [String: Any] {
        [
            "title": "Le Petit Prince", "isbn": "978-0156012195", "pages": Int16(96), "price": 9.99, "inStock": true,
            "publicationDate": Date(timeIntervalSinceReferenceDate: 100 * day), "subtitle": NSNull(),
            "mainAuthor": ["firstName": "Antoine", "lastName": "de Saint-Exupéry"] as [String: Any],
            "tags": Set<AnyHashable>([["name": "classic"] as [String: String], ["name": "children"]]),
            "items": [["price": 5, "name": "paperback"], ["price": 15, "name": "hardcover"]],
        ]
    }

    static var cases: [(String, [Any?], [String: Any], Bool)] { [
        ("%K == nil AND %K == %@", ["subtitle", "title", "Le Petit Prince"], [:], true),
        ("%K == nil", ["title"], [:], false),
        ("(mainAuthor.firstName like[cd] $FIRST_NAME) AND (mainAuthor.lastName like[cd] $LAST_NAME) AND (publicationDate > $DATE)",
         [], ["FIRST_NAME": "antoine", "LAST_NAME": "DE SAINT*", "DATE": Date(timeIntervalSinceReferenceDate: 0)], true),
        ("ANY tags.name IN %@", [["classic", "sci-fi"]], [:], true),
        ("ANY tags.name IN %@", [["sci-fi"]], [:], false),
        ("SUBQUERY(items, $i, $i.price > 10).@count > 0", [], [:], true),
        ("SUBQUERY(items, $i, $i.price > 100).@count > 0", [], [:], false),
        ("self.title CONTAINS[cd] %@", ["petit"], [:], true),
        ("NOT (self.isbn IN %@)", [["1", "2"]], [:], true),
        ("publicationDate BETWEEN {$YESTERDAY, $TOMORROW}", [],
         ["YESTERDAY": Date(timeIntervalSinceReferenceDate: 99 * day), "TOMORROW": Date(timeIntervalSinceReferenceDate: 101 * day)], true),
        ("pages == \"96\"", [], [:], false),
        ("pages == 96 AND price < 10.0 AND inStock == YES", [], [:], true),
        ("subtitle = nil OR subtitle BEGINSWITH 'x'", [], [:], true),
        ("pages > %d", [Int32(50)], [:], true),
        ("price >= %f", [9.99], [:], true),
        ("items.@count == 2 AND items.@sum.price == 20 AND items.@avg.price == 10", [], [:], true),
        ("items.@max.price == 15 AND items.@min.price == 5", [], [:], true),
        ("ALL items.price > 1 AND NONE items.name == 'ebook'", [], [:], true),
        ("title MATCHES '.*Prince$' AND isbn MATCHES '[0-9-]+'", [], [:], true),
        ("mainAuthor.lastName ENDSWITH[d] 'Exupery'", [], [:], true),
        ("title LIKE 'Le * Prince'", [], [:], true),
        ("TERNARY(inStock == YES, price, 0) > 5", [], [:], true),
        ("FUNCTION(title, 'uppercase:') == 'LE PETIT PRINCE'", [], [:], true),
        ("CAST(publicationDate, 'NSNumber') == %@", [100 * day], [:], true),
        ("items[FIRST].name == 'paperback' AND items[LAST].price == 15 AND items[SIZE] == 2", [], [:], true),
        ("price * 2 BETWEEN {19, 20}", [], [:], true),
        ("(pages + 4) / 10 == 10", [], [:], true),
        ("tags.@count == 2", [], [:], true),
        ("%@ CONTAINS title", [["Le Petit Prince", "Vol de nuit"]], [:], true),
    ] }

    @Test(arguments: 0..<29)
    func evaluates(_ index: Int) throws {
        let (format, arguments, variables, expected) = Self.cases[index]
        let predicate = try NSPredicate(validatingFormat: format, argumentArray: arguments)
        #expect(try predicate.evaluateThrowing(with: Self.book, substitutionVariables: variables) == expected, "\(format)")
    }

    @Test func tableSize() { #expect(Self.cases.count == 29) }

    @Test func filtersArraysOfStructs() throws {
        let people = [KVCPerson(name: "Ann", age: 31), KVCPerson(name: "Bob", age: 17), KVCPerson(name: "Cy", age: 45, nickname: "C")]
        let adults = NSPredicate(format: "age >= 18 AND nickname == nil")
        #expect(people.filter { adults.evaluate(with: $0) }.map(\.name) == ["Ann"])
        #expect(try Eval.value("@avg.age", people) as? Double == 31)
    }
}
