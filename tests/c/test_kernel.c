/* test_kernel.c: the target-free Shapley loss (libcore/train/kernel.c)
 * against references of its own:
 * - the coalition sampler: sizes drawn with the Shapley kernel's
 *   frequencies (the formula written out here), antithetic pairs, the
 *   same coalitions for a row whatever the batch or the row split;
 * - the all-coalitions weights against the kernel written out here;
 * - the loss's gradient against central differences in double;
 * - its minimiser over phi_hat, with every proper coalition weighted by the
 *   normalised kernel, against exact Shapley values enumerated here from
 *   v(S) computed with ee_model_predict (another code path than the
 *   sampler's), and against ee_shapley_exact, on a transformer and a cnn
 *   with n <= 8 real tokens (and not them with the singletons' weights 1 %
 *   off);
 * - with sampled coalitions weighted 1/K, the minimiser approaching the
 *   exact Shapley values as K grows;
 * - ee_train on coalition values moves an explainer towards the Shapley
 *   values of its training rows. */
#include "check.h"
#include "ee.h"
#include "refmodel.h"

#include <string.h>

static EeRng rng;

/* a transformer or cnn of length T (refmodel.h's small config), weights
 * large enough that the game is far from additive */
static EeModel *make_clf(EeKind kind, int T)
{
    EeConfig c;
    refm_config(&c, kind, T, 0, 0, 0);
    return refm_model(&c, 5, 0.5, &rng);
}

/* [CLS] n tokens [SEP] PAD... */
static void make_row(int32_t *ids, int T, int n, int words)
{
    for (int t = 0; t < T; t++)
        ids[t] = t == 0 ? EE_CLS : t == n + 1 ? EE_SEP : t <= n ? 4 + (int)ee_rng_below(&rng, words) : EE_PAD;
}

/* the Shapley kernel's weight of a coalition of size m among n, unnormalised */
static double kernel_weight(int n, int m)
{
    double c = 1;
    for (int k = 0; k < m; k++) c = c * (n - k) / (k + 1);
    return (n - 1) / (c * m * (n - m));
}

static int popcount_words(const uint64_t *S, int W)
{
    int m = 0;
    for (int w = 0; w < W; w++) m += __builtin_popcountll(S[w]);
    return m;
}

/* ---- the sampler -------------------------------------------------------------- */
static void test_draw(void)
{
    enum { N = 6, K = 4, ROWS = 20000 };
    uint64_t coal[K], again[K];
    double count[N + 1] = {0}, p[N + 1], z = 0;
    int pairs = 1, sizes = 1;
    for (long row = 0; row < ROWS; row++) {
        ee_kernel_draw(3, row, N, K, 1, coal);
        for (int k = 0; k < K; k += 2) {
            int m = popcount_words(coal + k, 1);
            sizes &= m >= 1 && m <= N - 1 && coal[k] >> N == 0;
            pairs &= coal[k + 1] == (~coal[k] & ((1ULL << N) - 1));
            count[m]++;
        }
    }
    CHECK(sizes, "every drawn coalition is proper (1..n-1 of the n tokens)");
    CHECK(pairs, "odd draws are the complements of the even ones");
    for (int m = 1; m < N; m++) z += p[m] = (N - 1.0) / (m * (N - m));
    CheckCmp q = CMP_INIT;
    for (int m = 1; m < N; m++) {
        double e = ROWS * K / 2 * p[m] / z, sd = sqrt(e * (1 - p[m] / z));
        cmp_add_scaled(&q, count[m], e, 5 * sd);
    }
    CHECK_CMP(q, 1, "size frequencies within 5 sigma of the Shapley kernel's (worst %.2g of the bound)", q.err);
    ee_kernel_draw(3, 77, N, K, 1, coal);
    ee_kernel_draw(3, 77, N, K, 1, again);
    CHECK(!memcmp(coal, again, sizeof coal), "the same (seed, row), the same coalitions");
    int differ = 0;
    for (long row = 0; row < 20; row++) {
        ee_kernel_draw(3, row, N, K, 1, again);
        differ += memcmp(coal, again, sizeof coal) != 0;
    }
    CHECK(differ >= 15, "other rows draw other coalitions (%d of 20 differ)", differ);
    /* rows past 64 tokens: two words, the complement over all of them */
    uint64_t big[2 * 2];
    ee_kernel_draw(1, 5, 100, 2, 2, big);
    int m0 = popcount_words(big, 2), m1 = popcount_words(big + 2, 2);
    CHECK(m0 >= 1 && m0 <= 99 && m0 + m1 == 100 && !(big[0] & big[2]) && !(big[1] & big[3]) && big[3] >> 36 == 0,
          "100 tokens in two words: a proper coalition and its complement (%d + %d)", m0, m1);
    double pp[101], s = 0;
    ee_kernel_size_probs(100, pp);
    for (int m = 0; m <= 100; m++) s += pp[m];
    CHECK(fabs(s - 1) < 1e-12 && pp[0] == 0 && pp[100] == 0, "size probabilities sum to 1 (%.17g)", s);
}

