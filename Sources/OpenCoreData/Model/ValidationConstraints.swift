/// Core Data's validation error codes that model constraints use as validation warnings.
///
/// The object graph's public error constants carry the same values.
enum ValidationWarningCode: Int {
    case numberTooLarge = 1610
    case numberTooSmall = 1620
    case dateTooLate = 1630
    case dateTooEarly = 1640
    case stringTooLong = 1660
    case stringTooShort = 1670
    case stringPatternMatching = 1680
}

extension NSAttributeDescription {
    /// The validation predicates and warnings Core Data compiles from an attribute's minimum,
    /// maximum and regular expression (`minValueString`, `maxValueString`,
    /// `regularExpressionString` in an Xcode model):
    /// - numbers: `SELF >= min`, `SELF <= max`, warnings 1620 and 1610;
    /// - dates (written as seconds since 2001): `SELF >= CAST(seconds, "NSDate")` and `<=`, warnings
///   1640 and 1630;
    /// - strings and binary data: `length >= min`, `length <= max`, warnings 1670 and 1660;
    /// - a regular expression: `SELF MATCHES pattern`, warning 1680.
    ///
    /// A bound that does not fit the type is returned in `invalid` and produces no predicate.
    static func constraintPredicates(type: NSAttributeType, minimum: String?, maximum: String?, regularExpression: String?)
        -> (predicates: [NSPredicate], warnings: [Any], invalid: [String]) {
        var predicates: [NSPredicate] = []
        var warnings: [Any] = []
        var invalid: [String] = []

        func bound(_ string: String?, _ operatorType: NSComparisonPredicate.Operator,
                   numberCode: ValidationWarningCode, dateCode: ValidationWarningCode, lengthCode: ValidationWarningCode) {
            guard let string, !string.isEmpty else { return }
            let left: NSExpression
            let value: Any?
            let code: ValidationWarningCode
            switch type {
            case .stringAttributeType, .binaryDataAttributeType, .URIAttributeType:
                left = NSExpression(forKeyPath: "length")
                value = NSAttributeType.integer64AttributeType.value(fromModelString: string)
                code = lengthCode
            case .dateAttributeType:
                // A `Date` constant, which prints as `CAST(<seconds since 2001>, "NSDate")` as
                // Core Data writes date bounds, and which the parser folds that form back into.
                left = NSExpression.expressionForEvaluatedObject()
                value = Double(string.trimmingCharacters(in: .whitespaces)).map { Date(timeIntervalSinceReferenceDate: $0) }
                code = dateCode
            case let numeric where numeric.isNumeric:
                left = NSExpression.expressionForEvaluatedObject()
                value = type.value(fromModelString: string)
                code = numberCode
            default:
                invalid.append(string)
                return
            }
            guard let value else {
                invalid.append(string)
                return
            }
            predicates.append(NSComparisonPredicate(leftExpression: left, rightExpression: NSExpression(forConstantValue: value),
                                                    modifier: .direct, type: operatorType))
            warnings.append(NSNumber(value: code.rawValue))
        }

        bound(minimum, .greaterThanOrEqualTo, numberCode: .numberTooSmall, dateCode: .dateTooEarly, lengthCode: .stringTooShort)
        bound(maximum, .lessThanOrEqualTo, numberCode: .numberTooLarge, dateCode: .dateTooLate, lengthCode: .stringTooLong)
        if let regularExpression, !regularExpression.isEmpty {
            predicates.append(NSComparisonPredicate(leftExpression: .expressionForEvaluatedObject(),
                                                    rightExpression: NSExpression(forConstantValue: regularExpression),
                                                    modifier: .direct, type: .matches))
            warnings.append(NSNumber(value: ValidationWarningCode.stringPatternMatching.rawValue))
        }
        return (predicates, warnings, invalid)
    }
}
