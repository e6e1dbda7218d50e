/* asmspy/api.h — what marks libasmspy's public entry points.
 *
 * libasmspy is built with hidden visibility by default, so the shared
 * library exports exactly the calls declared ASMSPY_API in the public headers
 * (asmspy.h, scope.h, recording.h) — every one named asmspy_*. The writer,
 * the recording reader, symbols, the seam and the other host internals stay
 * private: applications that need them (the asmspy command, its tests) link
 * the static libasmspy.a; plugins reach host services only through the
 * asmspy_host_api table, never by symbol. */
#ifndef ASMSPY_API_H
#define ASMSPY_API_H

#if defined(__GNUC__) || defined(__clang__)
#define ASMSPY_API __attribute__((visibility("default")))
#else
#define ASMSPY_API
#endif

#endif
