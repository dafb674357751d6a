#ifndef OPENCOREDATA_C_SWIFT_RUNTIME_H
#define OPENCOREDATA_C_SWIFT_RUNTIME_H

/// The Swift runtime's atomic "retain unless deinitializing", exported by libswiftCore on every
/// platform (Swift's weak references use it): returns `object` with one more strong reference,
/// or NULL when the object's deinitialization has begun. Swift has no public spelling of it.
void *_Nullable swift_tryRetain(void *_Nonnull object);

#endif
