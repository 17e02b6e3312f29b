/* model_io.c: the one validating loader and the writer of the exchange
 * format (doc/MODEL_FORMAT.md). Every field is treated as untrusted: its
 * class, size, range and finiteness are checked before use. */
#include "../ee_model_io.h"
#include "../models/model_impl.h"
#include "model_source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *cls_name(EeValClass c)
{
    switch (c) {
    case EE_VAL_CHAR: return "char";
    case EE_VAL_DOUBLE: return "double";
    case EE_VAL_SINGLE: return "single";
    case EE_VAL_LOGICAL: return "logical";
    case EE_VAL_INT32: return "int32";
    default: return "an unsupported class";
    }
}

static double elem(const EeValue *v, size_t i)
{
    switch (v->cls) {
    case EE_VAL_DOUBLE: return ((const double *)v->data)[i];
    case EE_VAL_SINGLE: return ((const float *)v->data)[i];
    case EE_VAL_LOGICAL: return ((const uint8_t *)v->data)[i];
    case EE_VAL_INT32: return ((const int32_t *)v->data)[i];
    default: return NAN;
    }
}

static int is_numeric(const EeValue *v)
{
    return v->cls == EE_VAL_DOUBLE || v->cls == EE_VAL_SINGLE || v->cls == EE_VAL_LOGICAL ||
           v->cls == EE_VAL_INT32;
}

static void dims_str(const EeValue *v, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < v->ndims && k + 24 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? "x%zu" : "%zu", v->dims[i]);
}

typedef struct {
    const EeFieldSource *src;
    const char *what;
} Loader;

static int get_field(const Loader *L, const char *field, EeValue *v)
{
    return L->src->get(L->src->ctx, NULL, 0, field, v);
}

/* An integer-valued numeric scalar in [lo, hi]. */
static EeStatus get_int(const Loader *L, const char *field, int lo, int hi, int *out)
{
    EeValue v;
    if (!get_field(L, field, &v))
        return ee_fail(EE_ERR_MODEL, "%s.%s is missing", L->what, field);
    /* logical is not a number here: true as a size is a mistake, not 1 */
    if (!is_numeric(&v) || v.cls == EE_VAL_LOGICAL || v.numel != 1)
        return ee_fail(EE_ERR_MODEL, "%s.%s must be a numeric scalar, got %s with %zu elements",
                       L->what, field, cls_name(v.cls), v.numel);
    double x = elem(&v, 0);
    if (!isfinite(x) || x != floor(x) || x < lo || x > hi)
        return ee_fail(EE_ERR_MODEL, "%s.%s must be an integer in [%d, %d], got %g", L->what,
                       field, lo, hi, x);
    *out = (int)x;
    return EE_OK;
}

/* A row vector of integers in [lo, hi], 0..maxn elements. */
static EeStatus get_ints(const Loader *L, const char *field, int lo, int hi, int minn, int maxn,
                         int *out, int *n)
{
    EeValue v;
    if (!get_field(L, field, &v))
        return ee_fail(EE_ERR_MODEL, "%s.%s is missing", L->what, field);
    if (!is_numeric(&v) || v.cls == EE_VAL_LOGICAL || v.numel < (size_t)minn || v.numel > (size_t)maxn)
        return ee_fail(EE_ERR_MODEL, "%s.%s must be a numeric vector of %d to %d elements, got %s with %zu",
                       L->what, field, minn, maxn, cls_name(v.cls), v.numel);
    for (size_t i = 0; i < v.numel; i++) {
        double x = elem(&v, i);
        if (!isfinite(x) || x != floor(x) || x < lo || x > hi)
            return ee_fail(EE_ERR_MODEL, "%s.%s(%zu) must be an integer in [%d, %d], got %g",
                           L->what, field, i + 1, lo, hi, x);
        out[i] = (int)x;
    }
    *n = (int)v.numel;
    return EE_OK;
}

