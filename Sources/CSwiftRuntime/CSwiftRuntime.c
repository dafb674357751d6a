// The target is only a header (include/CSwiftRuntime.h) declaring functions of the Swift runtime;
// SwiftPM needs one source file to build a C target.
#include "CSwiftRuntime.h"
