/* memory.c: the host-memory budget of a call: how much may be allocated
 * (the memory the system reports available, or EE_MEMORY_MB when that is
 * smaller) and the check that refuses a call whose estimate exceeds it.
 * Estimating is the business of the module that allocates
 * (models/run_size.c, train/train_size.c, attr/attr_size.c). */
#include "../ee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MemAvailable of /proc/meminfo in bytes; 0 when unknown. */
static double meminfo_available(void)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    if (!fp) return 0;
    char line[256];
    double kb = 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    fclose(fp);
    return kb * 1024.0;
}

/* EE_MEMORY_MB in bytes; 0 when unset or not a positive number. */
static double env_limit(void)
{
    const char *s = getenv("EE_MEMORY_MB");
    if (!s || !*s) return 0;
    char *end;
    double mb = strtod(s, &end);
    return end != s && mb > 0 ? mb * 1048576.0 : 0;
}

double ee_memory_available(void)
{
    double sys = meminfo_available(), env = env_limit();
    if (sys <= 0) return env > 0 ? env : 1e300; /* no /proc: only the variable limits */
    return env > 0 && env < sys ? env : sys;
}

EeStatus ee_memory_check(double bytes, const char *what)
{
    double have = ee_memory_available(), env = env_limit();
    if (bytes <= have) return EE_OK;
    return ee_fail(EE_ERR_NOMEM, "%s would need about %.0f MB of memory, but only %.0f MB are available (%s); "
                   "use fewer rows per call, a smaller 'batch' or a smaller model",
                   what, bytes / 1048576.0, have / 1048576.0,
                   env > 0 && env <= have ? "EE_MEMORY_MB" : "MemAvailable in /proc/meminfo");
}
