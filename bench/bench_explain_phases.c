/* bench_explain_phases: what an explanation by an Empirical Explainer
 * costs, phase by phase, on real rows, against IG on the same rows (issue
 * 19: the bound that the classifier's own passes put on an explainer that
 * reads them).
 *
 *   bench/bench_explain_phases FILE.mat [ROUNDS]
 *
 * FILE.mat holds the struct variables `classifier` and `explainer` (as
 * ee_train returns them) and `X`, the rows' token ids as the gateways take
 * them (1-based, N x T), e.g. the IG wordnet panel's models from a figure5
 * results folder R and its 150 test glosses:
 *
 *   octave-cli --eval "c = load (glob ([R '/wordnet/classifier_*.mat']){1}); \
 *     e = load (glob ([R '/wordnet_ig/explainer_*.mat']){1}); \
 *     d = load ('datasets/wordnet.mat'); s = double (d.split.test(:)); \
 *     X = d.tokens(s(unique (round (linspace (1, numel (s), 150)))), :); \
 *     classifier = c.v.model; explainer = e.v.model; \
 *     save ('-v7', 'phases.mat', 'classifier', 'explainer', 'X')"
 *
 * Each round times, one after the other, one call of: the classifier's
 * prediction, the features the explainer reads (ee_explainer_features),
 * the explainer's own pass on them, ee_explain (all of it), and IG at
 * s = 4..7; it prints each one's minimum and median over the rounds in ms
 * per row, and IG's time at each s over the features' and over
 * ee_explain's (no head on those features goes below the features' time).
 * A third argument, one of the keys predict, features, own, explain, ig4,
 * ig5, ig6, ig7, times that phase alone (for a profiler: `perf record
 * bench/bench_explain_phases FILE 400 features`).
 * Both models are acquired as the gateways acquire theirs (kept models,
 * their fingerprints computed once: ee_model_acquire). */
#include "ee.h"
#include "ee_mat.h"
#include "ee_model_io.h"
#include "bench_stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PREDICT, FEATURES, OWN_PASS, EXPLAIN, IG4, IG5, IG6, IG7, PHASES };
static const char *const keys[PHASES] = {"predict", "features", "own", "explain", "ig4", "ig5", "ig6", "ig7"};
static const char *const names[PHASES] = {
    "classifier prediction", "features read (classifier)", "explainer's own pass", "ee_explain (all)",
    "IG s = 4", "IG s = 5", "IG s = 6", "IG s = 7"};

static void die(const char *what)
{
    fprintf(stderr, "bench_explain_phases: %s: %s\n", what, ee_last_error());
    exit(1);
}

static EeModel *load(EeMatIn *f, const char *name)
{
    EeFieldSource src;
    EeModel *m = NULL;
    if (ee_mat_struct_source(f, name, &src) || ee_model_acquire(&src, name, &m)) die(name);
    return m;
}