/* ---- the all-coalitions weights ------------------------------------------------- */
static void test_all(void)
{
    for (int n = 2; n <= 8; n++) {
        long K = ee_kernel_all(n, 1, NULL, NULL);
        uint64_t *coal = malloc(sizeof(uint64_t) * K);
        float *w = malloc(sizeof(float) * K);
        REQUIRE(K == (1L << n) - 2 && coal && w, "2^n - 2 coalitions");
        ee_kernel_all(n, 1, coal, w);
        double z = 0;
        for (long S = 1; S < (1L << n) - 1; S++) z += kernel_weight(n, __builtin_popcountl(S));
        CheckCmp q = CMP_INIT;
        int order = 1;
        for (long k = 0; k < K; k++) {
            order &= coal[k] == (uint64_t)(k + 1);
            cmp_add(&q, w[k], kernel_weight(n, __builtin_popcountll(coal[k])) / z);
        }
        CHECK(order, "n = %d: the coalitions 1..2^n-2 in order", n);
        CHECK_CMP(q, cmp_bound(&q, 1e-6, 0), "n = %d: weights = the normalised Shapley kernel", n);
        free(coal);
        free(w);
    }
    CHECK(ee_kernel_all(1, 1, NULL, NULL) == 0 && ee_kernel_all(21, 1, NULL, NULL) == 0, "n = 1 and n = 21: none");
}

/* ---- the gradient ----------------------------------------------------------------- */
static void test_gradient(void)
{
    for (int trial = 0; trial < 6; trial++) {
        int n = 2 + trial, K = 2 * (3 + trial);
        uint64_t coal[64];
        float value[64], weight[64];
        double phi[16], grad[16], total = ee_rng_normal(&rng);
        ee_kernel_draw(9, trial, n, K, 1, coal);
        for (int k = 0; k < K; k++) {
            value[k] = (float)ee_rng_normal(&rng);
            weight[k] = (float)ee_rng_uniform(&rng);
        }
        for (int j = 0; j < n; j++) phi[j] = ee_rng_normal(&rng);
        for (int wmode = 0; wmode < 2; wmode++) {
            const float *w = wmode ? weight : NULL;
            double L = ee_kernel_loss(n, phi, total, K, 1, coal, value, w, grad);
            CheckCmp q = CMP_INIT;
            for (int j = 0; j < n; j++) {
                double h = 1e-4, keep = phi[j];
                phi[j] = keep + h;
                double up = ee_kernel_loss(n, phi, total, K, 1, coal, value, w, NULL);
                phi[j] = keep - h;
                double dn = ee_kernel_loss(n, phi, total, K, 1, coal, value, w, NULL);
                phi[j] = keep;
                cmp_add(&q, grad[j], (up - dn) / (2 * h));
            }
            CHECK(isfinite(L) && L >= 0, "n = %d: a finite loss >= 0 (%g)", n, L);
            CHECK_CMP(q, cmp_bound(&q, 1e-7, 1e-3), "n = %d, %s weights: gradient vs central differences %.3g",
                      n, wmode ? "given" : "1/K", q.err);
        }
    }
}

/* ---- the minimiser against exact Shapley values ------------------------------------- */
/* The minimiser of the quadratic ee_kernel_loss: its gradient is affine,
 * g(x) = H x + g(0), so H's columns are g(e_j) - g(0); then H x = -g(0). */