static EeStatus get_bool(const Loader *L, const char *field, int dflt, int *out)
{
    EeValue v;
    if (!get_field(L, field, &v)) { *out = dflt; return EE_OK; }
    if (!is_numeric(&v) || v.numel != 1 || !(elem(&v, 0) == 0 || elem(&v, 0) == 1))
        return ee_fail(EE_ERR_MODEL, "%s.%s must be a logical scalar (true/false)", L->what, field);
    *out = elem(&v, 0) != 0;
    return EE_OK;
}

/* A char field copied to buf (NUL-terminated); 0 if missing. */
static EeStatus get_str(const Loader *L, const char *field, char *buf, size_t n, int *found)
{
    EeValue v;
    *found = get_field(L, field, &v);
    if (!*found) return EE_OK;
    if (v.cls != EE_VAL_CHAR || v.numel >= n || (v.ndims == 2 && v.dims[0] > 1 && v.numel))
        return ee_fail(EE_ERR_MODEL, "%s.%s must be a short char row, got %s", L->what, field,
                       cls_name(v.cls));
    /* a NUL would end the name early: 'cnn' followed by anything is not 'cnn' */
    if (v.numel && memchr(v.data, 0, v.numel))
        return ee_fail(EE_ERR_MODEL, "%s.%s must not contain NUL characters", L->what, field);
    memcpy(buf, v.data, v.numel);
    buf[v.numel] = 0;
    return EE_OK;
}

static EeStatus read_config(const Loader *L, EeConfig *c)
{
    char kind[32], head[32];
    int found;
    EeStatus st = get_str(L, "kind", kind, sizeof kind, &found);
    if (st) return st;
    if (!found) return ee_fail(EE_ERR_MODEL, "%s.kind is missing (expected 'transformer', 'cnn' or 'mlp')", L->what);
    EeKind k;
    if (!ee_kind_from_name(kind, &k))
        return ee_fail(EE_ERR_MODEL, "%s.kind must be 'transformer', 'cnn' or 'mlp', got '%s'", L->what, kind);
    ee_config_defaults(c, k);
    if ((st = get_str(L, "head", head, sizeof head, &found))) return st;
    if (found) {
        if (!ee_head_from_name(head, &c->head))
            return ee_fail(EE_ERR_MODEL, "%s.head must be 'classifier', 'flat' or 'token', got '%s'", L->what, head);
    }
    if (c->head != EE_HEAD_CLASSIFIER) { /* the explainer's design; absent: the paper's */
        char buf[32];
        if ((st = get_str(L, "inputs", buf, sizeof buf, &found))) return st;
        if (found && !ee_inputs_from_name(buf, &c->inputs))
            return ee_fail(EE_ERR_MODEL, "%s.inputs must be 'tokens', 'gradient', 'gradient_vector', 'gradient_ends', 'occlusion' or 'path', got '%s'",
                           L->what, buf);
        if ((st = get_str(L, "attend", buf, sizeof buf, &found))) return st;
        if (found) {
            int a = -1;
            for (int i = 0; i < EE_ATTEND_COUNT; i++)
                if (!strcmp(buf, ee_attend_names[i])) a = i;
            if (a < 0) return ee_fail(EE_ERR_MODEL, "%s.attend must be 'all' or 'tokens', got '%s'", L->what, buf);
            c->attend_tokens = a;
        }
        if ((st = get_bool(L, "zero_special", 0, &c->zero_special))) return st;
        if ((st = get_bool(L, "efficiency", 0, &c->efficiency))) return st;
        if ((st = get_bool(L, "margin", 0, &c->margin))) return st; /* absent (files before it): 0 */
    }
    const int BIG = 1 << 24;
    /* an mlp explainer's classes are its players: one may do */
    if ((st = get_int(L, "classes", k == EE_KIND_MLP && c->head != EE_HEAD_CLASSIFIER ? 1 : 2, 100000, &c->classes)))
        return st;
    if ((st = get_bool(L, "bias", 1, &c->bias))) return st;
    if (k == EE_KIND_MLP) {
        if ((st = get_int(L, "D", 1, BIG, &c->D))) return st;
        return get_ints(L, "hidden", 1, 1 << 16, 0, EE_MAX_HIDDEN, c->hidden, &c->nhidden);
    }
    if ((st = get_int(L, "vocab", 5, BIG, &c->vocab))) return st;
    if ((st = get_int(L, "T", 2, 1 << 16, &c->T))) return st;
    if ((st = get_int(L, "d", 1, 1 << 14, &c->d))) return st;
    if (k == EE_KIND_TRANSFORMER) {
        if ((st = get_int(L, "heads", 1, 1 << 14, &c->heads))) return st;
        if ((st = get_int(L, "layers", 0, 64, &c->layers))) return st;
        return get_int(L, "ffn", 1, 1 << 16, &c->ffn);
    }
    if ((st = get_int(L, "filters", 1, 1 << 16, &c->filters))) return st;
    return get_ints(L, "widths", 1, 1 << 16, 1, EE_MAX_WIDTHS, c->widths, &c->nwidths);
}

