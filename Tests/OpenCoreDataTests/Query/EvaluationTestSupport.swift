import Testing
@testable import OpenCoreData

/// Helpers for the evaluator tests: parse with the format parser, evaluate with the throwing API.
enum Eval {
    /// Parses `format` with `args` and evaluates it against `object`.
    static func test(_ format: String, _ object: Any? = nil, _ args: Any?..., variables: [String: Any] = [:]) throws -> Bool {
        let predicate = try NSPredicate(validatingFormat: format, argumentArray: args)
        return try predicate.evaluateThrowing(with: object, substitutionVariables: variables)
    }

    /// Parses the expression `format` and evaluates it against `object`.
    static func value(_ format: String, _ object: Any? = nil, _ args: Any?..., variables: [String: Any] = [:]) throws -> Any? {
        let expression = try NSExpression(validatingFormat: format, argumentArray: args)
        return try expression.expressionValueThrowing(with: object, variables: variables)
    }

    /// The error thrown by evaluating `format`, or `nil`.
    static func error(_ format: String, _ object: Any? = nil, _ args: Any?..., variables: [String: Any] = [:]) -> PredicateEvaluationError? {
        do {
            let predicate = try NSPredicate(validatingFormat: format, argumentArray: args)
            _ = try predicate.evaluateThrowing(with: object, substitutionVariables: variables)
            return nil
        } catch let error as PredicateEvaluationError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    /// The error thrown by evaluating the expression `format`, or `nil`.
    static func valueError(_ format: String, _ object: Any? = nil, _ args: Any?..., variables: [String: Any] = [:]) -> PredicateEvaluationError? {
        do {
            let expression = try NSExpression(validatingFormat: format, argumentArray: args)
            _ = try expression.expressionValueThrowing(with: object, variables: variables)
            return nil
        } catch let error as PredicateEvaluationError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    /// Whether `value` equals `expected` by the evaluator's own rules, with the same type family.
    static func same(_ value: Any?, _ expected: Any?) -> Bool {
        ValueComparison.isEqual(value, expected, options: [])
    }
}

/// A plain Swift type read through `Mirror`.
struct KVCPerson {
    var name: String
    var age: Int
    var nickname: String?
    var friends: [KVCPerson] = []
}

/// A class hierarchy read through `Mirror`, superclass properties included.
class KVCAnimal {
    let legs: Int
    init(legs: Int) { self.legs = legs }
}

final class KVCDog: KVCAnimal, @unchecked Sendable {
    let breed: String
    init(breed: String) { self.breed = breed; super.init(legs: 4) }
}

/// A type that adopts the key-value protocol and reports unknown keys like an entity.
struct KVCRecord: KeyValueCoding {
    var values: [String: Any]
    func value(forKey key: String) -> Any? { values[key] }
    func valueThrowing(forKey key: String) throws -> Any? {
        guard let value = values[key] else { throw KeyValueCodingError.unknownKey(key: key, owner: "entity KVCRecord") }
        return value
    }
}