static int minimise(int n, double total, long K, const uint64_t *coal, const float *value, const float *w, double *x)
{
    double H[8][9], g0[8], e[8] = {0}, g[8];
    ee_kernel_loss(n, e, total, (int)K, 1, coal, value, w, g0);
    for (int j = 0; j < n; j++) {
        e[j] = 1;
        ee_kernel_loss(n, e, total, (int)K, 1, coal, value, w, g);
        e[j] = 0;
        for (int i = 0; i < n; i++) H[i][j] = g[i] - g0[i];
    }
    for (int i = 0; i < n; i++) H[i][n] = -g0[i];
    for (int c = 0; c < n; c++) { /* Gauss-Jordan, partial pivoting */
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(H[i][c]) > fabs(H[p][c])) p = i;
        if (!(fabs(H[p][c]) > 1e-12)) return 0;
        for (int k = 0; k <= n; k++) { double t = H[c][k]; H[c][k] = H[p][k]; H[p][k] = t; }
        for (int i = 0; i < n; i++) {
            if (i == c) continue;
            double f = H[i][c] / H[c][c];
            for (int k = c; k <= n; k++) H[i][k] -= f * H[c][k];
        }
    }
    for (int i = 0; i < n; i++) x[i] = H[i][n] / H[i][i];
    return 1;
}

static void test_optimum(EeKind kind)
{
    enum { T = 11, N = 6 };
    const int lens[N] = {2, 3, 5, 6, 7, 8};
    EeModel *m = make_clf(kind, T);
    REQUIRE(m != NULL, "model");
    if (!m) return;
    int32_t ids[N * T];
    for (int i = 0; i < N; i++) make_row(ids + i * T, T, lens[i], 26);
    EeInput in = {.n = N, .ids = ids};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    float Aex[N * T];
    int32_t tg[N];
    EeAttrInfo info = {.target = tg};
    CHECK_OK(ee_shapley_exact(m, &in, &o, Aex, &info));
    CheckCmp vs_enum = CMP_INIT, vs_exact = CMP_INIT, vs_wrong = CMP_INIT, vs_tilt = CMP_INIT;
    for (int i = 0; i < N; i++) {
        int n = lens[i];
        const int32_t *row = ids + i * T;
        long K = ee_kernel_all(n, 1, NULL, NULL);
        uint64_t *coal = malloc(sizeof(uint64_t) * K);
        float *w = malloc(sizeof(float) * K), *value = malloc(sizeof(float) * K), total;
        REQUIRE(coal && w && value, "allocations");
        ee_kernel_all(n, 1, coal, w);
        EeKernelTargets kt = {.K = (int)K, .words = 1, .coal = coal, .value = value, .weight = w, .total = &total};
        EeInput one = {.n = 1, .ids = row};
        EeAttrOptions oi = o;
        oi.row_offset = i;
        CHECK_OK(ee_kernel_values(m, &one, &oi, &kt, 0));
        CHECK(kt.passes == 2 + K, "row %d: f(x), v(empty) and one pass per coalition (%ld)", i + 1, kt.passes);
        double phi[8];
        int ok = minimise(n, total, K, coal, value, w, phi);
        REQUIRE(ok, "the loss's Hessian is regular");
        /* the reference: every coalition's value by ee_model_predict, then
         * phi_j = sum over S without j of |S|! (n-|S|-1)! / n! (v(S+j) - v(S)) */
        long M = 1L << n;
        int32_t *X = malloc(sizeof(int32_t) * M * T);
        uint8_t *mask = malloc((size_t)M * T);
        float *out = malloc(sizeof(float) * M * 3);
        double *v = malloc(sizeof(double) * M), fact[9] = {1};
        for (int k = 1; k <= 8; k++) fact[k] = fact[k - 1] * k;
        for (long S = 0; S < M; S++)
            for (int t = 0, j = 0; t < T; t++) {
                int real = !EE_IS_SPECIAL(row[t]);
                X[S * T + t] = real && !(S >> j & 1) ? EE_PAD : row[t];
                mask[S * T + t] = row[t] != EE_PAD;
                j += real;
            }
        EeInput all = {.n = (int)M, .ids = X, .mask = mask};
        CHECK_OK(ee_model_predict(m, &all, out, 0, EE_DEVICE_CPU));
        for (long S = 0; S < M; S++) v[S] = out[S * 3 + tg[i]];
        for (int j = 0; j < n; j++) {
            double ref = 0;
            for (long S = 0; S < M; S++) {
                if (S >> j & 1) continue;
                int s = __builtin_popcountl(S);
                ref += fact[s] * fact[n - s - 1] / fact[n] * (v[S | 1L << j] - v[S]);
            }
            cmp_add(&vs_enum, phi[j], ref);
            cmp_add(&vs_exact, phi[j], Aex[i * T + 1 + j]);
        }
        /* the same loss with every coalition weighted 1/K (not the kernel)
         * has another minimiser: the comparison can fail */
        double wrong[8];
        if (minimise(n, total, K, coal, value, NULL, wrong) && n >= 3)
            for (int j = 0; j < n; j++) cmp_add(&vs_wrong, wrong[j], phi[j]);
        /* and so has the kernel with the singletons' weights 1 % heavier
         * (not their complements': a change of the weights of one size and
         * its complement's size alike leaves the minimiser where it is only
         * for n = 2, where they are all the coalitions) */
        for (long k = 0; k < K; k++)
            if (__builtin_popcountll(coal[k]) == 1) w[k] *= 1.01f;
        if (minimise(n, total, K, coal, value, w, wrong) && n >= 3)
            for (int j = 0; j < n; j++) cmp_add(&vs_tilt, wrong[j], phi[j]);
        free(X); free(mask); free(out); free(v); free(coal); free(w); free(value);
    }
    if (getenv("EE_TEST_VERBOSE"))
        printf("%s: vs enumeration %.3g, vs exact %.3g (scale %.3g), uniform weights %.3g away, singletons 1 %% "
               "heavier %.3g away\n", ee_kind_name(kind), vs_enum.err, vs_exact.err, vs_enum.scale, vs_wrong.err,
               vs_tilt.err);
    CHECK_CMP(vs_enum, cmp_bound(&vs_enum, 1e-6, 1e-2),
              "%s: the loss's minimiser = Shapley values enumerated here, to %.3g (scale %.3g)", ee_kind_name(kind),
              vs_enum.err, vs_enum.scale);
    CHECK_CMP(vs_exact, cmp_bound(&vs_exact, 1e-6, 1e-2),
              "%s: the loss's minimiser = ee_shapley_exact, to %.3g", ee_kind_name(kind), vs_exact.err);
    CHECK(vs_wrong.n > 0 && vs_wrong.err > 100 * cmp_bound(&vs_enum, 1e-6, 1e-2),
          "%s: uniform weights give another minimiser (%.3g away): the check discriminates", ee_kind_name(kind),
          vs_wrong.err);
    CHECK(vs_tilt.n > 0 && vs_tilt.err > 10 * cmp_bound(&vs_enum, 1e-6, 1e-2),
          "%s: singletons' weights 1 %% off give another minimiser (%.3g away, bound %.3g)", ee_kind_name(kind),
          vs_tilt.err, cmp_bound(&vs_enum, 1e-6, 1e-2));
    ee_model_free(m);
}

