/* test_coalitions.c: the coalition methods on a model given as a callback
 * (ee_coalition_fn: KernelSHAP, LIME, occlusion), against double-precision
 * references written from doc/MODELS.md's definitions, not from libcore's
 * code: every coalition value evaluated directly; KernelSHAP's constrained
 * fit solved through its KKT system (Lagrange multiplier) by Gaussian
 * elimination; LIME's kernel from the cosine of the two vectors and its
 * fit by Gaussian elimination; occlusion from its formula; the draws of
 * doc/RANDOM.md re-derived here. Also: exactness on the linear model,
 * KernelSHAP with all coalitions = exact Shapley values (ee_sv_fn), the
 * interaction model's closed form, error falling with the samples,
 * batch independence, the generic driver over a value function, bad options and rank-deficient designs. */
#include "check.h"
#include "ee.h"

#include <string.h>

#define FMAX 16
#define PMAX 16

/* ---- the model: C = 2 scores --------------------------------------------------- */
typedef struct {
    int F;
    const double *w;     /* linear: F x 2 (column c at w + c F); NULL: nonlinear */
    int product;         /* f = x0 x1 (one score): the interaction model */
    double *out;
    long calls, rows, max_m;
} Model;

static double model_value(const Model *m, const double *x, int c)
{
    if (m->product) return x[0] * x[1];
    double s = 0.3 * c - 0.1;
    if (m->w) {
        for (int f = 0; f < m->F; f++) s += m->w[f + (size_t)c * m->F] * x[f];
        return s;
    }
    for (int f = 0; f < m->F; f++) s += (0.5 + 0.25 * f) * (c ? -1 : 1) * x[f];
    s += (c ? 1.5 : -0.7) * x[0] * x[1] + tanh(x[2] + (c ? 2 : 1) * x[3]) + (c + 1) * x[0] * x[2] * x[4];
    if (m->F > 7) s += 0.8 * x[5] * x[6] * x[7] - 0.6 * sin(x[6] + x[m->F - 1]);
    return s;
}

static int model_classes(const Model *m) { return m->product ? 1 : 2; }

static EeStatus eval(void *ctx, const double *rows, int M, int F, long call, const double **scores, int *C)
{
    Model *m = ctx;
    (void)call;
    m->calls++;
    m->rows += M;
    if (M > m->max_m) m->max_m = M;
    int nc = model_classes(m);
    free(m->out);
    m->out = malloc(sizeof(double) * (size_t)M * nc);
    for (int j = 0; j < M; j++)
        for (int c = 0; c < nc; c++) m->out[j + (size_t)c * M] = model_value(m, rows + (size_t)j * F, c);
    *scores = m->out;
    *C = nc;
    return EE_OK;
}

/* ---- the data -------------------------------------------------------------------- */
#define N_ROWS 4
static double X[N_ROWS * FMAX], BG[3 * FMAX];

static void make_data(void)
{
    EeRng rng;
    ee_rng_seed(&rng, 7);
    for (int i = 0; i < N_ROWS * FMAX; i++) X[i] = 2 * ee_rng_uniform(&rng) - 1;
    for (int i = 0; i < 3 * FMAX; i++) BG[i] = ee_rng_uniform(&rng) - 0.5;
}

/* ---- the reference ------------------------------------------------------------------ */
typedef struct {
    const Model *m;
    int F, P, K;
    int player[FMAX];    /* column -> player or -1 */
    const double *bg;    /* K x F, or NULL: zeros */
} Ref;

static void ref_init(Ref *r, const Model *m, int F, const int32_t *groups, const double *bg, int K)
{
    r->m = m;
    r->F = F;
    r->bg = bg;
    r->K = bg ? K : 1;
    /* players: the distinct positive ids in ascending order */
    int P = 0;
    for (int id = 1; id <= 64; id++) {
        int any = 0;
        for (int f = 0; f < F; f++)
            if ((groups ? groups[f] : f + 1) == id) { r->player[f] = P; any = 1; }
        P += any;
    }
    for (int f = 0; f < F; f++)
        if (groups && groups[f] == 0) r->player[f] = -1;
    r->P = P;
}

