/* error.c: status codes, their Octave ids, and the per-thread last message. */
#include "../ee.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[1024] = "no error";

const char *ee_last_error(void) { return last_message; }

const char *ee_status_id(EeStatus st)
{
    switch (st) {
    case EE_OK: return "ee:ok";
    case EE_ERR_INPUT: return "ee:badInput";
    case EE_ERR_MODEL: return "ee:badModel";
    case EE_ERR_NOMEM: return "ee:outOfMemory";
    case EE_ERR_NODEVICE: return "ee:noDevice";
    case EE_ERR_IO: return "ee:ioError";
    case EE_ERR_UNSUPPORTED: return "ee:notSupported";
    case EE_ERR_INTERRUPTED: return "ee:interrupted";
    }
    return "ee:unknown";
}

EeStatus ee_fail(EeStatus st, const char *fmt, ...)
{
    /* format into a scratch buffer: the arguments may include
     * ee_last_error() itself (a message that wraps the previous one) */
    char buf[sizeof last_message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    memcpy(last_message, buf, sizeof buf);
    return st;
}