/* ---- sampled coalitions: the minimiser converges to the Shapley values ------------------ */
/* With K coalitions drawn from the kernel and weighted 1/K (what training
 * uses) the loss is an unbiased estimate of the all-coalitions loss, so its
 * minimiser approaches the exact Shapley values as K grows (about as
 * 1/sqrt(K)), and is not them at small K. */
static void test_sampled(void)
{
    enum { T = 11, N = 5, NK = 3 };
    const int lens[N] = {4, 5, 6, 7, 8};
    /* EE_TEST_QUICK (valgrind): a quarter of the largest K */
    int quick = getenv("EE_TEST_QUICK") && atoi(getenv("EE_TEST_QUICK"));
    const int Ks[NK] = {64, 512, quick ? 1024 : 4096};
    EeModel *m = make_clf(EE_KIND_TRANSFORMER, T);
    REQUIRE(m != NULL, "model");
    if (!m) return;
    int32_t ids[N * T];
    for (int i = 0; i < N; i++) make_row(ids + i * T, T, lens[i], 26);
    EeInput in = {.n = N, .ids = ids};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.seed = 11;
    float Aex[N * T];
    CHECK_OK(ee_shapley_exact(m, &in, &o, Aex, NULL));
    double rms[NK], scale = 0;
    int solved = 1;
    for (int q = 0; q < N * T; q++) scale = fmax(scale, fabs(Aex[q]));
    for (int a = 0; a < NK; a++) {
        int K = Ks[a];
        uint64_t *coal = malloc(sizeof(uint64_t) * N * K);
        float *value = malloc(sizeof(float) * N * K), total[N];
        REQUIRE(coal && value, "allocations");
        EeKernelTargets kt = {.K = K, .words = 1, .coal = coal, .value = value, .total = total};
        CHECK_OK(ee_kernel_values(m, &in, &o, &kt, 1));
        double ss = 0;
        int cnt = 0;
        for (int i = 0; i < N; i++) {
            double phi[8];
            solved &= minimise(lens[i], total[i], K, coal + (size_t)i * K, value + (size_t)i * K, NULL, phi);
            for (int j = 0; j < lens[i]; j++, cnt++) {
                double d = phi[j] - Aex[i * T + 1 + j];
                ss += isfinite(d) ? d * d : INFINITY; /* a NaN fails every check below */
            }
        }
        rms[a] = sqrt(ss / cnt);
        free(coal);
        free(value);
    }
    if (getenv("EE_TEST_VERBOSE"))
        printf("sampled: rms to exact %.3g (K %d), %.3g (K %d), %.3g (K %d); scale %.3g\n", rms[0], Ks[0], rms[1],
               Ks[1], rms[2], Ks[2], scale);
    CHECK(solved, "the sampled loss's Hessian is regular at every K");
    CHECK(rms[0] > 1e-3 * scale, "K = %d: the minimiser is not yet the Shapley values (rms %.3g, scale %.3g)", Ks[0],
          rms[0], scale);
    CHECK(rms[2] < 0.5 * rms[0] && rms[1] < rms[0],
          "more coalitions, closer to the Shapley values: rms %.3g, %.3g, %.3g at K = %d, %d, %d", rms[0], rms[1],
          rms[2], Ks[0], Ks[1], Ks[2]);
    CHECK(rms[2] < 0.05 * scale, "K = %d: rms %.3g, under 5 %% of the values' scale %.3g", Ks[2], rms[2], scale);
    ee_model_free(m);
}