/* v(S) of row x: the mean of f over the background with absent players'
 * columns replaced */
static double ref_value(const Ref *r, const double *x, const uint8_t *in, int target)
{
    double sum = 0, z[FMAX];
    for (int k = 0; k < r->K; k++) {
        for (int f = 0; f < r->F; f++) {
            int p = r->player[f];
            z[f] = p < 0 || in[p] ? x[f] : r->bg ? r->bg[(size_t)k * r->F + f] : 0;
        }
        sum += model_value(r->m, z, target);
    }
    return sum / r->K;
}

static int argmax_row(const Model *m, const double *x)
{
    return model_classes(m) > 1 && model_value(m, x, 1) > model_value(m, x, 0);
}

/* Solves A y = b (n x n, row-major, destroyed) by Gaussian elimination with
 * partial pivoting; b becomes y. */
static void gauss(int n, double *A, double *b)
{
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[piv * n + k])) piv = i;
        for (int j = 0; j < n; j++) { double t = A[k * n + j]; A[k * n + j] = A[piv * n + j]; A[piv * n + j] = t; }
        double t = b[k]; b[k] = b[piv]; b[piv] = t;
        for (int i = k + 1; i < n; i++) {
            double f = A[i * n + k] / A[k * n + k];
            for (int j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int j = i + 1; j < n; j++) s -= A[i * n + j] * b[j];
        b[i] = s / A[i * n + i];
    }
}

static double binom(int n, int k)
{
    double b = 1;
    for (int t = 1; t <= k; t++) b = b * (n - k + t) / t;
    return b;
}

/* the Shapley kernel, MODELS.md: (P-1) / (binom(P,s) s (P-s)) */
static double shapley_kernel(int P, int s)
{
    return s <= 0 || s >= P ? 0 : (P - 1) / (binom(P, s) * s * (P - s));
}

/* KernelSHAP from the definition: minimise sum_j w_j (v_j - v0 - z_j.phi)^2
 * subject to 1.phi = v1 - v0, by the KKT system
 * [2 Z'WZ 1; 1' 0] [phi; lambda] = [2 Z'W(v - v0); v1 - v0]. */
static void ref_kernelshap(const Ref *r, const double *x, int t, long n, const uint8_t *Z, const double *w,
                           double *phi)
{
    int P = r->P, q = P + 1;
    uint8_t none[PMAX] = {0}, all[PMAX];
    memset(all, 1, sizeof all);
    double v0 = ref_value(r, x, none, t), v1 = ref_value(r, x, all, t);
    double *A = calloc((size_t)q * q, sizeof(double)), b[PMAX + 1] = {0};
    for (long j = 0; j < n; j++) {
        const uint8_t *z = Z + j * P;
        double v = ref_value(r, x, z, t);
        for (int p = 0; p < P; p++) {
            if (!z[p]) continue;
            b[p] += 2 * w[j] * (v - v0);
            for (int u = 0; u < P; u++) A[p * q + u] += 2 * w[j] * z[u];
        }
    }
    for (int p = 0; p < P; p++) A[p * q + P] = A[P * q + p] = 1;
    b[P] = v1 - v0;
    gauss(q, A, b);
    memcpy(phi, b, sizeof(double) * P);
    free(A);
}

/* LIME from the definition: kernel exp(-d^2 / (2 width^2)), d = 1 - cos(z, 1)
 * (1 for z = 0); then min sum_j w_j (v_j - b - z_j.c)^2 + ridge |c|^2. */
