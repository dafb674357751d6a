#ifndef OPENCOREDATA_C_SWIFT_RUNTIME_H
#define OPENCOREDATA_C_SWIFT_RUNTIME_H

#include <stdbool.h>

/// The Swift runtime's atomic "retain unless deinitializing", exported by libswiftCore on every
/// platform (Swift's weak references use it): returns `object` with one more strong reference,
/// or NULL when the object's deinitialization has begun. Swift has no public spelling of it.
void *_Nullable swift_tryRetain(void *_Nonnull object);

/// The Swift runtime's unowned reference count (what Swift's `unowned` references hold): while
/// it is above zero, a native object's memory stays allocated after its deinitialization, so
/// that `swift_tryRetain` may still be asked about it. Both accept NULL.
void *_Nullable swift_unownedRetain(void *_Nullable object);
void swift_unownedRelease(void *_Nullable object);

/// The Swift runtime's test of whether an object's deinitialization has begun: a plain read of
/// its reference counts, neither atomic read-modify-write nor retain (exported by libswiftCore
/// on every platform). The object's memory must be allocated (an unowned count keeps it).
bool swift_isDeallocating(void *_Nonnull object);

#endif