/* ---- the values: independent of batch and row split --------------------------------- */
static void test_values_split(void)
{
    enum { T = 12, N = 7, K = 6 };
    EeModel *m = make_clf(EE_KIND_TRANSFORMER, T);
    REQUIRE(m != NULL, "model");
    if (!m) return;
    int32_t ids[N * T];
    const int lens[N] = {0, 1, 4, 10, 3, 7, 2};
    for (int i = 0; i < N; i++) make_row(ids + i * T, T, lens[i], 26);
    uint64_t c1[N * K], c2[N * K];
    float v1[N * K], v2[N * K], t1[N], t2[N];
    EeKernelTargets a = {.K = K, .words = 1, .coal = c1, .value = v1, .total = t1};
    EeKernelTargets b = {.K = K, .words = 1, .coal = c2, .value = v2, .total = t2};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.seed = 4;
    EeInput in = {.n = N, .ids = ids};
    CHECK_OK(ee_kernel_values(m, &in, &o, &a, 1));
    /* batch 3, and the rows in two calls keyed by their offset */
    o.batch = 3;
    EeInput lo = {.n = 3, .ids = ids}, hi = {.n = N - 3, .ids = ids + 3 * T};
    EeKernelTargets b_hi = {.K = K, .words = 1, .coal = c2 + 3 * K, .value = v2 + 3 * K, .total = t2 + 3};
    CHECK_OK(ee_kernel_values(m, &lo, &o, &b, 1));
    o.row_offset = 3;
    CHECK_OK(ee_kernel_values(m, &hi, &o, &b_hi, 1));
    CHECK(!memcmp(c1, c2, sizeof c1), "the same coalitions whatever the batch and row split");
    CheckCmp q = CMP_INIT;
    for (int k = 0; k < N * K; k++) cmp_add(&q, v2[k], v1[k]);
    for (int i = 0; i < N; i++) cmp_add(&q, t2[i], t1[i]);
    CHECK_CMP(q, cmp_bound(&q, 1e-5, 1e-3), "the same values whatever the batch and row split (%.3g)", q.err);
    long expect = 0;
    for (int i = 0; i < N; i++) expect += 1 + (lens[i] ? 1 + (lens[i] >= 2 ? K : 0) : 0);
    CHECK(a.passes == expect, "passes: f(x), v(empty), one per non-empty coalition (%ld, expected %ld)", a.passes, expect);
    int zero = 1;
    for (int k = 0; k < 2 * K; k++) zero &= v1[k] == 0; /* rows of 0 and 1 tokens: no proper coalition */
    CHECK(zero && t1[0] == 0, "rows of 0 and 1 tokens have no coalition values; 0 tokens: total 0");
    a.K = 0;
    CHECK(ee_kernel_values(m, &in, &o, &a, 1) == EE_ERR_INPUT, "K = 0 refused");
    ee_model_free(m);
}

