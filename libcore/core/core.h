/* core.h: what the layers above core/ share from it inside libcore (not
 * part of the public API; the rest of core/ is declared in ee.h). */
#ifndef EE_CORE_H
#define EE_CORE_H

#include "../ee.h"

/* A progress or report line through the caller's printer (stderr when
 * print is NULL); nothing when verbose is 0. */
void ee_say(int verbose, void (*print)(void *, const char *), void *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