static double ref_lime_kernel(const uint8_t *z, int P, double width)
{
    double dot = 0, nz = 0;
    for (int p = 0; p < P; p++) { dot += z[p]; nz += z[p] * z[p]; }
    double cosv = nz > 0 ? dot / (sqrt(nz) * sqrt((double)P)) : 0, d = 1 - cosv;
    return exp(-d * d / (2 * width * width));
}

static void ref_lime(const Ref *r, const double *x, int t, long n, const uint8_t *Z, double width, double ridge,
                     double *phi)
{
    int P = r->P, q = P + 1;
    double *A = calloc((size_t)q * q, sizeof(double)), b[PMAX + 1] = {0}, a[PMAX + 1];
    for (long j = 0; j < n; j++) {
        const uint8_t *z = Z + j * P;
        double v = ref_value(r, x, z, t), wj = ref_lime_kernel(z, P, width);
        a[0] = 1;
        for (int p = 0; p < P; p++) a[p + 1] = z[p];
        for (int p = 0; p < q; p++) {
            b[p] += wj * a[p] * v;
            for (int u = 0; u < q; u++) A[p * q + u] += wj * a[p] * a[u];
        }
    }
    for (int p = 1; p < q; p++) A[p * q + p] += ridge;
    gauss(q, A, b);
    memcpy(phi, b + 1, sizeof(double) * P);
    free(A);
}

/* exact Shapley values: sum over S without p of |S|!(P-|S|-1)!/P! (v(S+p) - v(S)) */
static void ref_shapley(const Ref *r, const double *x, int t, double *phi)
{
    int P = r->P;
    for (int p = 0; p < P; p++) phi[p] = 0;
    for (long S = 0; S < (1L << P); S++) {
        uint8_t in[PMAX];
        int s = 0;
        for (int p = 0; p < P; p++) s += in[p] = S >> p & 1;
        double vs = ref_value(r, x, in, t);
        for (int p = 0; p < P; p++) {
            if (in[p]) continue;
            in[p] = 1;
            phi[p] += (ref_value(r, x, in, t) - vs) / (P * binom(P - 1, s));
            in[p] = 0;
        }
    }
}

/* ---- running the library ------------------------------------------------------------ */
typedef struct {
    double A[N_ROWS * FMAX], players[N_ROWS * PMAX], fx[N_ROWS], fe[N_ROWS], delta[N_ROWS];
    int32_t target[N_ROWS];
    EeFnInfo info;
} Run;

static EeStatus run(Model *m, int F, const int32_t *groups, const double *bg, int K, const EeCoalitionOptions *co,
                    uint64_t seed, int batch, Run *out)
{
    EeScoreFn fn = {eval, m, NULL};
    EeFnPlayers pl = {.F = F, .groups = groups, .background = bg, .K = K};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.seed = seed;
    o.batch = batch;
    memset(out, 0, sizeof *out);
    out->info = (EeFnInfo){out->target, out->fx, out->fe, out->delta, out->players, NULL, 0, 0, 0, 0};
    m->F = F;
    m->calls = m->rows = m->max_m = 0;
    return ee_coalition_fn(&fn, X, N_ROWS, &pl, &o, co, out->A, &out->info);
}

/* the rows of X have FMAX columns; the first F are used */
static double X_row[N_ROWS][FMAX];
static void use_columns(int F)
{
    static double full[N_ROWS * FMAX];
    static int saved;
    if (!saved) { memcpy(full, X, sizeof X); saved = 1; }
    for (int i = 0; i < N_ROWS; i++) {
        memcpy(X_row[i], full + (size_t)i * FMAX, sizeof(double) * F);
        memcpy(X + (size_t)i * F, X_row[i], sizeof(double) * F);
    }
}

/* random explicit coalitions drawn by the test (1 x P bytes each) */
static void random_coalitions(uint64_t seed, long n, int P, uint8_t *Z, double *w)
{
    EeRng r;
    ee_rng_seed(&r, seed);
    for (long j = 0; j < n; j++) {
        for (int p = 0; p < P; p++) Z[j * P + p] = ee_rng_uniform(&r) < 0.4;
        if (w) w[j] = 0.1 + ee_rng_uniform(&r);
    }
}