/* Dims match when they agree after dropping trailing singletons. */
static int dims_match(const EeValue *v, const EeParam *p)
{
    size_t want[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (int i = 0; i < p->ndims; i++) want[i] = (size_t)p->dims[i];
    for (int i = 0; i < 8; i++) {
        size_t got = i < v->ndims ? v->dims[i] : 1;
        if (got != want[i]) return 0;
    }
    return 1;
}

/* A few words on the settings that decide which weights a model has. */
static void settings_str(const EeConfig *c, char *buf, size_t n)
{
    if (c->kind == EE_KIND_TRANSFORMER)
        snprintf(buf, n, "a transformer %s with %d layers",
                 c->head == EE_HEAD_CLASSIFIER ? "classifier" : c->head == EE_HEAD_FLAT ? "explainer (head 'flat')"
                                                                                        : "explainer (head 'token')",
                 c->layers);
    else
        snprintf(buf, n, "a%s %s with bias = %s", c->kind == EE_KIND_MLP ? "n" : "", ee_kind_name(c->kind),
                 c->bias ? "true" : "false");
}

static int registered(const EeModel *m, const char *group, int index, const char *field)
{
    return ee_model_find_param(m, group, index, field) >= 0;
}

/* Weights that this kind has under other settings (another head, bias,
 * layers present when layers = 0) must be absent: a loader that skipped
 * them would run a different network than the one saved. */
static EeStatus check_foreign(const EeFieldSource *src, const char *what, const EeModel *m)
{
    const EeConfig *c = &m->cfg;
    EeConfig probe;
    memset(&probe, 0, sizeof probe);
    probe.kind = c->kind;
    probe.vocab = 5; probe.T = 2; probe.d = 1; probe.classes = 2; probe.bias = 1;
    probe.heads = 1; probe.layers = 1; probe.ffn = 1;
    probe.filters = 1; probe.nwidths = 1; probe.widths[0] = 1;
    probe.D = 1; probe.nhidden = 0;
    char sets[96];
    settings_str(c, sets, sizeof sets);
    int heads = c->kind == EE_KIND_TRANSFORMER ? 3 : 1;
    for (int h = 0; h < heads; h++) {
        probe.head = (EeHead)h;
        EeModel *pm = calloc(1, sizeof *pm);
        if (!pm) return ee_fail(EE_ERR_NOMEM, "out of memory");
        pm->cfg = probe;
        ee_kind_ops(c->kind)->register_params(pm); /* names only: no weights */
        EeStatus st = EE_OK;
        for (int i = 0; i < pm->np && !st; i++) {
            const EeParam *p = &pm->p[i];
            EeValue v;
            if (!p->group[0]) {
                if (!registered(m, NULL, 0, p->field) && src->get(src->ctx, NULL, 0, p->field, &v))
                    st = ee_fail(EE_ERR_MODEL, "%s.%s is present but %s has no such weight; remove it or fix the settings",
                                 what, p->field, sets);
                continue;
            }
            long want = 0, got = src->group_len(src->ctx, p->group);
            for (int j = 0; j < m->np; j++)
                if (!strcmp(m->p[j].group, p->group) && m->p[j].index + 1 > want) want = m->p[j].index + 1;
            if (want == 0 && got > 0) {
                st = ee_fail(EE_ERR_MODEL, "%s.%s has %ld elements but %s has none", what, p->group, got, sets);
                continue;
            }
            for (long k = 0; k < want && !st; k++)
                if (!registered(m, p->group, (int)k, p->field) &&
                    src->get(src->ctx, p->group, (int)k, p->field, &v))
                    st = ee_fail(EE_ERR_MODEL, "%s.%s(%ld).%s is present but %s has no such weight; remove it or fix the settings",
                                 what, p->group, k + 1, p->field, sets);
        }
        free(pm);
        if (st) return st;
    }
    return EE_OK;
}

/* The layout of every tensor without its weights (names and dims only). */
static EeModel *shell_of(const EeConfig *cfg)
{
    EeModel *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->cfg = *cfg;
    ee_kind_ops(cfg->kind)->register_params(m);
    return m;
}

/* Every struct array has as many elements as the model uses, and every
 * tensor is a single array of its dims: checked before a single weight is
 * allocated, so the allocation never exceeds what the source holds. */
static EeStatus check_fields(const EeFieldSource *src, const char *what, const EeModel *m)
{
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        if (!p->group[0] || p->index != 0) continue;
        long want = 0;
        for (int j = 0; j < m->np; j++)
            if (!strcmp(m->p[j].group, p->group) && m->p[j].index + 1 > want) want = m->p[j].index + 1;
        long got = src->group_len(src->ctx, p->group);
        if (got < 0) return ee_fail(EE_ERR_MODEL, "%s.%s is missing or not a struct array", what, p->group);
        if (got != want)
            return ee_fail(EE_ERR_MODEL, "%s.%s must be a 1x%ld struct array, got %ld elements", what, p->group,
                           want, got);
    }
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        EeValue v;
        int found = src->get(src->ctx, p->group[0] ? p->group : NULL, p->index, p->field, &v);
        if (found && v.cls == EE_VAL_SINGLE && dims_match(&v, p)) continue;
        /* the tensor's name, formatted only for the error: a kept model's
         * every call checks all of its tensors */
        char name[64], dbuf[96];
        if (p->group[0]) snprintf(name, sizeof name, "%s.%s(%d).%s", what, p->group, p->index + 1, p->field);
        else snprintf(name, sizeof name, "%s.%s", what, p->field);
        if (!found) return ee_fail(EE_ERR_MODEL, "%s is missing", name);
        if (v.cls != EE_VAL_SINGLE)
            return ee_fail(EE_ERR_MODEL, "%s must be a real single array, got %s", name, cls_name(v.cls));
        char want[64];
        if (p->ndims > 2) snprintf(want, sizeof want, "%dx%dx%d", p->dims[0], p->dims[1], p->dims[2]);
        else snprintf(want, sizeof want, "%dx%d", p->dims[0], p->dims[1]);
        dims_str(&v, dbuf, sizeof dbuf);
        return ee_fail(EE_ERR_MODEL, "%s must be %s, got %s", name, want, dbuf);
    }
    return check_foreign(src, what, m);
}

