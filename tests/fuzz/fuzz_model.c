/* fuzz_model.c: a libFuzzer target for the two ways a model reaches
 * libcore: a .mat file (the production reader of ee_mat.h, as cli/ee
 * calls it: the MAT 5 check, matio, the checked variables, the loader)
 * and a model struct (the validating loader, as the gateways feed it).
 *
 * Input byte 0 picks the way:
 *   'M'  the rest is a .mat file: its only struct or cell variable is
 *        loaded as cli/ee loads a model file (each member, the classifier
 *        an explainer carries), and its data variables are read as cli/ee
 *        reads data (numbers, text, cells);
 *   else byte 1 picks a valid template model (transformer classifier,
 *        flat and token explainers, cnn with and without biases, mlp) and
 *        the rest is a list of 4-byte edits of its fields: remove a field,
 *        change its class, its dimensions or one value (NaN, Inf, 0, -1,
 *        huge, a byte), add a field of another configuration, change a
 *        struct array's length.
 * Whatever loads must predict one row. Any crash, sanitizer report, leak
 * or hang is a finding; an error status is the expected outcome.
 *
 * Built by `make fuzz/fuzz_model` with clang -fsanitize=fuzzer,address,
 * undefined; tests/run_all.sh runs it for a bounded time on the corpus in
 * tests/fuzz/corpus (seeds: the reference .mat files, some edit lists). */
#define _GNU_SOURCE /* memfd_create */
#include "ee.h"
#include "ee_mat.h"
#include "ee_model_io.h"
#include "../c/memsource.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NTEMPLATES 6
static MemSource templates[NTEMPLATES];
static int ready;

static void make_templates(void)
{
    EeConfig c[NTEMPLATES];
    for (int k = 0; k < NTEMPLATES; k++) {
        EeKind kind = k < 3 ? EE_KIND_TRANSFORMER : k < 5 ? EE_KIND_CNN : EE_KIND_MLP;
        ee_config_defaults(&c[k], kind);
        c[k].classes = 3;
        c[k].vocab = 9; c[k].T = 5; c[k].d = 4;
        if (kind == EE_KIND_TRANSFORMER) { c[k].heads = 2; c[k].layers = 2; c[k].ffn = 3; c[k].head = (EeHead)k; }
        if (kind == EE_KIND_CNN) { c[k].filters = 2; c[k].nwidths = 2; c[k].widths[0] = 1; c[k].widths[1] = 3; c[k].bias = k == 3; }
        if (kind == EE_KIND_MLP) { c[k].D = 3; c[k].nhidden = 1; c[k].hidden[0] = 2; }
        EeModel *m;
        if (ee_model_new(&c[k], &m)) abort();
        ee_model_init(m, 1);
        if (ms_from_model(&templates[k], m)) abort();
        ee_model_free(m);
    }
    ready = 1;
}

/* Runs one row through a model that loaded: a valid model must run. */
static void run_one(const EeModel *m)
{
    const EeConfig *c = ee_model_config(m);
    int token = ee_is_token_model(c), W = token ? c->T : c->D;
    int32_t *ids = calloc((size_t)W, sizeof *ids);
    float *x = calloc((size_t)W, sizeof *x), *out = calloc((size_t)ee_config_outputs(c), sizeof *out);
    if (ids && x && out) {
        ids[0] = EE_CLS;
        if (W > 1) ids[1] = c->vocab - 1;
        EeInput in = {.n = 1, .ids = token ? ids : NULL, .x = token ? NULL : x};
        if (ee_model_predict(m, &in, out, 0, EE_DEVICE_CPU)) abort();
    }
    free(ids); free(x); free(out);
}

/* Loads, and runs one row through whatever loaded. */
static void load_and_run(const EeFieldSource *src)
{
    EeModel *m = NULL;
    if (ee_model_load(src, "model", &m)) return;
    run_one(m);
    ee_model_free(m);
}

/* Loads a model from one element of a struct variable (the reader's own
 * loader, as cli/ee calls it) and runs it. */