/* ---- the checks -------------------------------------------------------------------- */
static void check_explicit(int kind, const int32_t *groups, int K, int given_w, const char *what)
{
    int F = 6;
    use_columns(F);
    Model m = {0};
    Ref r;
    ref_init(&r, &m, F, groups, K ? BG : NULL, K);
    int P = r.P;
    long n = 24;
    uint8_t Z[24 * PMAX];
    double w[24];
    random_coalitions(11 + kind, n, P, Z, w);
    EeCoalitionOptions co = {.kind = kind, .coalitions = Z, .n = n, .weights = given_w ? w : NULL, .ridge = 0.05 * kind};
    Run out;
    CHECK_OK(run(&m, F, groups, K ? BG : NULL, K, &co, 1, 5, &out));
    CheckCmp c = CMP_INIT, ca = CMP_INIT;
    double ref[PMAX], kw[24];
    for (long j = 0; j < n; j++) {
        int s = 0;
        for (int p = 0; p < P; p++) s += Z[j * P + p];
        kw[j] = given_w ? w[j] : shapley_kernel(P, s);
    }
    for (int i = 0; i < N_ROWS; i++) {
        int t = argmax_row(&m, X_row[i]);
        REQUIRE(out.target[i] == t, "%s: target", what);
        if (kind == EE_COAL_KERNELSHAP) ref_kernelshap(&r, X_row[i], t, n, Z, kw, ref);
        else ref_lime(&r, X_row[i], t, n, Z, 1.0, co.ridge, ref);
        for (int p = 0; p < P; p++) cmp_add(&c, out.players[i * P + p], ref[p]);
        for (int f = 0; f < F; f++) {
            int p = r.player[f], sz = 0;
            for (int g = 0; g < F; g++) sz += p >= 0 && r.player[g] == p;
            cmp_add(&ca, out.A[i * F + f], p < 0 ? 0 : ref[p] / sz);
        }
    }
    CHECK(c.scale > 1e-2, "%s: the values are not all ~0", what);
    CHECK_CMP(c, 1e-10 * c.scale, "%s: player values against the reference", what);
    CHECK_CMP(ca, 1e-10 * c.scale, "%s: A against the reference spread over the columns", what);
    /* the comparison can fail: the last row's reference changed by 1 % at one player does */
    CheckCmp bad2 = CMP_INIT;
    for (int p = 0; p < P; p++)
        cmp_add(&bad2, out.players[(N_ROWS - 1) * P + p], ref[p] + (p == 1 ? 0.01 * fmax(fabs(ref[p]), 0.01 * c.scale) : 0));
    CHECK(!cmp_ok(&bad2, 1e-10 * c.scale), "%s: a 1 %% change would go unnoticed", what);
    if (kind == EE_COAL_KERNELSHAP) {
        double worst = 0;
        for (int i = 0; i < N_ROWS; i++) worst = fmax(worst, fabs(out.delta[i]));
        CHECK(worst <= 1e-12 * c.scale, "%s: efficiency |delta| up to %g", what, worst);
    }
    CHECK(m.max_m <= 5, "%s: a call of %ld rows (batch 5)", what, m.max_m);
    free(m.out);
}

/* KernelSHAP with every coalition (samples >= 2^P - 2) = exact Shapley, on
 * the nonlinear model (reference) and the linear one (closed form) */
