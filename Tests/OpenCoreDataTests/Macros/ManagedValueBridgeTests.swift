import Foundation
import Testing
@testable import OpenCoreData

/// The conversions `@Managed` accessors apply to values read through key-value coding.
@Suite("@Managed value conversions")
struct ManagedValueBridgeTests {
    @Test("Integers convert exactly across widths, as NSNumber bridges them")
    func integersAcrossWidths() {
        #expect(ManagedValueBridge.cast(Int64(42), to: Int32.self) == 42)
        #expect(ManagedValueBridge.cast(Int(-7), to: Int16.self) == -7)
        #expect(ManagedValueBridge.cast(Int32(5), to: Int64.self) == 5)
        #expect(ManagedValueBridge.cast(Int32(5), to: Int.self) == 5)
        #expect(ManagedValueBridge.cast(Double(3), to: Int32.self) == 3)
        #expect(ManagedValueBridge.cast(Decimal(12), to: Int64.self) == 12)
        #expect(ManagedValueBridge.cast(NSNumber(value: 9), to: Int32.self) == 9)
    }

    @Test("A number that does not fit the property's type is not converted")
    func numbersThatDoNotFit() {
        #expect(ManagedValueBridge.cast(Int64(300), to: Int8.self) == nil)
        #expect(ManagedValueBridge.cast(Int64(Int32.max) + 1, to: Int32.self) == nil)
        #expect(ManagedValueBridge.cast(2.5, to: Int32.self) == nil)
        #expect(ManagedValueBridge.cast(Int64(-1), to: UInt32.self) == nil)
        #expect(ManagedValueBridge.cast("12", to: Int32.self) == nil)
    }

    @Test("Floating-point, decimal and Boolean properties read any number")
    func otherNumbers() {
        #expect(ManagedValueBridge.cast(Int32(2), to: Double.self) == 2.0)
        #expect(ManagedValueBridge.cast(Double(1.5), to: Float.self) == 1.5)
        #expect(ManagedValueBridge.cast(Int64(7), to: Decimal.self) == Decimal(7))
        #expect(ManagedValueBridge.cast(Int64(1), to: Bool.self) == true)
        #expect(ManagedValueBridge.cast(Int16(0), to: Bool.self) == false)
        #expect(ManagedValueBridge.cast(Int64(2), to: Bool.self) == nil)
    }

    @Test("Values of the property's own type pass through")
    func sameType() {
        let date = Date(timeIntervalSinceReferenceDate: 100)
        #expect(ManagedValueBridge.cast(date, to: Date.self) == date)
        #expect(ManagedValueBridge.cast("名字", to: String.self) == "名字")
        #expect(ManagedValueBridge.cast(Data([1, 2]), to: Data.self) == Data([1, 2]))
        #expect(ManagedValueBridge.cast(date, to: String.self) == nil)
    }

    @Test("keyValueForm unwraps optionals and leaves other values as they are")
    func keyValueForm() {
        let none: String? = nil
        #expect(ManagedValueBridge.keyValueForm(none) == nil)
        let some: String? = "a"
        #expect(ManagedValueBridge.keyValueForm(some) as? String == "a")
        let nested: Int32?? = .some(.some(4))
        #expect(ManagedValueBridge.keyValueForm(nested) as? Int32 == 4)
        #expect(ManagedValueBridge.keyValueForm(Int32(3)) as? Int32 == 3)
    }
}
