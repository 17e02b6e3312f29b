/* runtime.c: the clock, the interrupt hook and progress lines. (Threads
 * and device selection are the backend's: backend/cpu/cpu_threads.c,
 * backend/device.c.) */
#include "../ee.h"
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

/* ---- interrupts: the hook of the calling thread, asked at most every
 * 20 ms (a poll may cost more than a pass of a small model) ---- */
static _Thread_local int (*interrupt_fn)(void *);
static _Thread_local void *interrupt_ctx;
static _Thread_local int interrupt_seen;
static _Thread_local double interrupt_last;

void ee_set_interrupt(int (*fn)(void *ctx), void *ctx)
{
    interrupt_fn = fn;
    interrupt_ctx = ctx;
    interrupt_seen = 0;
    interrupt_last = 0;
}

int ee_interrupted(void)
{
    if (interrupt_seen || !interrupt_fn) return interrupt_seen;
    double now = ee_now();
    if (now - interrupt_last < 0.02) return 0;
    interrupt_last = now;
    interrupt_seen = interrupt_fn(interrupt_ctx) != 0;
    return interrupt_seen;
}

double ee_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void ee_say(int verbose, void (*print)(void *, const char *), void *ctx, const char *fmt, ...)
{
    if (!verbose) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (print) print(ctx, line);
    else fprintf(stderr, "%s\n", line);
}