static void check_all_coalitions(void)
{
    int F = 6;
    use_columns(F);
    Model m = {0};
    Ref r;
    ref_init(&r, &m, F, NULL, BG, 3);
    EeCoalitionOptions co = {.kind = EE_COAL_KERNELSHAP, .samples = 62};
    Run out;
    CHECK_OK(run(&m, F, NULL, BG, 3, &co, 1, 0, &out));
    CheckCmp c = CMP_INIT;
    for (int i = 0; i < N_ROWS; i++) {
        double ref[PMAX];
        ref_shapley(&r, X_row[i], out.target[i], ref);
        for (int p = 0; p < 6; p++) cmp_add(&c, out.A[i * F + p], ref[p]);
    }
    CHECK(c.scale > 1e-2, "all coalitions: values ~0");
    CHECK_CMP(c, 1e-12 * c.scale, "KernelSHAP with all 62 coalitions against the exact Shapley values");
    CHECK(m.rows == N_ROWS + N_ROWS * 63L * 3, "all coalitions: %ld rows evaluated", m.rows);

    double w[2 * FMAX];
    for (int f = 0; f < 2 * F; f++) w[f] = 0.4 * f - 1.1;
    Model lin = {.w = w};
    for (int kind = 0; kind < EE_COAL_COUNT; kind++) {
        EeCoalitionOptions k = {.kind = kind, .samples = kind == EE_COAL_LIME ? 40 : 62};
        CHECK_OK(run(&lin, F, NULL, BG, 3, &k, 3, 0, &out));
        CheckCmp cl = CMP_INIT;
        for (int i = 0; i < N_ROWS; i++) {
            int t = out.target[i];
            for (int f = 0; f < F; f++) {
                double mb = (BG[f] + BG[F + f] + BG[2 * F + f]) / 3; /* BG as 3 x F */
                cmp_add(&cl, out.A[i * F + f], w[f + t * F] * (X_row[i][f] - mb));
            }
        }
        CHECK_CMP(cl, 1e-12 * fmax(cl.scale, 1), "linear model, %s: A = w .* (x - mean(background))",
                  kind == 0 ? "kernelshap" : kind == 1 ? "lime" : "occlusion");
    }
    free(m.out);
    free(lin.out);
}

/* f = x0 x1 with a background: phi_0 = mean_k (x0 - b0k)(x1 + b1k) / 2,
 * phi_1 = mean_k (x1 - b1k)(x0 + b0k) / 2 (all coalitions); occlusion:
 * x0 x1 - mean_k b0k x1 and x0 x1 - mean_k x0 b1k */
static void check_interaction(void)
{
    int F = 3;
    use_columns(F);
    Model m = {.product = 1};
    Run out;
    EeCoalitionOptions ks = {.kind = EE_COAL_KERNELSHAP, .samples = 6}, occ = {.kind = EE_COAL_OCCLUSION};
    CheckCmp c = CMP_INIT, co = CMP_INIT;
    CHECK_OK(run(&m, F, NULL, BG, 3, &ks, 1, 0, &out));
    Run oo;
    CHECK_OK(run(&m, F, NULL, BG, 3, &occ, 1, 0, &oo));
    for (int i = 0; i < N_ROWS; i++) {
        const double *x = X_row[i];
        double p0 = 0, p1 = 0, o0 = 0, o1 = 0;
        for (int k = 0; k < 3; k++) {
            const double *b = BG + k * F;
            p0 += (x[0] - b[0]) * (x[1] + b[1]) / 6;
            p1 += (x[1] - b[1]) * (x[0] + b[0]) / 6;
            o0 += (x[0] * x[1] - b[0] * x[1]) / 3;
            o1 += (x[0] * x[1] - x[0] * b[1]) / 3;
        }
        cmp_add(&c, out.A[i * F], p0);
        cmp_add(&c, out.A[i * F + 1], p1);
        cmp_add(&c, out.A[i * F + 2], 0);
        cmp_add(&co, oo.A[i * F], o0);
        cmp_add(&co, oo.A[i * F + 1], o1);
        cmp_add(&co, oo.A[i * F + 2], 0);
    }
    CHECK(c.scale > 1e-2, "interaction: values ~0");
    CHECK_CMP(c, 1e-13, "interaction model: KernelSHAP (all coalitions) against the closed form");
    CHECK_CMP(co, 1e-13, "interaction model: occlusion against the closed form");
    free(m.out);
}