static void load_element(matvar_t *s, size_t index)
{
    EeModel *m = NULL;
    if (ee_mv_load_model(s, index, "model", &m)) return;
    run_one(m);
    ee_model_free(m);
}

/* Every value of a variable as cli/ee reads data: numbers, text, cells. */
static double touch(const matvar_t *v, int depth)
{
    double sum = 0;
    char *t;
    size_t len;
    if (!v || depth > 4) return 0;
    if (!ee_mv_numeric(v, "v"))
        for (size_t i = 0; i < ee_mv_numel(v); i++) sum += ee_mv_at(v, i);
    if (!ee_mv_text(v, "v", &t, &len)) { sum += len ? (unsigned char)t[len - 1] : 0; free(t); }
    for (size_t i = 0; v->class_type == MAT_C_CELL && i < ee_mv_numel(v); i++)
        sum += touch(ee_mv_cell((matvar_t *)v, i), depth + 1);
    return sum + (double)ee_mv_rows(v) + (double)ee_mv_cols(v) + strlen(ee_mv_class_name(v));
}

/* The production reader (ee_mat.h) as cli/ee uses it: the model file's
 * only struct or cell variable, each member loaded and run, the
 * classifier an explainer carries; then the data variables. */
static void fuzz_mat(const uint8_t *data, size_t size)
{
    int fd = memfd_create("ee_fuzz.mat", 0);
    if (fd < 0) return;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        EeMatIn *f;
        if (ee_matin_open(path, &f) == EE_OK) {
            matvar_t *v;
            const char *name;
            if (ee_matin_only_model(f, &v, &name) == EE_OK) {
                size_t n = ee_mv_numel(v);
                for (size_t j = 0; j < n && j < 4; j++) {
                    matvar_t *s = v->class_type == MAT_C_CELL ? ee_mv_cell(v, j) : v;
                    size_t index = v->class_type == MAT_C_CELL ? 0 : j;
                    load_element(s, index);
                    matvar_t *x = ee_mv_field(s, "explains", index), *c = ee_mv_field(s, "classifier", index);
                    if (x) touch(ee_mv_field(x, "classifier", 0), 0);
                    if (c) load_element(c, 0);
                }
            }
            static const char *const vars[] = {"X", "tokens", "perms", "vocab", "labels", "split", "mask"};
            for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
                if (ee_matin_has(f, vars[k]) && !ee_matin_var(f, vars[k], &v)) {
                    touch(v, 0);
                    touch(ee_mv_field(v, "train", 0), 0);
                }
            ee_matin_close(f);
        }
    }
    close(fd);
}

/* Names that belong to some configuration of some kind (foreign fields). */
static const char *const extra[] = {"Wp", "bc", "head_W", "head_b", "b", "W", "encoder", "conv", "fc",
                                    "layers", "heads", "bias", "kind", "head", "widths", "hidden"};

