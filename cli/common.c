/* common.c: what the commands of cli/ee share (see common.h). */
#include "common.h"
#include "matfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void ee_cmd_help(FILE *f, const char *usage, const char *about, const EeOptSpec *spec, int n)
{
    fprintf(f, "%s\n\n%s\n\nOptions:\n", usage, about);
    ee_opts_help(f, spec, n);
}

EeStatus ee_cli_device(const EeOpts *o, const EePar *par, EeDevice *want, EeDevice *got, EePrecision *prec)
{
    int k = 0, p = 0;
    EeStatus st = ee_opt_choice(o, "device", ee_device_names, EE_DEVICE_COUNT, &k);
    if (!st) st = ee_opt_choice(o, "precision", ee_precision_names, EE_PRECISION_COUNT, &p);
    if (st) return st;
    *want = (EeDevice)k;
    *prec = (EePrecision)p;
    /* before anything starts CUDA: the device of this rank */
    if (*want != EE_DEVICE_CPU && par->mpi) ee_device_select(par->local_rank);
    if ((st = ee_device_resolve(*want, got))) return st;
    return ee_precision_check(*got, *prec);
}

EeStatus ee_cli_verbose(const EeOpts *o, int *verbose)
{
    int quiet = 0;
    *verbose = 1;
    EeStatus st = ee_opt_bool(o, "verbose", verbose);
    if (!st) st = ee_opt_bool(o, "quiet", &quiet);
    if (!st && quiet) *verbose = 0;
    return st;
}

void ee_cli_say(const EePar *par, int verbose, const char *cmd, const char *fmt, ...)
{
    if (!verbose || par->rank != 0) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ee %s: %s\n", cmd, line);
    fflush(stderr);
}

void ee_cli_print(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

EeStatus ee_cli_need(const EeOpts *o, const char *name, const char **value)
{
    *value = ee_opt(o, name);
    if (!*value) return ee_fail(EE_ERR_INPUT, "--%s is required (see ee %s --help)", name, o->cmd);
    return EE_OK;
}

EeStatus ee_cli_out_file(const char *path)
{
    size_t len = strlen(path);
    if (!len) return ee_fail(EE_ERR_INPUT, "--out is an empty name: give the file to write");
    if (path[len - 1] == '/') return ee_fail(EE_ERR_INPUT, "--out '%s' names a folder: give the file to write", path);
    if (len >= 4000) return ee_fail(EE_ERR_INPUT, "--out is a name of %zu bytes, too long", len);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = 0;
    else *slash = 0;
    if (access(dir, W_OK))
        return ee_fail(EE_ERR_IO, "cannot write '%s': its folder '%s': %s", path, dir, strerror(errno));
    if (ee_mat_target_ok(path)) { /* a bad --out, found before any work: bad input */
        char why[1024];
        snprintf(why, sizeof why, "%s", ee_last_error());
        return ee_fail(EE_ERR_INPUT, "--out: %s", why);
    }
    return EE_OK;
}