/* RANDOM.md's KernelSHAP draw, re-derived: stream (seed, row, 0x4B53 << 32 + m),
 * a size from 1 / (s (P - s)) by one uniform, the first s of a permutation */
static void ref_draw(uint64_t seed, long row, long mm, int P, uint8_t *z)
{
    EeRng r;
    ee_rng_stream(&r, seed, (uint64_t)row, ((uint64_t)0x4B53 << 32) + (uint64_t)mm);
    double tot = 0, u, cum = 0;
    for (int s = 1; s < P; s++) tot += 1.0 / (s * (double)(P - s));
    u = ee_rng_uniform(&r) * tot;
    int size = P - 1, perm[PMAX];
    for (int s = 1; s < P; s++)
        if (u < (cum += 1.0 / (s * (double)(P - s)))) { size = s; break; }
    ee_rng_permutation(&r, P, perm);
    memset(z, 0, P);
    for (int t = 0; t < size; t++) z[perm[t]] = 1;
}

static void check_draws(void)
{
    int P = 9;
    long n = 40;
    uint8_t Z[40 * PMAX], z[PMAX];
    double w[40];
    int same = 1, paired_ok = 1, lime_same = 1;
    EeCoalitionOptions ks = {.kind = EE_COAL_KERNELSHAP, .samples = (int)n};
    CHECK_OK(ee_coalition_draw(&ks, 5, 3, P, Z, w));
    for (long j = 0; j < n; j++) {
        ref_draw(5, 3, j, P, z);
        same &= !memcmp(z, Z + j * P, P) && w[j] == 1;
    }
    CHECK(same, "KernelSHAP's draw is not RANDOM.md's");
    ks.paired = 1;
    CHECK_OK(ee_coalition_draw(&ks, 5, 3, P, Z, w));
    for (long j = 0; j < n; j++) {
        ref_draw(5, 3, j / 2, P, z);
        for (int p = 0; p < P; p++) paired_ok &= Z[j * P + p] == (j % 2 ? !z[p] : z[p]);
    }
    CHECK(paired_ok, "paired draws are not (draw m, its complement)");
    EeCoalitionOptions li = {.kind = EE_COAL_LIME, .samples = (int)n, .width = 0.5};
    CHECK_OK(ee_coalition_draw(&li, 5, 3, P, Z, w));
    for (long j = 0; j < n; j++) {
        EeRng r;
        ee_rng_stream(&r, 5, 3, ((uint64_t)0x4C4D << 32) + (uint64_t)j);
        for (int p = 0; p < P; p++) z[p] = ee_rng_next(&r) >> 63;
        lime_same &= !memcmp(z, Z + j * P, P) && fabs(w[j] - ref_lime_kernel(z, P, 0.5)) <= 1e-15;
    }
    CHECK(lime_same, "LIME's draw or kernel is not MODELS.md's");
    /* the size distribution: 20000 draws against binom(P,s) pi(s) */
    long cnt[PMAX] = {0}, total = 20000;
    for (long j = 0; j < total; j++) {
        ref_draw(9, 0, j, P, z);
        int s = 0;
        for (int p = 0; p < P; p++) s += z[p];
        cnt[s]++;
    }
    double norm = 0, worst = 0;
    for (int s = 1; s < P; s++) norm += binom(P, s) * shapley_kernel(P, s);
    for (int s = 0; s <= P; s++) {
        double pr = binom(P, s) * shapley_kernel(P, s) / norm;
        worst = fmax(worst, fabs(cnt[s] / (double)total - pr) / sqrt(pr * (1 - pr) / total + 1e-12));
    }
    CHECK(worst < 5, "coalition sizes off the kernel's distribution by %.1f standard errors", worst);
}