/* ---- training on coalition values ------------------------------------------------------ */
static double map_error(EeModel *e, const EeInput *in, const float *ref)
{
    int T = ee_model_config(e)->T;
    float *A = malloc(sizeof(float) * in->n * T);
    ee_model_predict(e, in, A, 0, EE_DEVICE_CPU);
    double s = 0;
    for (int q = 0; q < in->n * T; q++) s += (A[q] - ref[q]) * (A[q] - ref[q]);
    free(A);
    return s / (in->n * T);
}

static void test_train(void)
{
    enum { T = 9, N = 60, K = 16 };
    EeModel *clf = make_clf(EE_KIND_TRANSFORMER, T), *e = NULL;
    REQUIRE(clf != NULL, "model");
    if (!clf) return;
    /* a steeper output layer: Shapley values of order 1, far from the zero map */
    int wc = ee_model_find_param(clf, NULL, 0, "Wc");
    EeParamInfo pi;
    ee_model_param_info(clf, wc, &pi);
    float *buf = malloc(sizeof(float) * pi.count);
    CHECK_OK(ee_param_get(clf, wc, buf, pi.count));
    for (size_t k = 0; k < pi.count; k++) buf[k] *= 8;
    CHECK_OK(ee_param_set(clf, wc, buf, pi.count));
    free(buf);
    int32_t ids[N * T];
    for (int i = 0; i < N; i++) make_row(ids + i * T, T, 2 + i % 6, 3); /* 3 words: learnable */
    EeInput in = {.n = N, .ids = ids};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    float *Aex = malloc(sizeof(float) * N * T), *value = malloc(sizeof(float) * N * K), total[N];
    uint64_t *coal = malloc(sizeof(uint64_t) * N * K);
    CHECK_OK(ee_shapley_exact(clf, &in, &o, Aex, NULL));
    EeKernelTargets kt = {.K = K, .words = 1, .coal = coal, .value = value, .total = total};
    CHECK_OK(ee_kernel_values(clf, &in, &o, &kt, 1));
    EeExplainerSpec spec;
    ee_explainer_spec_paper(&spec);
    spec.head = EE_HEAD_TOKEN;
    CHECK_OK(ee_explainer_new(clf, &spec, 3, &e));
    double before = map_error(e, &in, Aex), zero = 0;
    for (int q = 0; q < N * T; q++) zero += (double)Aex[q] * Aex[q];
    zero /= N * T;
    EeDataset train = {.in = in, .kernel = &kt}, valid = {.in = in, .maps = Aex};
    EeTrainOptions to;
    ee_train_options_defaults(&to, EE_KIND_TRANSFORMER, EE_HEAD_TOKEN);
    to.verbose = 0;
    to.epochs = 150;
    to.batch = 4;
    to.lr = 3e-3f;
    to.patience = 150;
    EeHistory h;
    CHECK_OK(ee_train(e, &train, &valid, &to, &h));
    double after = map_error(e, &in, Aex);
    if (getenv("EE_TEST_VERBOSE")) {
        for (int k = 0; k < h.epochs_run; k++) printf("ep %d train %g valid %g\n", k + 1, h.train_loss[k], h.valid_loss[k]);
        EeModel *e2;
        ee_explainer_new(clf, &spec, 3, &e2);
        EeDataset tm = {.in = in, .maps = Aex};
        EeHistory h2;
        ee_train(e2, &tm, &valid, &to, &h2);
        printf("MSE-trained on exact maps: %g\n", map_error(e2, &in, Aex));
        ee_history_free(&h2);
        ee_model_free(e2);
    }
    if (getenv("EE_TEST_VERBOSE")) printf("train: %g -> %g (zero map %g)\n", before, after, zero);
    CHECK(after < 0.15 * zero && after < 0.01 * before,
          "trained on coalition values alone, the explainer's MSE to the exact Shapley values fell: %.3g -> %.3g "
          "(zero map %.3g)", before, after, zero);
    ee_history_free(&h);
    EeDataset none = {.in = in};
    CHECK(ee_train(e, &none, NULL, &to, &h) == EE_ERR_INPUT, "an explainer with neither maps nor values is refused");
    value[3] = NAN;
    CHECK(ee_train(e, &train, NULL, &to, &h) == EE_ERR_INPUT, "a NaN coalition value is refused");
    free(Aex); free(value); free(coal);
    ee_model_free(e);
    ee_model_free(clf);
}

int main(void)
{
    ee_rng_seed(&rng, 2026);
    test_draw();
    test_all();
    test_gradient();
    test_optimum(EE_KIND_TRANSFORMER);
    test_optimum(EE_KIND_CNN);
    test_sampled();
    test_values_split();
    test_train();
    return check_finish("test_kernel");
}
