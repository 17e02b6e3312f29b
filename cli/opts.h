/* opts.h: the command line of cli/ee: `--name value` (or `--name=value`)
 * pairs checked against a command's option table, which also prints the
 * command's help. Names match case-insensitively, as the gateways' option
 * names do. Every reader returns an EeStatus whose message (ee_last_error)
 * names the option, what was expected and what was given. */
#ifndef EE_CLI_OPTS_H
#define EE_CLI_OPTS_H

#include "ee.h"

#include <stdio.h>

typedef enum {
    EE_OPT_VALUE,   /* --name VALUE */
    EE_OPT_BOOL,    /* --name [true|false]: alone it means true */
    EE_OPT_MULTI    /* --name VALUE, may be repeated (values kept in order) */
} EeOptKind;

typedef struct {
    const char *name;  /* without the dashes */
    EeOptKind kind;
    const char *arg;   /* what the value is, for the help ("N", "FILE") */
    const char *help;  /* one line */
} EeOptSpec;

#define EE_OPTS_MAX 64
#define EE_OPT_MULTI_MAX 64

typedef struct {
    const char *cmd;
    const EeOptSpec *spec;
    int n;
    const char *value[EE_OPTS_MAX];              /* NULL when not given */
    const char *multi[EE_OPTS_MAX][EE_OPT_MULTI_MAX];
    int nmulti[EE_OPTS_MAX];
} EeOpts;

/* Parses argv[0..argc) (the arguments after the command name). */
EeStatus ee_opts_parse(EeOpts *o, const char *cmd, const EeOptSpec *spec, int n, int argc,
                       char **argv);
/* Prints "  --name ARG  help" lines. */
void ee_opts_help(FILE *f, const EeOptSpec *spec, int n);

/* The raw value (NULL when absent); the values of a MULTI option. */
const char *ee_opt(const EeOpts *o, const char *name);
int ee_opt_values(const EeOpts *o, const char *name, const char *const **values);
int ee_opt_given(const EeOpts *o, const char *name);

/* Typed readers: leave *out as it is when the option is absent. */
EeStatus ee_opt_int(const EeOpts *o, const char *name, long lo, long hi, int *out);
EeStatus ee_opt_double(const EeOpts *o, const char *name, double lo_excl, double hi_excl,
                       double *out);
EeStatus ee_opt_bool(const EeOpts *o, const char *name, int *out);
/* Index of the value among choices (case-insensitive). */
EeStatus ee_opt_choice(const EeOpts *o, const char *name, const char *const *choices, int n,
                       int *out);
/* A list of integers "3,4,5" (or "3 4 5", "[3 4 5]"); *count gets its length. */
EeStatus ee_opt_ints(const EeOpts *o, const char *name, long lo, long hi, int *out, int maxn,
                     int *count);

/* Helpers shared with the readers of other strings. */
int ee_str_ieq(const char *a, const char *b);
/* An integer written in full ("12", "-3"), 1 on success. */
int ee_str_long(const char *s, long *out);
/* A finite number written in full, 1 on success. */
int ee_str_double(const char *s, double *out);
/* "true/false/1/0/yes/no/on/off" -> 1/0, -1 otherwise. */
int ee_str_bool(const char *s);

#endif
