/* bench_sv_fn.c: the cost of ee_sv_fn's own work around the model
 * callback (generating the perturbed rows, bookkeeping, the values),
 * per batch and per row, with a callback that does nothing but hand back
 * a ready score column, next to the time a trivial model f(x) = x w takes
 * for the same rows in C (a dot product per row: the cheapest real f).
 * Not a test: numbers depend on the machine. The gateway's share
 * (copying a batch into an Octave array, mexCallMATLAB) is measured by
 * bench/sv_fn_overhead.m. */
#include "ee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double *y;        /* M x 1 zeros or x w */
    const double *w;  /* NULL: hand back y as it is */
    double t;         /* seconds inside */
} Cb;

static EeStatus eval(void *ctx, const double *rows, int M, int F, long call, const double **scores, int *C)
{
    Cb *cb = ctx;
    double t0 = ee_now();
    if (cb->w)
        for (int j = 0; j < M; j++) {
            double s = 0;
            for (int f = 0; f < F; f++) s += rows[(size_t)j * F + f] * cb->w[f];
            cb->y[j] = s;
        }
    *scores = cb->y;
    *C = 1;
    cb->t += ee_now() - t0;
    return EE_OK;
}

static void bench(int F, int groups_of, int K, int B, int N, int s)
{
    double *X = malloc(sizeof(double) * (size_t)N * F), *bg = malloc(sizeof(double) * (size_t)K * F);
    double *w = malloc(sizeof(double) * F), *A = malloc(sizeof(double) * (size_t)N * F);
    double *y = calloc((size_t)B, sizeof(double));
    int32_t *g = malloc(sizeof(int32_t) * F);
    EeRng rng;
    ee_rng_seed(&rng, 1);
    for (size_t i = 0; i < (size_t)N * F; i++) X[i] = ee_rng_uniform(&rng);
    for (size_t i = 0; i < (size_t)K * F; i++) bg[i] = ee_rng_uniform(&rng);
    for (int f = 0; f < F; f++) { w[f] = ee_rng_uniform(&rng) - 0.5; g[f] = f / groups_of + 1; }
    EeFnPlayers pl = {.F = F, .groups = groups_of > 1 ? g : NULL, .background = bg, .K = K};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.steps = s;
    o.batch = B;
    double best[2] = {1e30, 1e30}, in_f[2] = {0, 0};
    long calls = 0, rows = 0;
    for (int mode = 0; mode < 2; mode++)
        for (int rep = 0; rep < 5; rep++) {
            Cb cb = {y, mode ? w : NULL, 0};
            EeScoreFn fn = {eval, &cb, NULL};
            EeFnInfo info = {0};
            if (ee_sv_fn(&fn, X, N, &pl, &o, 0, A, &info)) {
                fprintf(stderr, "bench_sv_fn: %s\n", ee_last_error());
                exit(1);
            }
            double outside = info.seconds - cb.t;
            if (outside < best[mode]) { best[mode] = outside; in_f[mode] = cb.t; }
            calls = info.calls;
            rows = info.rows;
        }
    int P = ee_fn_players(pl.groups, F);
    printf("F %4d  P %4d  K %2d  batch %5d  %7ld rows %5ld calls | outside f: %7.2f us/batch %6.1f ns/row"
           " | x*w in C: %7.2f us/batch (%4.0f %%)\n",
           F, P, K, B, rows, calls, 1e6 * best[0] / calls, 1e9 * best[0] / rows, 1e6 * in_f[1] / calls,
           100 * best[0] / in_f[1]);
    free(X); free(bg); free(w); free(A); free(y); free(g);
}

int main(void)
{
    printf("ee_sv_fn outside the callback (best of 5), next to a trivial f (x*w, C loop)\n");
    bench(16, 1, 1, 256, 50, 100);
    bench(16, 1, 1, 1024, 50, 100);
    bench(16, 1, 1, 4096, 50, 100);
    bench(16, 1, 20, 1024, 10, 50);
    bench(784, 16, 1, 256, 4, 50);   /* 784 columns in 49 players of 16 (Fashion-MNIST's 4 x 4 patches) */
    bench(784, 16, 1, 1024, 4, 50);
    bench(784, 1, 1, 1024, 1, 4);
    return 0;
}
