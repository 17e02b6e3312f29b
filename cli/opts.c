/* opts.c: the command line of cli/ee (see opts.h). */
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ee_str_ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* strtol and strtod skip leading blanks and take a '+': a value written
 * in full starts with a digit, or a '-' (or '.') and a digit */
static int starts_number(const char *s, int dot)
{
    if (*s == '-') s++;
    if (dot && *s == '.') s++;
    return isdigit((unsigned char)*s);
}

int ee_str_long(const char *s, long *out)
{
    if (!starts_number(s, 0)) return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno) return 0;
    *out = v;
    return 1;
}

int ee_str_double(const char *s, double *out)
{
    if (!starts_number(s, 1) || strpbrk(s, "xX")) return 0; /* no hexadecimal: 0x1p-3 */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

int ee_str_bool(const char *s)
{
    static const char *const yes[] = {"true", "1", "yes", "on"}, *const no[] = {"false", "0", "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (ee_str_ieq(s, yes[i])) return 1;
        if (ee_str_ieq(s, no[i])) return 0;
    }
    return -1;
}

static int find(const EeOpts *o, const char *name, size_t len)
{
    for (int k = 0; k < o->n; k++) {
        const char *s = o->spec[k].name;
        if (strlen(s) != len) continue;
        size_t i = 0;
        while (i < len && tolower((unsigned char)s[i]) == tolower((unsigned char)name[i])) i++;
        if (i == len) return k;
    }
    return -1;
}

static void list_names(const EeOpts *o, char *buf, size_t n)
{
    buf[0] = 0;
    for (int k = 0; k < o->n; k++) {
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s--%s", k ? " " : "", o->spec[k].name);
    }
}

EeStatus ee_opts_parse(EeOpts *o, const char *cmd, const EeOptSpec *spec, int n, int argc,
                       char **argv)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->spec = spec;
    o->n = n < EE_OPTS_MAX ? n : EE_OPTS_MAX;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) || !a[2])
            return ee_fail(EE_ERR_INPUT, "expected an option --name, got '%s' (see ee %s --help)", a, cmd);
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        int k = find(o, name, len);
        if (k < 0) {
            char names[1024];
            list_names(o, names, sizeof names);
            return ee_fail(EE_ERR_INPUT, "unknown option '--%.*s' (valid: %s)", (int)len, name, names);
        }
        const EeOptSpec *s = &spec[k];
        const char *v;
        if (eq) v = eq + 1;
        else if (s->kind == EE_OPT_BOOL)
            /* a bare flag means true; a following true/false is its value */
            v = i + 1 < argc && ee_str_bool(argv[i + 1]) >= 0 ? argv[++i] : "true";
        else if (i + 1 < argc) v = argv[++i];
        else return ee_fail(EE_ERR_INPUT, "--%s needs a value (%s)", s->name, s->arg);
        if (s->kind == EE_OPT_MULTI) {
            if (o->nmulti[k] >= EE_OPT_MULTI_MAX)
                return ee_fail(EE_ERR_INPUT, "--%s given more than %d times", s->name, EE_OPT_MULTI_MAX);
            o->multi[k][o->nmulti[k]++] = v;
        } else if (o->value[k]) {
            /* the gateways would keep the last of two; a command line that
             * says two things is more likely a mistake */
            return ee_fail(EE_ERR_INPUT, "--%s given twice ('%s' and '%s')", s->name, o->value[k], v);
        }
        o->value[k] = v;
    }
    return EE_OK;
}

void ee_opts_help(FILE *f, const EeOptSpec *spec, int n)
{
    for (int k = 0; k < n; k++) {
        char left[64];
        snprintf(left, sizeof left, "--%s %s", spec[k].name, spec[k].kind == EE_OPT_BOOL ? "[true|false]" : spec[k].arg);
        fprintf(f, "  %-28s %s\n", left, spec[k].help);
    }
}

static int index_of(const EeOpts *o, const char *name)
{
    int k = find(o, name, strlen(name));
    if (k < 0) { /* a reader asked for a name missing from its own table */
        fprintf(stderr, "ee %s: internal error: no option '%s' in the table\n", o->cmd, name);
        abort();
    }
    return k;
}