/* Error against the exact values falls with the samples (mean over rows
 * and seeds): KernelSHAP, plain and paired, on 10 players */
static void check_convergence(void)
{
    int F = 10;
    use_columns(F);
    Model m = {.F = F}; /* the reference runs before the library sets it */
    Ref r;
    ref_init(&r, &m, F, NULL, NULL, 1);
    double exact[N_ROWS][PMAX];
    int tg[N_ROWS];
    for (int i = 0; i < N_ROWS; i++) {
        tg[i] = argmax_row(&m, X_row[i]);
        ref_shapley(&r, X_row[i], tg[i], exact[i]);
    }
    static const int S[] = {40, 120, 360, 1000};
    for (int paired = 0; paired < 2; paired++) {
        double err[4];
        for (int k = 0; k < 4; k++) {
            double sq = 0;
            for (int seed = 1; seed <= 6; seed++) {
                EeCoalitionOptions co = {.kind = EE_COAL_KERNELSHAP, .samples = S[k], .paired = paired};
                Run out;
                CHECK_OK(run(&m, F, NULL, NULL, 1, &co, (uint64_t)seed, 0, &out));
                for (int i = 0; i < N_ROWS; i++)
                    for (int p = 0; p < F; p++) sq += pow(out.A[i * F + p] - exact[i][p], 2);
            }
            err[k] = sqrt(sq / (6.0 * N_ROWS * F));
        }
        printf("KernelSHAP%s rms error at %d/%d/%d/%d samples: %.3g %.3g %.3g %.3g\n", paired ? " (paired)" : "",
               S[0], S[1], S[2], S[3], err[0], err[1], err[2], err[3]);
        CHECK(err[0] > 1e-3 && err[1] < err[0] && err[2] < err[1] && err[3] < err[2] && err[3] < err[0] / 3,
              "KernelSHAP%s: the error does not fall with the samples (%g %g %g %g)", paired ? " paired" : "", err[0],
              err[1], err[2], err[3]);
    }
    free(m.out);
}

/* same bits for any batch; another seed other values; rows keyed by offset */
static void check_batch(void)
{
    int F = 6;
    use_columns(F);
    Model m = {0};
    static const int batches[] = {1, 7, 1000};
    for (int kind = 0; kind < 2; kind++) {
        EeCoalitionOptions co = {.kind = kind, .samples = 30};
        Run ref, out;
        CHECK_OK(run(&m, F, NULL, BG, 3, &co, 4, 0, &ref));
        for (int b = 0; b < 3; b++) {
            CHECK_OK(run(&m, F, NULL, BG, 3, &co, 4, batches[b], &out));
            CHECK(!memcmp(out.A, ref.A, sizeof(double) * N_ROWS * F), "%d: batch %d changes the bits", kind, batches[b]);
            CHECK(m.max_m <= batches[b], "batch %d: a call of %ld rows", batches[b], m.max_m);
        }
        CHECK_OK(run(&m, F, NULL, BG, 3, &co, 5, 0, &out));
        CHECK(memcmp(out.A, ref.A, sizeof(double) * N_ROWS * F), "%d: another seed, the same values", kind);
    }
    free(m.out);
}

static void check_errors(void)
{
    int F = 6;
    use_columns(F);
    Model m = {0};
    Run out;
    uint8_t Z[3 * 6] = {1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0};
    EeCoalitionOptions co = {.kind = EE_COAL_KERNELSHAP, .coalitions = Z, .n = 3};
    EeStatus st = run(&m, F, NULL, NULL, 1, &co, 1, 0, &out);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "do not determine"), "3 coalitions of 6 players: %s",
          ee_last_error());
    co.kind = EE_COAL_LIME;
    st = run(&m, F, NULL, NULL, 1, &co, 1, 0, &out);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "LIME"), "LIME, 3 coalitions: %s", ee_last_error());
    co.ridge = 1; /* a ridge makes it determined */
    CHECK(run(&m, F, NULL, NULL, 1, &co, 1, 0, &out) == EE_OK, "LIME with a ridge: %s", ee_last_error());
    EeCoalitionOptions bad[] = {{.kind = EE_COAL_KERNELSHAP, .samples = 0}, {.kind = EE_COAL_LIME, .ridge = -1, .samples = 5},
                                {.kind = EE_COAL_OCCLUSION, .coalitions = Z, .n = 3}, {.kind = EE_COAL_COUNT, .samples = 5}};
    for (int b = 0; b < 4; b++)
        CHECK(run(&m, F, NULL, NULL, 1, &bad[b], 1, 0, &out) == EE_ERR_INPUT, "bad options %d accepted", b);
    free(m.out);
}