EeStatus ee_model_source_check(const EeFieldSource *src, const char *what, EeConfig *cfg)
{
    Loader L = {src, what};
    EeStatus st = read_config(&L, cfg);
    if (st) return st;
    if ((st = ee_config_check(cfg))) return ee_fail(st, "%s: %s", what, ee_last_error());
    EeModel *shell = shell_of(cfg);
    if (!shell) return ee_fail(EE_ERR_NOMEM, "out of memory");
    st = shell->overflow ? ee_fail(EE_ERR_MODEL, "%s: too many tensors", what) : check_fields(src, what, shell);
    double weights = (double)shell->total * sizeof(float);
    free(shell);
    if (st) return st;
    return ee_memory_check(weights, "loading the model");
}

EeStatus ee_model_source_weights(const EeFieldSource *src, const char *what, const EeConfig *cfg, EeModel **out)
{
    *out = NULL;
    EeModel *m;
    EeStatus st = ee_model_new(cfg, &m);
    if (st) return st;
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        EeValue v;
        src->get(src->ctx, p->group[0] ? p->group : NULL, p->index, p->field, &v); /* checked above */
        if ((st = ee_param_set(m, i, v.data, v.numel))) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", ee_last_error());
            ee_model_free(m);
            return ee_fail(EE_ERR_MODEL, "%s: %s", what, msg);
        }
    }
    *out = m;
    return EE_OK;
}