int main(int argc, char **argv)
{
    int only = -1; /* every phase */
    if (argc == 4)
        for (int p = 0; p < PHASES; p++)
            if (!strcmp(argv[3], keys[p])) only = p;
    if (argc < 2 || argc > 4 || (argc == 4 && only < 0)) {
        fprintf(stderr, "usage: bench_explain_phases FILE.mat [ROUNDS [predict|features|own|explain|ig4|ig5|ig6|ig7]]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 25;
    if (rounds < 1) rounds = 1;
    EeMatIn *f;
    if (ee_matin_open(argv[1], &f)) die(argv[1]);
    EeModel *clf = load(f, "classifier"), *expl = load(f, "explainer");
    size_t rows, cols;
    const double *X = ee_mat_double(f, "X", &rows, &cols);
    const EeConfig *ec = ee_model_config(expl), *cc = ee_model_config(clf);
    if (!X || !rows || cols != (size_t)cc->T) {
        fprintf(stderr, "bench_explain_phases: X must be N x %d token ids\n", cc->T);
        return 2;
    }
    int N = (int)rows, T = (int)cols, k = ee_config_features(ec);
    if (!k) {
        fprintf(stderr, "bench_explain_phases: this explainer reads no features of its classifier\n");
        return 2;
    }
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)N * T);
    size_t per_row = T > cc->classes ? (size_t)T : (size_t)cc->classes; /* maps or logits */
    float *F = malloc(sizeof(float) * (size_t)N * T * k), *out = malloc(sizeof(float) * (size_t)N * per_row);
    double *sec = malloc(sizeof(double) * PHASES * rounds);
    if (!ids || !F || !out || !sec) {
        fprintf(stderr, "bench_explain_phases: out of memory for %d rows\n", N);
        return 1;
    }
    /* column-major, 1-based -> row-major, 0-based; here only what the cast
     * needs (a whole number in int32's range, not NaN): the vocabulary's
     * range is ee_input_check's, below */
    for (int i = 0; i < N; i++)
        for (int t = 0; t < T; t++) {
            double v = X[(size_t)t * N + i];
            if (!(fabs(v) <= INT32_MAX && v == trunc(v))) {
                fprintf(stderr, "bench_explain_phases: X(%d,%d) = %g is not a token id\n", i + 1, t + 1, v);
                return 2;
            }
            ids[(size_t)i * T + t] = (int32_t)v - 1;
        }
    EeInput in = {.n = N, .ids = ids};
    if (ee_input_check(clf, &in)) {
        fprintf(stderr, "bench_explain_phases: X: %s\n", ee_last_error());
        return 2;
    }
    ee_threads_enter();
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.device = EE_DEVICE_CPU; /* the pad baseline (the default), as ee_explain reads the features */
    EeModel *ex[1] = {expl};
    for (int r = -1; r < rounds; r++) { /* round -1: the warm-up (kept baselines, pages) */
        for (int p = 0; p < PHASES; p++) {
            /* alone, the explainer's own pass still needs the features once */
            if (only >= 0 && p != only && !(only == OWN_PASS && p == FEATURES && r < 0)) continue;
            EeStatus st = EE_OK;
            EeAttrOptions io = o;
            double t0 = ee_now();
            switch (p) {
            case PREDICT: st = ee_model_predict(clf, &in, out, 0, EE_DEVICE_CPU); break;
            case FEATURES: st = ee_explainer_features(clf, ec->inputs, &in, &o, F, NULL); break;
            case OWN_PASS: {
                EeInput x = in;
                x.feats = F;
                st = ee_model_predict(expl, &x, out, 0, EE_DEVICE_CPU);
                break;
            }
            case EXPLAIN: st = ee_explain(ex, 1, clf, &in, &o, out, NULL); break;
            default:
                io.steps = 4 + (p - IG4);
                st = ee_ig_attribute(clf, &in, &io, out, NULL);
            }
            if (st) die(names[p]);
            if (r >= 0) sec[(size_t)p * rounds + r] = ee_now() - t0;
        }
    }
    printf("%d rows of T = %d, %d rounds, %d threads; ms per row\n", N, T, rounds, ee_threads_count());
    printf("  %-28s %9s %9s", "phase", "min", "median");
    printf(only < 0 ? " %14s %14s\n" : "\n", "IG / features", "IG / explain");
    double med[PHASES];
    for (int p = 0; p < PHASES; p++) {
        if (only >= 0 && p != only) continue;
        double *s = sec + (size_t)p * rounds;
        med[p] = bench_median(s, rounds); /* (sorted: s[0] is the minimum) */
        printf("  %-28s %9.4f %9.4f", names[p], 1e3 * s[0] / N, 1e3 * med[p] / N);
        if (p >= IG4 && only < 0) printf(" %13.2fx %13.2fx", med[p] / med[FEATURES], med[p] / med[EXPLAIN]);
        printf("\n");
    }
    ee_threads_leave();
    free(ids); free(F); free(out); free(sec);
    ee_model_release(clf);
    ee_model_release(expl);
    ee_matin_close(f);
    return 0;
}