/* The generic driver (ee_coalition_rows) with a value function computed
 * here gives what ee_coalition_fn gives on the function */
typedef struct {
    const Ref *r;
    int F;
} ValueCtx;

static EeStatus ref_values(void *ctx, long row, int P, long n, const uint8_t *Z, double *v, double *v0, double *v1)
{
    const ValueCtx *c = ctx;
    const double *x = X_row[row];
    int t = argmax_row(c->r->m, x);
    uint8_t none[PMAX] = {0};
    for (long j = 0; j < n; j++) v[j] = ref_value(c->r, x, Z + (size_t)j * P, t);
    *v0 = ref_value(c->r, x, none, t);
    *v1 = model_value(c->r->m, x, t);
    return EE_OK;
}

static void check_value_fn(void)
{
    int F = 6;
    use_columns(F);
    Model m = {.F = F};
    Ref r;
    ref_init(&r, &m, F, NULL, BG, 3);
    ValueCtx vc = {&r, F};
    EeCoalitionValueFn vf = {ref_values, &vc};
    EeCoalitionOptions methods[] = {{.kind = EE_COAL_KERNELSHAP, .samples = 25, .paired = 1},
                                    {.kind = EE_COAL_LIME, .samples = 40},
                                    {.kind = EE_COAL_OCCLUSION}};
    for (int k = 0; k < 3; k++) {
        Run out;
        double phi[N_ROWS * PMAX], delta[N_ROWS];
        CHECK_OK(run(&m, F, NULL, BG, 3, &methods[k], 6, 0, &out));
        CHECK_OK(ee_coalition_rows(&methods[k], &vf, N_ROWS, F, 6, 0, phi, delta));
        CheckCmp c = CMP_INIT, cd = CMP_INIT;
        for (int t = 0; t < N_ROWS * F; t++) cmp_add(&c, phi[t], out.players[t]);
        for (int i = 0; i < N_ROWS; i++) cmp_add(&cd, delta[i], out.delta[i]);
        CHECK(c.scale > 1e-2, "value function %d: values ~0", k);
        CHECK_CMP(c, 1e-12 * c.scale, "ee_coalition_rows (method %d) against ee_coalition_fn", k);
        CHECK_CMP(cd, 1e-12 * c.scale, "ee_coalition_rows (method %d): delta", k);
    }
    free(m.out);
}

int main(void)
{
    make_data();
    static const int32_t groups[6] = {3, 3, 1, 0, 7, 1};
    check_explicit(EE_COAL_KERNELSHAP, NULL, 0, 0, "KernelSHAP, explicit coalitions, kernel weights, zero baseline");
    check_explicit(EE_COAL_KERNELSHAP, groups, 3, 1, "KernelSHAP, explicit coalitions and weights, groups, background");
    check_explicit(EE_COAL_LIME, NULL, 3, 0, "LIME, explicit coalitions, background");
    check_explicit(EE_COAL_LIME, groups, 0, 0, "LIME, explicit coalitions, groups");
    check_all_coalitions();
    check_interaction();
    check_draws();
    check_convergence();
    check_batch();
    check_value_fn();
    check_errors();
    return check_finish("test_coalitions");
}
