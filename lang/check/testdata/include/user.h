/* A user header for the preprocessor tests (testdata/check/preproc.bt and
   the e2e tests). #define HIDDEN 1 in a comment defines nothing. */
#ifndef USER_H
#define USER_H
#include "sub/nested.h"
#define USER_VALUE (NESTED * 2) // 42
#define USER_NAME "hello"
#define USER_FN(x) ((x) + 1)
struct user_struct { int a; };
#if NESTED != 21
#error NESTED is wrong
#endif
#endif