static void fuzz_struct(const uint8_t *data, size_t size)
{
    if (size < 1) return;
    static MemSource s;
    const MemSource *t = &templates[data[0] % NTEMPLATES];
    memset(&s, 0, sizeof s);
    s.n = 0;
    s.ngroups = t->ngroups;
    memcpy(s.groups, t->groups, sizeof s.groups);
    for (int i = 0; i < t->n; i++) {
        const MsField *f = &t->f[i];
        size_t es = f->v.cls == EE_VAL_DOUBLE ? 8 : f->v.cls == EE_VAL_CHAR || f->v.cls == EE_VAL_LOGICAL ? 1 : 4;
        ms_put(&s, f->group[0] ? f->group : NULL, f->index, f->field, f->v.cls, f->v.ndims, f->v.dims, f->v.data, es);
    }
    for (size_t p = 1; p + 4 <= size; p += 4) {
        const uint8_t *e = data + p;
        if (s.n == 0) break;
        MsField *f = &s.f[e[1] % s.n];
        switch (e[0] % 8) {
        case 0: /* remove */
            ms_remove(&s, f);
            break;
        case 1: { /* another class, same bytes reinterpreted where they fit */
            static const EeValClass cls[] = {EE_VAL_OTHER, EE_VAL_CHAR, EE_VAL_DOUBLE, EE_VAL_SINGLE, EE_VAL_LOGICAL,
                                             EE_VAL_INT32};
            EeValClass to = cls[e[2] % 6];
            size_t es = to == EE_VAL_DOUBLE ? 8 : to == EE_VAL_CHAR || to == EE_VAL_LOGICAL ? 1 : 4;
            size_t n = f->v.numel, have = n * (f->v.cls == EE_VAL_DOUBLE ? 8 : f->v.cls == EE_VAL_CHAR || f->v.cls == EE_VAL_LOGICAL ? 1 : 4);
            uint8_t *buf = calloc(n * es + 1, 1);
            if (!buf) break;
            memcpy(buf, f->v.data, have < n * es ? have : n * es);
            char g[16], fl[16];
            snprintf(g, sizeof g, "%s", f->group);
            snprintf(fl, sizeof fl, "%s", f->field);
            ms_put(&s, g[0] ? g : NULL, f->index, fl, to, f->v.ndims, f->v.dims, buf, es);
            free(buf);
            break;
        }
        case 2: { /* other dimensions over the same data when smaller */
            size_t dims[3] = {(size_t)(e[2] & 15), (size_t)(e[3] & 15), (size_t)(e[3] >> 6)};
            size_t n = dims[0] * dims[1] * (dims[2] ? dims[2] : 1);
            if (n <= f->v.numel) {
                f->v.ndims = dims[2] ? 3 : 2;
                f->v.dims[0] = dims[0]; f->v.dims[1] = dims[1]; f->v.dims[2] = dims[2];
                f->v.numel = n;
            }
            break;
        }
        case 3: case 4: { /* one value */
            if (!f->v.numel || !f->v.data) break;
            size_t at = e[2] % f->v.numel;
            static const double special[] = {0, -1, 1e300, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 65536, 2147483648.0};
            double v = special[e[3] % 8];
            uint8_t *d = (uint8_t *)f->v.data;
            switch (f->v.cls) {
            case EE_VAL_DOUBLE: ((double *)d)[at] = v; break;
            case EE_VAL_SINGLE: ((float *)d)[at] = (float)v; break;
            case EE_VAL_INT32: ((int32_t *)d)[at] = (int32_t)e[3] - 128; break;
            default: d[at] = e[3]; break;
            }
            break;
        }
        case 5: { /* a field of another configuration */
            const char *name = extra[e[2] % (sizeof extra / sizeof *extra)];
            float w[4] = {0.5f, -1, 2, 0};
            size_t dims[2] = {1, (size_t)(e[3] % 5)};
            const char *group = e[3] & 0x80 ? (e[2] & 1 ? "conv" : e[2] & 2 ? "fc" : "encoder") : NULL;
            ms_put(&s, group, e[3] & 3, name, EE_VAL_SINGLE, 2, dims, w, sizeof(float));
            break;
        }
        case 6: /* a struct array's length */
            if (s.ngroups) s.groups[e[2] % s.ngroups].len = (long)(e[3] % 80) - 1;
            break;
        case 7: { /* a size field set to a small or hostile number */
            static const char *const sizes[] = {"vocab", "T", "d", "heads", "layers", "ffn", "classes", "filters", "D"};
            static const double vals[] = {0, 1, 2, 3, 4, 5, 64, 65, 1 << 24, -3, 2.5};
            double v = vals[e[3] % 11];
            size_t one[2] = {1, 1};
            ms_put(&s, NULL, 0, sizes[e[2] % 9], EE_VAL_DOUBLE, 2, one, &v, sizeof v);
            break;
        }
        }
    }
    EeFieldSource src = ms_source(&s);
    load_and_run(&src);
    ms_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready) {
        ee_threads_enter();
        make_templates();
    }
    if (size < 1) return 0;
    if (data[0] == 'M') fuzz_mat(data + 1, size - 1);
    else fuzz_struct(data + 1, size - 1);
    return 0;
}
