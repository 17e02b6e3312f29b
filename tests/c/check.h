/* check.h: a minimal test harness for the C tests. Each CHECK counts one
 * assertion; the program prints "N passed, N failed" and exits non-zero
 * on any failure (77 = skipped, for automake). */
#ifndef EE_CHECK_H
#define EE_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (cond) check_passed++;                                     \
        else {                                                        \
            check_failed++;                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                             \
            fprintf(stderr, "\n");                                    \
        }                                                             \
    } while (0)

#define CHECK_OK(expr)                                                              \
    do {                                                                            \
        EeStatus st_ = (expr);                                                      \
        CHECK(st_ == EE_OK, "%s -> %s: %s", #expr, ee_status_id(st_), ee_last_error()); \
    } while (0)

static inline int check_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
