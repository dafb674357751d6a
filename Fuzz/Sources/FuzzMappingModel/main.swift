import FuzzerDriver
import OpenCoreDataFuzzing

// libFuzzer entry points for the `mapping-model` target (see Fuzz/README.md). The reader is driven by
// `FuzzTarget.mappingModel` in the main package, which the regression tests share.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    FuzzTarget.mappingModel.initialize()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    FuzzTarget.mappingModel.run(bytes, count)
}

/// SwiftPM links a debug executable with `--defsym main=FuzzMappingModel_main` (its entry point renamed
/// for testing); with `-parse-as-library` there is no such function, so this one hands over to
/// libFuzzer's driver, as libFuzzer's own `main` does.
@_cdecl("FuzzMappingModel_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv, testOneInput)
}
