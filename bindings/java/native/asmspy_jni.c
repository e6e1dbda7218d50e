/* libasmspy_jni: the JNI shim under the Java binding (class asmspy.Native).
 * A thin layer over <asmspy/scope.h>: libasmspy is dlopen'ed at first use
 * ($ASMSPY_LIB, else libasmspy.so.0 / libasmspy.so through the loader), so
 * the shim builds against the JDK's jni.h only and a missing libasmspy is a
 * recorded no-op (tier NONE, the loader's error as the reason).
 *
 * Also the FFI helpers Java lacks before the FFM API: dlopen(path),
 * dlsym(handle, name) and callLong(addr, x) — calls `long f(long)` at addr
 * (the tests and the example call work()/helper() of libscope_victim.so and
 * libc's labs() through them). Handles and addresses cross as jlong. */
#define _GNU_SOURCE /* dladdr: the shim finds libasmspy beside itself */
#include <jni.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asmspy_scope_loader.h"

static void *S(jlong h) { return (void *)(uintptr_t)h; }

static jstring jstr(JNIEnv *env, const char *s) { return (*env)->NewStringUTF(env, s ? s : ""); }

static void throw_ex(JNIEnv *env, const char *cls, const char *msg) {
  jclass c = (*env)->FindClass(env, cls);
  if (c) (*env)->ThrowNew(env, c, msg);
}

/* "" when libasmspy is loaded, else why not. */
JNIEXPORT jstring JNICALL Java_asmspy_Native_loadError(JNIEnv *env, jclass cls) {
  (void)cls;
  pthread_once(&g_once, load_lib);
  if (g.begin) return jstr(env, "");
  char msg[1200];
  snprintf(msg, sizeof msg, "asmspy: cannot load libasmspy (%s)", g.error);
  return jstr(env, msg);
}

JNIEXPORT jlong JNICALL Java_asmspy_Native_begin(JNIEnv *env, jclass cls, jstring name, jlong addr,
                                                 jlong len, jint flags) {
  (void)cls;
  pthread_once(&g_once, load_lib);
  if (!g.begin) return 0;
  const char *n = name ? (*env)->GetStringUTFChars(env, name, NULL) : NULL;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", n ? n : "java");
  if (n) (*env)->ReleaseStringUTFChars(env, name, n);
  return (jlong)(uintptr_t)g.begin(buf, (const void *)(uintptr_t)addr, (size_t)len,
                                   (unsigned)flags);
}

JNIEXPORT jint JNICALL Java_asmspy_Native_end(JNIEnv *env, jclass cls, jlong h) {
  (void)env, (void)cls;
  return h && g.end ? g.end(S(h)) : -1;
}

JNIEXPORT void JNICALL Java_asmspy_Native_free(JNIEnv *env, jclass cls, jlong h) {
  (void)env, (void)cls;
  if (h && g.free) g.free(S(h));
}

#define STR_ACCESSOR(jname, field)                                                                 \
  JNIEXPORT jstring JNICALL Java_asmspy_Native_##jname(JNIEnv *env, jclass cls, jlong h) {         \
    (void)cls;                                                                                     \
    return jstr(env, h && g.field ? g.field(S(h)) : "");                                           \
  }
STR_ACCESSOR(text, text)
STR_ACCESSOR(path, path)
STR_ACCESSOR(tier, tier)
STR_ACCESSOR(reason, reason)
STR_ACCESSOR(name, name)

JNIEXPORT jlong JNICALL Java_asmspy_Native_insnCount(JNIEnv *env, jclass cls, jlong h) {
  (void)env, (void)cls;
  return h && g.insn_count ? (jlong)g.insn_count(S(h)) : 0;
}

JNIEXPORT jlong JNICALL Java_asmspy_Native_gaps(JNIEnv *env, jclass cls, jlong h) {
  (void)env, (void)cls;
  return h && g.gaps ? (jlong)g.gaps(S(h)) : 0;
}

JNIEXPORT jboolean JNICALL Java_asmspy_Native_truncated(JNIEnv *env, jclass cls, jlong h) {
  (void)env, (void)cls;
  return h && g.truncated && g.truncated(S(h)) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jlong JNICALL Java_asmspy_Native_dlopen(JNIEnv *env, jclass cls, jstring path) {
  (void)cls;
  const char *p = path ? (*env)->GetStringUTFChars(env, path, NULL) : NULL;
  if (!p) {
    throw_ex(env, "java/lang/IllegalArgumentException", "dlopen: null path");
    return 0;
  }
  void *h = dlopen(p, RTLD_NOW);
  (*env)->ReleaseStringUTFChars(env, path, p);
  if (!h) {
    const char *e = dlerror();
    throw_ex(env, "java/lang/UnsatisfiedLinkError", e ? e : "dlopen failed");
    return 0;
  }
  return (jlong)(uintptr_t)h;
}

JNIEXPORT jlong JNICALL Java_asmspy_Native_dlsym(JNIEnv *env, jclass cls, jlong h, jstring name) {
  (void)cls;
  const char *n = name ? (*env)->GetStringUTFChars(env, name, NULL) : NULL;
  if (!n) {
    throw_ex(env, "java/lang/IllegalArgumentException", "dlsym: null name");
    return 0;
  }
  dlerror();
  void *p = dlsym(S(h), n);
  (*env)->ReleaseStringUTFChars(env, name, n);
  if (!p) {
    const char *e = dlerror();
    throw_ex(env, "java/lang/UnsatisfiedLinkError", e ? e : "dlsym: symbol is NULL");
    return 0;
  }
  return (jlong)(uintptr_t)p;
}

JNIEXPORT jlong JNICALL Java_asmspy_Native_callLong(JNIEnv *env, jclass cls, jlong addr, jlong x) {
  (void)cls;
  if (!addr) {
    throw_ex(env, "java/lang/IllegalArgumentException", "callLong: null address");
    return 0;
  }
  long (*f)(long) = (long (*)(long))(uintptr_t)addr;
  return (jlong)f((long)x);
}