const char *ee_opt(const EeOpts *o, const char *name) { return o->value[index_of(o, name)]; }

int ee_opt_given(const EeOpts *o, const char *name) { return ee_opt(o, name) != NULL; }

int ee_opt_values(const EeOpts *o, const char *name, const char *const **values)
{
    int k = index_of(o, name);
    *values = o->multi[k];
    return o->nmulti[k];
}

EeStatus ee_opt_int(const EeOpts *o, const char *name, long lo, long hi, int *out)
{
    const char *v = ee_opt(o, name);
    if (!v) return EE_OK;
    long x;
    if (!ee_str_long(v, &x) || x < lo || x > hi)
        return ee_fail(EE_ERR_INPUT, "--%s must be an integer in [%ld, %ld], got '%s'", name, lo, hi, v);
    *out = (int)x;
    return EE_OK;
}

EeStatus ee_opt_double(const EeOpts *o, const char *name, double lo_excl, double hi_excl, double *out)
{
    const char *v = ee_opt(o, name);
    if (!v) return EE_OK;
    double x;
    if (!ee_str_double(v, &x) || !(x > lo_excl && x < hi_excl))
        return ee_fail(EE_ERR_INPUT, "--%s must be a number in (%g, %g), got '%s'", name, lo_excl, hi_excl, v);
    *out = x;
    return EE_OK;
}

EeStatus ee_opt_bool(const EeOpts *o, const char *name, int *out)
{
    const char *v = ee_opt(o, name);
    if (!v) return EE_OK;
    int b = ee_str_bool(v);
    if (b < 0) return ee_fail(EE_ERR_INPUT, "--%s must be true or false, got '%s'", name, v);
    *out = b;
    return EE_OK;
}

EeStatus ee_opt_choice(const EeOpts *o, const char *name, const char *const *choices, int n, int *out)
{
    const char *v = ee_opt(o, name);
    if (!v) return EE_OK;
    for (int i = 0; i < n; i++)
        if (ee_str_ieq(v, choices[i])) { *out = i; return EE_OK; }
    char list[512] = "";
    for (int i = 0; i < n; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
    }
    return ee_fail(EE_ERR_INPUT, "--%s must be one of %s, got '%s'", name, list, v);
}

EeStatus ee_opt_ints(const EeOpts *o, const char *name, long lo, long hi, int *out, int maxn, int *count)
{
    const char *v = ee_opt(o, name);
    if (!v) return EE_OK;
    /* "3,4,5", "3 4 5" or "[3 4 5]": integers written in full, one comma
     * or a run of blanks between them, nothing empty ('', '1,', '+1' and
     * ' 5' are refused) */
    int n = 0;
    size_t len = strlen(v);
    const char *p = v, *stop = v + len;
    if (len >= 2 && v[0] == '[' && v[len - 1] == ']') p++, stop--;
    for (;;) {
        char *end;
        errno = 0;
        long x = starts_number(p, 0) ? strtol(p, &end, 10) : 0;
        if (!starts_number(p, 0) || errno || end > stop || x < lo || x > hi)
            return ee_fail(EE_ERR_INPUT, "--%s must be a list of integers in [%ld, %ld] such as 3,4,5, got '%s'",
                           name, lo, hi, v);
        if (n >= maxn) return ee_fail(EE_ERR_INPUT, "--%s has more than %d values: '%s'", name, maxn, v);
        out[n++] = (int)x;
        p = end;
        if (p == stop) break;
        int sep = *p == ',' || *p == ' ';
        if (*p == ',') p++;
        while (sep && p < stop && *p == ' ') p++;
        if (!sep || p >= stop) /* another separator, or nothing after one */
            return ee_fail(EE_ERR_INPUT, "--%s must be a list of integers in [%ld, %ld] such as 3,4,5, got '%s'",
                           name, lo, hi, v);
    }
    *count = n;
    return EE_OK;
}
