/*
 * glibc's malloc_trim(3) for Node (issue 37, finding 8). After a busy spell the main thread's heap (`[heap]`) is
 * full of freed chunks between live ones (socket reads, SQLite pages, parser buffers): free() gives back only what
 * lies at the heap's top, so 40-55 MiB stay resident after an idle server has collected its garbage
 * (docs/benchmarks.md, session 18). malloc_trim(0) hands back every whole free page in every arena (glibc 2.8 and
 * later, with madvise). Node has no binding for it and no FFI, hence this one function. On any other C library it
 * does nothing and says so (`supported` is false).
 */
#include <stdlib.h>
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#define SATCHEL_HAS_MALLOC_TRIM 1
#else
#define SATCHEL_HAS_MALLOC_TRIM 0
#endif

/* trim(): true when memory was given back to the system. */
static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#if SATCHEL_HAS_MALLOC_TRIM
  released = malloc_trim(0);
#endif
  napi_value result;
  if (napi_get_boolean(env, released != 0, &result) != napi_ok) return NULL;
  return result;
}

NAPI_MODULE_INIT() {
  napi_value trim, supported;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &trim) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", trim) != napi_ok) return NULL;
  if (napi_get_boolean(env, SATCHEL_HAS_MALLOC_TRIM, &supported) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "supported", supported) != napi_ok) return NULL;
  return exports;
}
