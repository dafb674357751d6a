import Testing
@testable import OpenCoreData

/// Every format of the parser's real-world corpus evaluates on an object whose keys are all
/// missing: either to a Boolean or to a typed ``PredicateEvaluationError``, never a trap.
@Suite struct EvaluationCorpusTests {
    /// Binds every `$NAME` of the format to NSNull, so that only the evaluation itself can fail.
    static func nullVariables(in format: String) -> [String: Any] {
        var variables: [String: Any] = [:]
        var rest = Substring(format)
        while let dollar = rest.firstIndex(of: "$") {
            let name = rest[rest.index(after: dollar)...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty { variables[String(name)] = NSNull() }
            rest = rest[rest.index(after: dollar)...]
        }
        return variables
    }

    @Test(arguments: RealWorldCorpus.samples)
    func evaluatesOrThrowsTypedError(_ sample: Sample) throws {
        let predicate = try sample.parse()
        do {
            _ = try predicate.evaluateThrowing(with: [String: Any](), substitutionVariables: Self.nullVariables(in: sample.format))
        } catch let error as PredicateEvaluationError {
            #expect(!error.description.isEmpty)
        }
    }

    @Test func mostOfTheCorpusEvaluatesOnAnEmptyObject() throws {
        var failures: [String] = []
        for sample in RealWorldCorpus.samples {
            do {
                _ = try sample.parse().evaluateThrowing(with: [String: Any](), substitutionVariables: Self.nullVariables(in: sample.format))
            } catch PredicateEvaluationError.unknownSelector {
                // FUNCTION calls of app-defined selectors on SELF: a dictionary cannot answer them.
                failures.append(sample.format)
            }
        }
        #expect(failures.count * 20 < RealWorldCorpus.samples.count, "\(failures.joined(separator: "\n"))")
    }
}