EeStatus ee_model_load(const EeFieldSource *src, const char *what, EeModel **out)
{
    *out = NULL;
    EeConfig cfg;
    EeStatus st = ee_model_source_check(src, what, &cfg);
    return st ? st : ee_model_source_weights(src, what, &cfg, out);
}

EeStatus ee_model_save(const EeModel *m, const EeFieldSink *s)
{
    const EeConfig *c = &m->cfg;
    double row[EE_MAX_HIDDEN];
    s->put_char(s->ctx, "kind", ee_kind_name(c->kind));
    if (c->head != EE_HEAD_CLASSIFIER) s->put_char(s->ctx, "head", ee_head_name(c->head));
    if (c->kind == EE_KIND_MLP) {
        s->put_scalar(s->ctx, "D", c->D);
        for (int i = 0; i < c->nhidden; i++) row[i] = c->hidden[i];
        s->put_row(s->ctx, "hidden", row, c->nhidden);
    } else {
        s->put_scalar(s->ctx, "vocab", c->vocab);
        s->put_scalar(s->ctx, "T", c->T);
        s->put_scalar(s->ctx, "d", c->d);
        if (c->kind == EE_KIND_TRANSFORMER) {
            s->put_scalar(s->ctx, "heads", c->heads);
            s->put_scalar(s->ctx, "layers", c->layers);
            s->put_scalar(s->ctx, "ffn", c->ffn);
        } else {
            s->put_scalar(s->ctx, "filters", c->filters);
            for (int i = 0; i < c->nwidths; i++) row[i] = c->widths[i];
            s->put_row(s->ctx, "widths", row, c->nwidths);
        }
    }
    s->put_scalar(s->ctx, "classes", c->classes);
    s->put_logical(s->ctx, "bias", c->bias);
    if (c->head != EE_HEAD_CLASSIFIER) {
        s->put_char(s->ctx, "inputs", ee_inputs_name(c->inputs));
        s->put_char(s->ctx, "attend", ee_attend_names[c->attend_tokens != 0]);
        s->put_logical(s->ctx, "zero_special", c->zero_special);
        s->put_logical(s->ctx, "efficiency", c->efficiency);
        if (c->margin) s->put_logical(s->ctx, "margin", 1); /* only where set: other files as before */
    }
    /* groups first, with their lengths */
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        if (!p->group[0] || p->index != 0) continue;
        int seen = 0; /* one put_group per group, at its first tensor */
        for (int j = 0; j < i; j++)
            if (!strcmp(m->p[j].group, p->group)) seen = 1;
        if (seen) continue;
        int len = 0;
        for (int j = 0; j < m->np; j++)
            if (!strcmp(m->p[j].group, p->group) && m->p[j].index + 1 > len) len = m->p[j].index + 1;
        s->put_group(s->ctx, p->group, len);
    }
    size_t maxc = 0;
    for (int i = 0; i < m->np; i++) if (m->p[i].count > maxc) maxc = m->p[i].count;
    float *buf = malloc(sizeof(float) * (maxc ? maxc : 1));
    if (!buf) return ee_fail(EE_ERR_NOMEM, "out of memory writing a model");
    for (int i = 0; i < m->np; i++) {
        const EeParam *p = &m->p[i];
        ee_param_get(m, i, buf, p->count);
        s->put_single(s->ctx, p->group[0] ? p->group : NULL, p->index, p->field, p->ndims, p->dims, buf);
    }
    free(buf);
    return EE_OK;
}
