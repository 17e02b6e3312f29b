/* test_perturb.c: the coalition methods on the built-in models
 * (ee_coalition_attribute: occlusion with windows and strides, feature
 * ablation, KernelSHAP, LIME) against an independent double-precision
 * computation from their definitions in doc/MODELS.md, with the reference
 * model of refmodel.h, on a transformer, a cnn and an mlp:
 * - given coalitions (and given weights) of every row: the values v(S)
 *   from the reference (absent real tokens replaced by the baseline under
 *   the row's own mask; an mlp's absent features 0), KernelSHAP's
 *   constrained weighted fit and LIME's ridge fit solved here through
 *   their KKT / normal equations by Gaussian elimination, occlusion's
 *   windows enumerated here; pad and given baseline ids;
 * - drawn coalitions: the same values as the generic entry
 *   ee_coalition_rows (P = the row's players, the row's stream) fed with
 *   the reference's values, so a row's draw is the one a handle gets;
 * - KernelSHAP with every coalition = ee_shapley_exact;
 * - the passes (f(x), v(empty), one per non-empty coalition), the same
 *   bits for any batch, a 1 % change of one reference weight is seen;
 * - the CPU shortcuts = full passes, to rounding: the cnn's incremental
 *   occlusion, the transformer's layer-0 cache; the cnn's occlusion where
 *   filters are tied at every position or at or below 0 everywhere, at 1
 *   and 2 threads; the cnn's KernelSHAP and LIME from per-position
 *   products (taken, counted), value by value against full passes and the
 *   reference, with ties, windows past a row's end, the empty and the full
 *   coalition;
 * - bad input: window and stride out of range, coalitions with
 *   occlusion, coalitions that do not determine the fit, unknown kind. */
#include "refmodel.h"
#include "attr/cnn_incremental.h" /* the cnn's coalition products, called directly */
#include "attr/cnn_table.h"       /* its subset tables: the widths that use them */
#include "attr/coalition.h"       /* the work from which rows are drawn and solved in parallel */

#ifdef _OPENMP
#include <omp.h>
#endif

static EeRng rng;

/* One row as the reference sees it: its players and what absent means. */
typedef struct {
    Ref *r;
    const int32_t *ids, *bids; /* ids of the row, baseline ids (NULL: PAD) */
    const float *x;            /* mlp */
    int target, n, pos[64];
    long evals;
} RefRow;

static void row_init(RefRow *q, Ref *r, const int32_t *ids, const int32_t *bids, const float *x, int target)
{
    memset(q, 0, sizeof *q);
    q->r = r; q->ids = ids; q->bids = bids; q->x = x; q->target = target;
    int token = r->c.kind != EE_KIND_MLP, W = token ? r->c.T : r->c.D;
    for (int t = 0; t < W; t++)
        if (!token || !EE_IS_SPECIAL(ids[t])) q->pos[q->n++] = t;
}

/* v(S): the target logit with the players outside S absent */
static double ref_value(RefRow *q, const uint8_t *z)
{
    const EeConfig *c = &q->r->c;
    double out[8];
    q->evals++;
    if (c->kind == EE_KIND_MLP) {
        double xs[64] = {0};
        for (int j = 0; j < q->n; j++) xs[q->pos[j]] = z[j] ? q->x[q->pos[j]] : 0.0;
        ref_net(q->r, xs, NULL, out);
        return out[q->target];
    }
    int T = c->T;
    int32_t row[64];
    uint8_t mask[64];
    for (int t = 0; t < T; t++) { row[t] = q->ids[t]; mask[t] = q->ids[t] != EE_PAD; }
    for (int j = 0; j < q->n; j++)
        if (!z[j]) row[q->pos[j]] = q->bids ? q->bids[q->pos[j]] : EE_PAD;
    ref_logits(q->r, row, mask, NULL, out);
    return out[q->target];
}

/* Gaussian elimination with partial pivoting: A (m x m, row-major) u = b */
static int gauss(int m, double *A, double *b)
{
    for (int k = 0; k < m; k++) {
        int p = k;
        for (int i = k + 1; i < m; i++)
            if (fabs(A[i * m + k]) > fabs(A[p * m + k])) p = i;
        if (fabs(A[p * m + k]) < 1e-13) return -1;
        for (int j = 0; j < m; j++) { double t = A[k * m + j]; A[k * m + j] = A[p * m + j]; A[p * m + j] = t; }
        double t = b[k]; b[k] = b[p]; b[p] = t;
        for (int i = k + 1; i < m; i++) {
            double f = A[i * m + k] / A[k * m + k];
            for (int j = k; j < m; j++) A[i * m + j] -= f * A[k * m + j];
            b[i] -= f * b[k];
        }
    }
    for (int k = m - 1; k >= 0; k--) {
        for (int j = k + 1; j < m; j++) b[k] -= A[k * m + j] * b[j];
        b[k] /= A[k * m + k];
    }
    return 0;
}

static double binom(int n, int k)
{
    double b = 1;
    for (int i = 1; i <= k; i++) b = b * (n - k + i) / i;
    return b;
}

/* KernelSHAP from its definition: min sum_j w_j (v_j - v0 - z_j phi)^2
 * subject to sum phi = v1 - v0, by the KKT system [2 Z'WZ 1; 1' 0]. The
 * weights: given, or the Shapley kernel (n - 1) / (C(n,s) s (n - s)). */
static int ref_kernelshap(RefRow *q, long K, const uint8_t *Z, const double *wgiven, double *phi)
{
    int n = q->n, m = n + 1;
    uint8_t all[64], none[64] = {0};
    memset(all, 1, sizeof all);
    double v0 = ref_value(q, none), v1 = ref_value(q, all);
    double *A = calloc((size_t)m * m, sizeof(double)), *b = calloc(m, sizeof(double));
    for (long k = 0; k < K; k++) {
        const uint8_t *z = Z + k * n;
        int s = 0;
        for (int j = 0; j < n; j++) s += z[j];
        double w = wgiven ? wgiven[k] : s > 0 && s < n ? (n - 1) / (binom(n, s) * s * (double)(n - s)) : 0;
        double y = ref_value(q, z) - v0;
        for (int a = 0; a < n; a++) {
            if (!z[a]) continue;
            b[a] += 2 * w * y;
            for (int c = 0; c < n; c++) A[a * m + c] += 2 * w * z[c];
        }
    }
    for (int a = 0; a < n; a++) A[a * m + n] = A[n * m + a] = 1;
    b[n] = v1 - v0;
    int bad = gauss(m, A, b);
    for (int j = 0; j < n; j++) phi[j] = b[j];
    free(A); free(b);
    return bad;
}

/* LIME from its definition: min sum_j w_j (v_j - b - z_j c)^2 + ridge |c|^2,
 * w_j = exp(-d^2 / (2 width^2)), d the cosine distance of z_j from ones. */
static int ref_lime(RefRow *q, long K, const uint8_t *Z, const double *wgiven, double width, double ridge,
                    double *phi)
{
    int n = q->n, m = n + 1;
    double *A = calloc((size_t)m * m, sizeof(double)), *b = calloc(m, sizeof(double)), x[65];
    for (long k = 0; k < K; k++) {
        const uint8_t *z = Z + k * n;
        double dot = 0, nz = 0;
        for (int j = 0; j < n; j++) { dot += z[j]; nz += z[j] * z[j]; }
        double d = nz > 0 ? 1 - dot / (sqrt(nz) * sqrt((double)n)) : 1;
        double w = wgiven ? wgiven[k] : exp(-d * d / (2 * width * width));
        double y = ref_value(q, z);
        x[0] = 1;
        for (int j = 0; j < n; j++) x[j + 1] = z[j];
        for (int a = 0; a < m; a++) {
            b[a] += w * x[a] * y;
            for (int c = 0; c < m; c++) A[a * m + c] += w * x[a] * x[c];
        }
    }
    for (int a = 1; a < m; a++) A[a * m + a] += ridge;
    int bad = gauss(m, A, b);
    for (int j = 0; j < n; j++) phi[j] = b[j + 1];
    free(A); free(b);
    return bad;
}

/* Occlusion from its definition: windows [s k, s k + w) cut at n, from k = 0
 * while the previous window did not reach the end and the window starts
 * inside the row; a player's value the
 * mean of v(all) - v(all but the window) over the windows covering it. */
static void ref_occlusion(RefRow *q, int w, int s, double *phi)
{
    int n = q->n, cover[64] = {0};
    uint8_t z[64];
    memset(z, 1, sizeof z);
    double v1 = ref_value(q, z);
    for (int j = 0; j < n; j++) phi[j] = 0;
    for (int start = 0; n > 0 && start < n; start += s) {
        int end = start + w < n ? start + w : n;
        memset(z, 1, sizeof z);
        for (int j = start; j < end; j++) z[j] = 0;
        double d = v1 - ref_value(q, z);
        for (int j = start; j < end; j++) { phi[j] += d; cover[j]++; }
        if (start + w >= n) break;
    }
    for (int j = 0; j < n; j++) phi[j] = cover[j] ? phi[j] / cover[j] : 0;
}

/* ---- the fixture ---------------------------------------------------------------------- */
typedef struct {
    EeModel *m;
    Ref ref;
    int N, T, W, token;
    int32_t *ids, *bids;
    float *x;
    EeInput in;
} Fix;

/* The fixture's model of kind `kind`; wide: a cnn with every width 1 ..
 * 6 and 21 filters (a vector of 16 and a tail), the table's widths and a
 * wider one (cnn_table.h). */
static void fix_init_wide(Fix *f, EeKind kind, int wide)
{
    static const int lens[5] = {9, 3, 10, 1, 6};
    memset(f, 0, sizeof *f);
    EeConfig c;
    refm_config(&c, kind, 12, 9, 8, 6);
    if (wide) {
        c.filters = 21;
        c.nwidths = 6;
        for (int k = 0; k < 6; k++) c.widths[k] = k + 1;
    }
    f->m = refm_model(&c, 7, 0.6, &rng);
    REQUIRE(f->m != NULL, "model");
    ref_load(&f->ref, f->m);
    f->N = 5; f->T = 12;
    f->token = kind != EE_KIND_MLP;
    f->W = f->token ? f->T : c.D;
    if (f->token) {
        f->ids = refm_ids(f->N, f->T, lens, &rng);
        f->bids = malloc(sizeof(int32_t) * f->N * f->T);
        for (int k = 0; k < f->N * f->T; k++) f->bids[k] = 4 + (int)ee_rng_below(&rng, 26);
    } else {
        f->x = malloc(sizeof(float) * f->N * f->W);
        for (int k = 0; k < f->N * f->W; k++) f->x[k] = (float)ee_rng_normal(&rng);
    }
    f->in = (EeInput){.n = f->N, .ids = f->ids, .x = f->x};
}

static void fix_init(Fix *f, EeKind kind)
{
    fix_init_wide(f, kind, 0);
}

static void fix_free(Fix *f)
{
    ref_free(&f->ref);
    ee_model_free(f->m);
    free(f->ids); free(f->bids); free(f->x);
}

static void options(const Fix *f, EeAttrOptions *o, int given_baseline)
{
    gc_cpu_options(o);
    o->batch = 7; /* copies of several rows share a pass */
    o->baseline = f->token ? EE_BASELINE_PAD : EE_BASELINE_ZERO;
    if (f->token && given_baseline) { o->baseline = EE_BASELINE_IDS; o->baseline_ids = f->bids; }
}

static void row_of(Fix *f, const EeAttrOptions *o, int i, int target, RefRow *q)
{
    row_init(q, &f->ref, f->token ? f->ids + i * f->T : NULL,
             f->token && o->baseline == EE_BASELINE_IDS ? f->bids + i * f->T : NULL,
             f->token ? NULL : f->x + i * f->W, target);
}

/* the reference's argmax at x (the default target) */
static int ref_target(Fix *f, int i)
{
    double out[8];
    if (f->token) {
        uint8_t mask[64];
        for (int t = 0; t < f->T; t++) mask[t] = f->ids[i * f->T + t] != EE_PAD;
        ref_logits(&f->ref, f->ids + i * f->T, mask, NULL, out);
    } else {
        double x[64];
        for (int t = 0; t < f->W; t++) x[t] = f->x[i * f->W + t];
        ref_logits(&f->ref, NULL, NULL, x, out);
    }
    int best = 0;
    for (int c = 1; c < f->ref.c.classes; c++)
        if (out[c] > out[best]) best = c;
    return best;
}

typedef struct {
    float *A;
    int32_t tg[8];
    float fx[8], fb[8], delta[8];
    EeAttrInfo info;
} Got;

static EeStatus run(Fix *f, const EeAttrOptions *o, const EeCoalitionModelOptions *c, Got *g)
{
    g->A = realloc(g->A, sizeof(float) * f->N * f->W);
    g->info = (EeAttrInfo){g->tg, g->fx, g->fb, g->delta, 0, 0, 0, NULL, 0};
    return ee_coalition_attribute(f->m, &f->in, o, c, g->A, &g->info);
}

/* Given coalitions of every row (3 n + 3 each, drawn here, every player
 * both in and out somewhere), and weights for `weighted`. */
typedef struct {
    uint8_t *Z[8];
    double *w[8];
    long count[8];
} Given;

static void given_make(Fix *f, Given *gv, int weighted)
{
    memset(gv, 0, sizeof *gv);
    for (int i = 0; i < f->N; i++) {
        int n = ee_coalition_players(f->m, &f->in, i);
        long K = 3 * n + 3;
        gv->count[i] = K;
        gv->Z[i] = malloc(K * (n ? n : 1));
        gv->w[i] = malloc(sizeof(double) * K);
        for (long k = 0; k < K; k++) {
            for (int j = 0; j < n; j++) gv->Z[i][k * n + j] = (uint8_t)(ee_rng_next(&rng) >> 63);
            if (k < n) { gv->Z[i][k * n + k] = 1; } /* each player present once */
            if (k >= n && k < 2 * n) { gv->Z[i][k * n + k - n] = 0; }
            gv->w[i][k] = weighted ? 0.2 + ee_rng_uniform(&rng) : 0;
        }
    }
}

static void given_free(Given *gv)
{
    for (int i = 0; i < 8; i++) { free(gv->Z[i]); free(gv->w[i]); }
}

/* The reference of row i for the method of c (given coalitions from gv). */
static int ref_method(Fix *f, const EeAttrOptions *o, const EeCoalitionModelOptions *c, const Given *gv, int i,
                      int target, double *phi)
{
    RefRow q;
    row_of(f, o, i, target, &q);
    if (q.n == 0) return 0;
    const double *w = c->weights ? gv->w[i] : NULL;
    switch (c->m.kind) {
    case EE_COAL_KERNELSHAP: return ref_kernelshap(&q, gv->count[i], gv->Z[i], w, phi);
    case EE_COAL_LIME:
        return ref_lime(&q, gv->count[i], gv->Z[i], w, c->m.width > 0 ? c->m.width : 1, c->m.ridge, phi);
    default: ref_occlusion(&q, c->window ? c->window : 1, c->stride ? c->stride : 1, phi); return 0;
    }
}

/* compares g with the reference; *tmis counts rows with another target */
static void compare(Fix *f, const EeAttrOptions *o, const EeCoalitionModelOptions *c, const Given *gv, Got *g,
                    CheckCmp *cmp, int *tmis)
{
    for (int i = 0; i < f->N; i++) {
        if (g->tg[i] != ref_target(f, i)) (*tmis)++;
        double phi[64];
        RefRow q;
        row_of(f, o, i, g->tg[i], &q);
        REQUIRE(ref_method(f, o, c, gv, i, g->tg[i], phi) == 0, "the reference's system of row %d is regular", i + 1);
        for (int j = 0; j < q.n; j++) cmp_add(cmp, g->A[i * f->W + q.pos[j]], phi[j]);
        uint8_t none[64] = {0}, all[64];
        memset(all, 1, sizeof all);
        if (q.n) {
            cmp_add(cmp, g->fb[i], ref_value(&q, none));
            cmp_add(cmp, g->fx[i], ref_value(&q, all));
        }
    }
}

/* the passes the definition needs: per row f(x), v(empty), and each
 * non-empty coalition */
static long passes_needed(Fix *f, const EeCoalitionModelOptions *c, const Given *gv)
{
    long p = 0;
    for (int i = 0; i < f->N; i++) {
        int n = ee_coalition_players(f->m, &f->in, i);
        p += n ? 2 : 1;
        if (!n) continue;
        if (c->coalitions) {
            for (long k = 0; k < gv->count[i]; k++) {
                int any = 0;
                for (int j = 0; j < n; j++) any |= gv->Z[i][k * n + j];
                p += any;
            }
        } else if (c->m.kind == EE_COAL_OCCLUSION) {
            int w = c->window ? c->window : 1, s = c->stride ? c->stride : 1;
            /* n <= w: the one window takes every player: v(empty); a shift
             * that starts past the last player (stride > window) is no window */
            int K = (n - w + s - 1) / s;
            p += n <= w ? 0 : K + (K * s < n);
        }
    }
    return p;
}

static void check_given(EeKind kind)
{
    Fix f;
    fix_init(&f, kind);
    const char *kn = ee_kind_name(kind);
    Got g = {0};
    static const struct { EeCoalitionKind k; int window, stride, weighted, baseline; double width, ridge; } v[] = {
        {EE_COAL_KERNELSHAP, 0, 0, 0, 0, 0, 0},   {EE_COAL_KERNELSHAP, 0, 0, 1, 1, 0, 0},
        {EE_COAL_LIME, 0, 0, 0, 0, 0, 0},         {EE_COAL_LIME, 0, 0, 0, 1, 0.4, 0.3},
        {EE_COAL_LIME, 0, 0, 1, 0, 0, 0},         {EE_COAL_OCCLUSION, 1, 1, 0, 0, 0, 0},
        {EE_COAL_OCCLUSION, 3, 2, 0, 1, 0, 0},    {EE_COAL_OCCLUSION, 4, 1, 0, 0, 0, 0},
        {EE_COAL_OCCLUSION, 2, 3, 0, 0, 0, 0},
    };
    for (size_t vi = 0; vi < sizeof v / sizeof v[0]; vi++) {
        EeAttrOptions o;
        options(&f, &o, v[vi].baseline);
        Given gv;
        given_make(&f, &gv, v[vi].weighted);
        EeCoalitionModelOptions c = {.m = {.kind = v[vi].k, .width = v[vi].width, .ridge = v[vi].ridge},
                                     .window = v[vi].window, .stride = v[vi].stride};
        if (v[vi].k != EE_COAL_OCCLUSION) {
            c.coalitions = (const uint8_t *const *)gv.Z;
            c.count = gv.count;
            if (v[vi].weighted) c.weights = (const double *const *)gv.w;
        }
        long fast0 = ee_cnn_coalition_calls(), win0 = ee_tf_window_calls();
        EeStatus st = run(&f, &o, &c, &g);
        CHECK(st == EE_OK, "%s variant %zu runs: %s", kn, vi, ee_last_error());
        if (st) { given_free(&gv); continue; }
        /* the transformer's occlusion takes layer 0's attention from the row's (tf_incremental.c) */
        int win = kind == EE_KIND_TRANSFORMER && v[vi].k == EE_COAL_OCCLUSION;
        CHECK((ee_tf_window_calls() > win0) == win, "%s variant %zu: the windows' attention ran %ld times", kn, vi,
              ee_tf_window_calls() - win0);
        /* the cnn's coalitions (KernelSHAP, LIME and occlusion) take the
         * per-position products (cnn_coalitions.c), nothing else does */
        int fast = kind == EE_KIND_CNN;
        CHECK(ee_cnn_coalition_calls() - fast0 == fast, "%s variant %zu: the cnn's coalition products ran %ld times, "
              "expected %d", kn, vi, ee_cnn_coalition_calls() - fast0, fast);
        CheckCmp cmp = CMP_INIT;
        int tmis = 0;
        compare(&f, &o, &c, &gv, &g, &cmp, &tmis);
        CHECK(tmis == 0, "%s variant %zu: %d rows with another target than the reference", kn, vi, tmis);
        CHECK_CMP(cmp, cmp_bound(&cmp, 2e-5, 1e-1), "%s variant %zu (kind %d, window %d, stride %d) against the "
                  "double reference: max err %.3g (scale %.3g)", kn, vi, v[vi].k, v[vi].window, v[vi].stride, cmp.err,
                  cmp.scale);
        if (kind == EE_KIND_CNN || kind == EE_KIND_TRANSFORMER) {
            /* the CPU shortcuts (the default) against full passes: the cnn's
             * incremental occlusion windows and its coalition products,
             * the transformer's layer-0 cache: the same values up to float
             * rounding */
            float *A1 = malloc(sizeof(float) * f.N * f.W);
            memcpy(A1, g.A, sizeof(float) * f.N * f.W);
            long fwd = g.info.forward;
            o.full_passes = 1;
            CHECK_OK(run(&f, &o, &c, &g));
            o.full_passes = 0;
            CheckCmp inc = CMP_INIT;
            for (int k = 0; k < f.N * f.W; k++) cmp_add(&inc, A1[k], g.A[k]);
            CHECK_CMP(inc, cmp_bound(&inc, 1e-5, 1e-1), "%s variant %zu: the CPU shortcut = full passes (err %.3g)",
                      kn, vi, inc.err);
            CHECK(g.info.forward == fwd, "%s variant %zu: the CPU shortcut counts the passes it stands for (%ld, full "
                  "%ld)", kn, vi, fwd, g.info.forward);
            memcpy(g.A, A1, sizeof(float) * f.N * f.W);
            free(A1);
        }
        long need = passes_needed(&f, &c, &gv);
        CHECK(g.info.forward == need, "%s variant %zu: %ld passes, the definition needs %ld", kn, vi, g.info.forward,
              need);
        /* delta = sum A - (fx - fbaseline), as documented */
        CheckCmp dl = CMP_INIT;
        for (int i = 0; i < f.N; i++) {
            double s = 0;
            for (int t = 0; t < f.W; t++) s += g.A[i * f.W + t];
            cmp_add(&dl, g.delta[i], s - ((double)g.fx[i] - g.fb[i]));
            if (v[vi].k == EE_COAL_KERNELSHAP) cmp_add(&dl, g.delta[i], 0); /* efficiency */
        }
        CHECK_CMP(dl, 1e-4 * fmax(cmp.scale, 1), "%s variant %zu: delta (err %.3g)", kn, vi, dl.err);
        if (vi == 0 || vi == 2 || vi == 6) {
            /* the comparison fails when one weight of the reference is 1 % off:
             * a token model's embedding of row 0's first real token (a
             * classifier weight may belong to a class no row explains, and
             * the logit differences cancel a bias), an mlp's last layer */
            int wi = ee_model_find_param(f.m, NULL, 0, "E_tok");
            size_t at = (size_t)f.ref.c.vocab * 1 + (size_t)(f.token ? f.ids[1] : 0);
            if (kind == EE_KIND_MLP) {
                wi = ee_model_find_param(f.m, "fc", f.ref.c.nhidden, "W");
                at = wi >= 0 ? f.ref.count[wi] / 2 : 0;
            }
            REQUIRE(wi >= 0, "the weight exists");
            if (wi >= 0) {
                double keep = f.ref.p[wi][at];
                f.ref.p[wi][at] *= 1.01;
                CheckCmp off = CMP_INIT;
                int tm2 = 0;
                compare(&f, &o, &c, &gv, &g, &off, &tm2);
                CHECK(!cmp_ok(&off, cmp_bound(&off, 2e-5, 1e-1)) || tm2,
                      "%s variant %zu: a 1 %% change of one reference weight is seen (err %.3g)", kn, vi, off.err);
                f.ref.p[wi][at] = keep;
            }
        }
        if (vi == 1 || vi == 4 || vi == 6) { /* the same bits for any batch */
            float *A1 = malloc(sizeof(float) * f.N * f.W);
            memcpy(A1, g.A, sizeof(float) * f.N * f.W);
            for (int b = 1; b <= 64; b *= 8) {
                o.batch = b;
                CHECK_OK(run(&f, &o, &c, &g));
                CHECK(!memcmp(A1, g.A, sizeof(float) * f.N * f.W), "%s variant %zu: batch %d gives the same bits",
                      kn, vi, b);
            }
            free(A1);
        }
        given_free(&gv);
    }
    free(g.A);
    fix_free(&f);
}

/* ---- drawn coalitions: the generic entry, fed the reference's values --------------- */
typedef struct {
    RefRow *q;
} VCtx;

static EeStatus ref_values(void *ctx, long row, int P, long count, const uint8_t *Z, double *v, double *v0, double *v1)
{
    (void)row;
    RefRow *q = ((VCtx *)ctx)->q;
    uint8_t none[64] = {0}, all[64];
    memset(all, 1, sizeof all);
    for (long k = 0; k < count; k++) v[k] = ref_value(q, Z + k * P);
    *v0 = ref_value(q, none);
    *v1 = ref_value(q, all);
    return EE_OK;
}

static void check_drawn(EeKind kind)
{
    Fix f;
    fix_init(&f, kind);
    const char *kn = ee_kind_name(kind);
    Got g = {0};
    for (int variant = 0; variant < 3; variant++) {
        EeAttrOptions o;
        options(&f, &o, variant == 2);
        o.seed = 11 + variant;
        o.row_offset = 40; /* the streams of rows 40.. of a larger set */
        EeCoalitionModelOptions c = {.m = {.kind = variant == 1 ? EE_COAL_LIME : EE_COAL_KERNELSHAP,
                                           .samples = 60, .paired = variant == 2}};
        long fast0 = ee_cnn_coalition_calls();
        EeStatus st = run(&f, &o, &c, &g);
        CHECK(st == EE_OK, "%s drawn variant %d runs: %s", kn, variant, ee_last_error());
        if (st) continue;
        CHECK(ee_cnn_coalition_calls() - fast0 == (kind == EE_KIND_CNN), "%s drawn variant %d: the cnn's coalition "
              "products ran %ld times", kn, variant, ee_cnn_coalition_calls() - fast0);
        CheckCmp cmp = CMP_INIT;
        for (int i = 0; i < f.N; i++) {
            RefRow q;
            row_of(&f, &o, i, g.tg[i], &q);
            if (!q.n) continue;
            VCtx ctx = {&q};
            EeCoalitionValueFn vf = {ref_values, &ctx};
            double phi[64];
            EeStatus s2 = ee_coalition_rows(&c.m, &vf, 1, q.n, o.seed, o.row_offset + i, phi, NULL);
            REQUIRE(s2 == EE_OK, "the generic entry on the reference: %s", ee_last_error());
            for (int j = 0; j < q.n && !s2; j++) cmp_add(&cmp, g.A[i * f.W + q.pos[j]], phi[j]);
        }
        CHECK_CMP(cmp, cmp_bound(&cmp, 2e-5, 1e-1), "%s drawn %s (seed %d): the generic entry's draw on the "
                  "reference's values: max err %.3g (scale %.3g)", kn, variant == 1 ? "LIME" : "KernelSHAP",
                  (int)o.seed, cmp.err, cmp.scale);
        /* another seed draws other coalitions */
        float *A1 = malloc(sizeof(float) * f.N * f.W);
        memcpy(A1, g.A, sizeof(float) * f.N * f.W);
        o.seed += 100;
        CHECK_OK(run(&f, &o, &c, &g));
        CHECK(memcmp(A1, g.A, sizeof(float) * f.N * f.W) != 0, "%s drawn variant %d: another seed, other values", kn,
              variant);
        free(A1);
    }
    /* every coalition: KernelSHAP is the exact Shapley value */
    EeAttrOptions o;
    options(&f, &o, 0);
    EeCoalitionModelOptions c = {.m = {.kind = EE_COAL_KERNELSHAP, .samples = 1 << 20}};
    CHECK_OK(run(&f, &o, &c, &g));
    if (f.token) {
        float *E = malloc(sizeof(float) * f.N * f.W);
        int32_t tg[8];
        float fx[8], fb[8], dl[8];
        EeAttrInfo info = {tg, fx, fb, dl, 0, 0, 0, NULL, 0};
        CHECK_OK(ee_shapley_exact(f.m, &f.in, &o, E, &info));
        CheckCmp ex = CMP_INIT;
        for (int k = 0; k < f.N * f.W; k++) cmp_add(&ex, g.A[k], E[k]);
        CHECK_CMP(ex, cmp_bound(&ex, 2e-5, 1e-1), "%s KernelSHAP with every coalition = ee_shapley_exact: max err "
                  "%.3g (scale %.3g)", kn, ex.err, ex.scale);
        free(E);
    } else { /* the mlp: the exact Shapley value from the reference's 2^D coalitions */
        CheckCmp ex = CMP_INIT;
        for (int i = 0; i < f.N; i++) {
            RefRow q;
            row_of(&f, &o, i, g.tg[i], &q);
            int n = q.n;
            double *v = malloc(sizeof(double) * (1L << n)), phi[64] = {0};
            uint8_t z[64];
            for (long S = 0; S < (1L << n); S++) {
                for (int j = 0; j < n; j++) z[j] = S >> j & 1;
                v[S] = ref_value(&q, z);
            }
            for (int j = 0; j < n; j++)
                for (long S = 0; S < (1L << n); S++) {
                    if (S >> j & 1) continue;
                    int s = __builtin_popcountl((unsigned long)S);
                    phi[j] += (v[S | 1L << j] - v[S]) / (binom(n - 1, s) * n);
                }
            for (int j = 0; j < n; j++) cmp_add(&ex, g.A[i * f.W + j], phi[j]);
            free(v);
        }
        CHECK_CMP(ex, cmp_bound(&ex, 2e-5, 1e-1), "%s KernelSHAP with every coalition = the exact Shapley value "
                  "from all 2^D coalitions: max err %.3g (scale %.3g)", kn, ex.err, ex.scale);
    }
    free(g.A);
    fix_free(&f);
}

/* ---- the rows' draws and solves in parallel ----------------------------------------
 * ee_coalition_attribute draws and solves its rows in parallel only where
 * they are long: forced for every call here, at 2 threads, the same bits
 * as one by one, for each method and each model kind. */
static void check_parallel_rows(void)
{
    const EeKind kinds[3] = {EE_KIND_TRANSFORMER, EE_KIND_CNN, EE_KIND_MLP};
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(2);
#endif
    for (int ki = 0; ki < 3; ki++) {
        Fix f;
        fix_init(&f, kinds[ki]);
        Got g = {0};
        EeAttrOptions o;
        options(&f, &o, 0);
        static const EeCoalitionModelOptions cs[3] = {{.m = {.kind = EE_COAL_KERNELSHAP, .samples = 40}},
                                                      {.m = {.kind = EE_COAL_LIME, .samples = 40}},
                                                      {.m = {.kind = EE_COAL_OCCLUSION}, .window = 2, .stride = 1}};
        float *A1 = malloc(sizeof(float) * f.N * f.W);
        for (int ci = 0; ci < 3; ci++) {
            CHECK_OK(run(&f, &o, &cs[ci], &g));
            memcpy(A1, g.A, sizeof(float) * f.N * f.W);
            ee_coalition_set_parallel_work(0);
            CHECK_OK(run(&f, &o, &cs[ci], &g));
            ee_coalition_set_parallel_work(-1);
            CHECK(!memcmp(A1, g.A, sizeof(float) * f.N * f.W), "%s, method %d: the rows in parallel give the same "
                  "bits", ee_kind_name(kinds[ki]), cs[ci].m.kind);
        }
        free(A1);
        free(g.A);
        fix_free(&f);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
}

static void check_bad(void)
{
    Fix f;
    fix_init(&f, EE_KIND_TRANSFORMER);
    Got g = {0};
    EeAttrOptions o;
    options(&f, &o, 0);
    EeCoalitionModelOptions c = {.m = {.kind = EE_COAL_OCCLUSION}, .window = f.T + 1};
    CHECK(run(&f, &o, &c, &g) == EE_ERR_INPUT && strstr(ee_last_error(), "'window'"), "window > T: %s",
          ee_last_error());
    c.window = 2; c.stride = -1;
    CHECK(run(&f, &o, &c, &g) == EE_ERR_INPUT && strstr(ee_last_error(), "'stride'"), "stride < 0: %s",
          ee_last_error());
    Given gv;
    given_make(&f, &gv, 0);
    c = (EeCoalitionModelOptions){.m = {.kind = EE_COAL_OCCLUSION}, .coalitions = (const uint8_t *const *)gv.Z,
                                  .count = gv.count};
    CHECK(run(&f, &o, &c, &g) == EE_ERR_INPUT, "occlusion refuses given coalitions: %s", ee_last_error());
    /* one coalition per row determines no fit */
    long one[8];
    for (int i = 0; i < f.N; i++) one[i] = 1;
    c = (EeCoalitionModelOptions){.m = {.kind = EE_COAL_LIME}, .coalitions = (const uint8_t *const *)gv.Z,
                                  .count = one};
    CHECK(run(&f, &o, &c, &g) == EE_ERR_INPUT && strstr(ee_last_error(), "LIME"), "LIME, one coalition: %s",
          ee_last_error());
    c.m.kind = EE_COAL_KERNELSHAP;
    CHECK(run(&f, &o, &c, &g) == EE_ERR_INPUT && strstr(ee_last_error(), "KernelSHAP"), "KernelSHAP, one coalition: %s",
          ee_last_error());
    /* the rows solved in parallel: the first failing row's message all the same */
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(2);
#endif
    ee_coalition_set_parallel_work(0);
    c.m.kind = EE_COAL_LIME;
    CHECK(run(&f, &o, &c, &g) == EE_ERR_INPUT && strstr(ee_last_error(), "row 1: LIME"), "LIME, one coalition, rows in "
          "parallel: %s", ee_last_error());
    ee_coalition_set_parallel_work(-1);
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    c.m.kind = (EeCoalitionKind)7;
    CHECK(run(&f, &o, &c, &g) == EE_ERR_INPUT, "unknown kind: %s", ee_last_error());
    o.baseline = EE_BASELINE_ZERO;
    c = (EeCoalitionModelOptions){.m = {.kind = EE_COAL_OCCLUSION}};
    CHECK(run(&f, &o, &c, &g) == EE_ERR_INPUT, "the zero baseline of a token model: %s", ee_last_error());
    given_free(&gv);
    free(g.A);
    fix_free(&f);
}

/* ---- the cnn's incremental occlusion where its maxima are special ------------------
 * Filters whose pre-activation is the same at every position (zero
 * weights: the maximum is tied everywhere, positive), filters at or below 0
 * everywhere (they add nothing to the logit) and, from the other filters,
 * maxima inside, before and after each window: the incremental windows
 * against full passes and the reference, windows at the row's ends, one
 * window over every player, and at 1 and several threads. */
/* Filters 0 and 1 of every width tied at every position (zero weights;
 * above and below 0), filter 2 below 0 everywhere; the reference reloaded. */
static void tie_filters(Fix *f)
{
    for (int k = 0; k < f->ref.c.nwidths; k++) {
        int wi = ee_model_find_param(f->m, "conv", k, "W"), bi = ee_model_find_param(f->m, "conv", k, "b");
        REQUIRE(wi >= 0 && bi >= 0, "the convolution of width %d has weights and biases", k);
        EeParamInfo pw, pb;
        ee_model_param_info(f->m, wi, &pw);
        ee_model_param_info(f->m, bi, &pb);
        float *w = malloc(sizeof(float) * pw.count), *b = malloc(sizeof(float) * pb.count);
        CHECK_OK(ee_param_get(f->m, wi, w, pw.count));
        CHECK_OK(ee_param_get(f->m, bi, b, pb.count));
        size_t per = pw.count / (size_t)f->ref.c.filters; /* column-major (w, d, F): a filter's weights in a run */
        memset(w, 0, sizeof(float) * per * 2);            /* filters 0 and 1: the same at every position */
        b[0] = 0.3f;                                      /* tied everywhere, above 0 */
        b[1] = -0.2f;                                     /* tied everywhere, below 0 */
        b[2] = -40.0f;                                    /* below 0 everywhere */
        CHECK_OK(ee_param_set(f->m, wi, w, pw.count));
        CHECK_OK(ee_param_set(f->m, bi, b, pb.count));
        free(w); free(b);
    }
    ref_free(&f->ref);
    ref_load(&f->ref, f->m);
}

static void cnn_maxima_on(int wide)
{
    Fix f;
    fix_init_wide(&f, EE_KIND_CNN, wide);
    tie_filters(&f);
    const char *kn = wide ? "wide cnn" : "cnn";
    static const int ws[][2] = {{1, 1}, {2, 1}, {3, 2}, {5, 4}, {12, 1}};
    Got g = {0};
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(2);
#endif
    for (size_t vi = 0; vi < sizeof ws / sizeof ws[0]; vi++) {
        EeAttrOptions o;
        options(&f, &o, vi % 2);
        EeCoalitionModelOptions c = {.m = {.kind = EE_COAL_OCCLUSION}, .window = ws[vi][0], .stride = ws[vi][1]};
        EeStatus st = run(&f, &o, &c, &g);
        CHECK(st == EE_OK, "%s maxima, window %d: %s", kn, ws[vi][0], ee_last_error());
        if (st) continue;
        CheckCmp cmp = CMP_INIT;
        int tmis = 0;
        compare(&f, &o, &c, NULL, &g, &cmp, &tmis);
        CHECK(tmis == 0, "%s maxima, window %d: %d rows with another target", kn, ws[vi][0], tmis);
        CHECK_CMP(cmp, cmp_bound(&cmp, 2e-5, 1e-1), "%s maxima, window %d stride %d, against the double reference: "
                  "max err %.3g (scale %.3g)", kn, ws[vi][0], ws[vi][1], cmp.err, cmp.scale);
        float *A1 = malloc(sizeof(float) * f.N * f.W);
        memcpy(A1, g.A, sizeof(float) * f.N * f.W);
#ifdef _OPENMP
        omp_set_num_threads(1); /* the same bits on one thread */
        CHECK_OK(run(&f, &o, &c, &g));
        CHECK(!memcmp(A1, g.A, sizeof(float) * f.N * f.W), "%s maxima, window %d stride %d: 1 and 2 threads give "
              "the same bits", kn, ws[vi][0], ws[vi][1]);
        omp_set_num_threads(2);
#endif
        /* no subset tables, and the tables read wherever a row has them
         * (by default only where they pay): the same bits */
        for (int mode = 0; mode < 2; mode++) {
            long calls = ee_cnn_coalition_calls();
            ee_cnn_table_set(mode ? -1 : 0, mode);
            CHECK_OK(run(&f, &o, &c, &g));
            ee_cnn_table_set(-1, 0);
            CHECK(ee_cnn_coalition_calls() == calls + 1, "%s maxima: occlusion takes the coalition products", kn);
            CHECK(!memcmp(A1, g.A, sizeof(float) * f.N * f.W), "%s maxima, window %d stride %d: %s give the same "
                  "bits", kn, ws[vi][0], ws[vi][1], mode ? "the tables read always" : "no tables");
        }
        o.full_passes = 1;
        CHECK_OK(run(&f, &o, &c, &g));
        CheckCmp inc = CMP_INIT;
        for (int k = 0; k < f.N * f.W; k++) cmp_add(&inc, A1[k], g.A[k]);
        CHECK_CMP(inc, cmp_bound(&inc, 1e-5, 1e-1), "%s maxima, window %d stride %d: incremental = full passes (err "
                  "%.3g)", kn, ws[vi][0], ws[vi][1], inc.err);
        free(A1);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    free(g.A);
    fix_free(&f);
}

static void check_cnn_maxima(void)
{
    cnn_maxima_on(0);
    cnn_maxima_on(1);
}

/* A row's values (v(empty) ve, then v[k0..k1) of one-word coalitions)
 * against full passes' (vef, vf) into full and the reference row q's into
 * ref. */
static void cmp_row_values(RefRow *q, int n, long k0, long k1, const uint64_t *coal, const float *v, const float *vf,
                           float ve, float vef, CheckCmp *full, CheckCmp *ref)
{
    uint8_t z[64] = {0};
    cmp_add(full, ve, vef);
    if (n) cmp_add(ref, ve, ref_value(q, z));
    for (long k = k0; k < k1; k++) {
        cmp_add(full, v[k], vf[k]);
        for (int j = 0; j < n; j++) z[j] = coal[k] >> j & 1;
        cmp_add(ref, v[k], ref_value(q, z));
    }
}

/* ---- the cnn's KernelSHAP and LIME values from per-position products --------------
 * ee_cnn_coalition_values coalition by coalition against full passes
 * (ee_masked_values with full_passes) and the double reference: baseline
 * ids that differ per position, rows shorter than the widest window
 * (windows reaching past the row's length; row 3 has one token), the
 * coalition with every player absent and the one with every player
 * present, each player alone and each player absent alone, random ones
 * (more than one group of a row), filters tied at every position above and
 * below 0 and below 0 everywhere; the same bits at 1 and 2 threads, by
 * whole rows and with a row's groups shared out. On the wide model (every
 * width 1 .. 6, 21 filters) also: the subset tables (cnn_table.c) give the
 * difference rows' bits at every limit of the table's widths (0: none;
 * 6 exceeds EE_CNN_TABLE_WMAX, so width 6 always takes the rows), and
 * ee_cnn_coalition_bytes counts each thread's tables. */
static void cnn_coalitions_on(int wide)
{
    Fix f;
    fix_init_wide(&f, EE_KIND_CNN, wide);
    tie_filters(&f);
    const char *kn = wide ? "wide cnn" : "cnn";
    EeAttrOptions o;
    options(&f, &o, 1);
    int differ = 0; /* the given baseline ids differ along a row */
    for (int t = 1; t < f.T; t++) differ += f.bids[t] != f.bids[t - 1];
    REQUIRE(differ > 0, "row 0's baseline ids differ per position");
    long first[9] = {0};
    int n[8];
    for (int i = 0; i < f.N; i++) {
        n[i] = ee_coalition_players(f.m, &f.in, i);
        first[i + 1] = first[i] + (n[i] ? 2 * n[i] + 2 + 14 : 0);
    }
    long total = first[f.N];
    uint64_t *coal = calloc(total, sizeof(uint64_t));
    for (int i = 0; i < f.N; i++)
        for (long k = 0; k < first[i + 1] - first[i]; k++) {
            uint64_t *S = coal + first[i] + k, all = (1ULL << n[i]) - 1;
            if (k == 1) *S = all;                                          /* every player present (k = 0: none) */
            else if (k >= 2 && k < n[i] + 2) *S = 1ULL << (k - 2);         /* one player */
            else if (k >= n[i] + 2 && k < 2 * n[i] + 2) *S = all & ~(1ULL << (k - n[i] - 2)); /* all but one */
            else if (k >= 2) *S = ee_rng_next(&rng) & all;
        }
    EeDevice dev;
    const EeBackend *be;
    REQUIRE(ee_backend_resolve(o.device, o.precision, &dev, &be) == EE_OK, "the CPU backend");
    float *v1 = malloc(sizeof(float) * total), *v2 = malloc(sizeof(float) * total), *vf = malloc(sizeof(float) * total);
    int32_t tg1[8], tg2[8], tgf[8];
    float fx1[8], fx2[8], fxf[8], ve1[8], ve2[8], vef[8];
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(2);
#endif
    long calls = ee_cnn_coalition_calls();
    CHECK_OK(ee_cnn_coalition_values(f.m, be, &f.in, &o, "test", 0, first, coal, 1, tg1, fx1, v1, ve1));
    CHECK(ee_cnn_coalition_calls() == calls + 1, "%s: the calls are counted", kn);
    EeAttrOptions of = o;
    of.full_passes = 1;
    EeMaskedValues mv = {.words = 1, .first = first, .coal = coal, .value = vf, .vempty = vef, .fx = fxf,
                         .target = tgf};
    CHECK_OK(ee_masked_values(f.m, &f.in, &of, "test", &mv));
    CheckCmp full = CMP_INIT, ref = CMP_INIT;
    int tmis = 0, fxbits = 0;
    for (int i = 0; i < f.N; i++) {
        tmis += tg1[i] != tgf[i];
        fxbits += memcmp(&fx1[i], &fxf[i], sizeof(float)) != 0;
        RefRow q;
        row_of(&f, &o, i, tg1[i], &q);
        cmp_row_values(&q, n[i], first[i], first[i + 1], coal, v1, vf, ve1[i], vef[i], &full, &ref);
    }
    CHECK(tmis == 0 && fxbits == 0, "%s coalition products: targets (%d differ) and f(x) (%d differ) are a full "
          "pass's", kn, tmis, fxbits);
    CHECK_CMP(full, cmp_bound(&full, 1e-5, 1e-1), "%s coalition products = full passes, value by value (%ld "
              "values): max err %.3g (scale %.3g)", kn, total, full.err, full.scale);
    CHECK_CMP(ref, cmp_bound(&ref, 2e-5, 1e-1), "%s coalition products against the double reference: max err %.3g "
              "(scale %.3g)", kn, ref.err, ref.scale);
#ifdef _OPENMP
    omp_set_num_threads(1); /* one thread: the same bits */
    CHECK_OK(ee_cnn_coalition_values(f.m, be, &f.in, &o, "test", 0, first, coal, 1, tg2, fx2, v2, ve2));
    CHECK(!memcmp(v1, v2, sizeof(float) * total) && !memcmp(ve1, ve2, sizeof(float) * f.N),
          "%s coalition products: 1 and 2 threads give the same bits", kn);
    omp_set_num_threads(2);
#endif
    /* as occlusion's copies: the same bits, but NaN where no player is
     * absent (k = 1; a row's one player alone) */
    CHECK_OK(ee_cnn_coalition_values(f.m, be, &f.in, &o, "test", 1, first, coal, 1, tg2, fx2, v2, ve2));
    long odiff = 0;
    for (int i = 0; i < f.N; i++)
        for (long k = first[i]; k < first[i + 1]; k++)
            odiff += coal[k] == (1ULL << n[i]) - 1 ? !isnan(v2[k]) : memcmp(&v1[k], &v2[k], sizeof(float)) != 0;
    CHECK(odiff == 0, "%s coalition products as occlusion's copies: %ld values differ", kn, odiff);
    /* rows 0 and 1 alone (fewer rows than twice the threads: each row's
     * groups of coalitions shared out): the same bits */
    EeInput two = f.in;
    two.n = 2;
    CHECK(first[1] > 16, "row 0 has more than one group of coalitions (%ld)", first[1]);
    CHECK_OK(ee_cnn_coalition_values(f.m, be, &two, &o, "test", 0, first, coal, 1, tg2, fx2, v2, ve2));
    CHECK(!memcmp(v1, v2, sizeof(float) * first[2]) && !memcmp(ve1, ve2, sizeof(float) * 2),
          "%s coalition products: a row's groups shared out give the same bits", kn);
    /* the tables: each limit of their widths gives the same bits (at 1
     * thread too when the limit is odd), and each table is counted */
    int nth = 1;
#ifdef _OPENMP
    nth = omp_get_max_threads();
#endif
    double bytes0 = 0;
    for (int lim = 0; lim <= 6; lim++) {
        ee_cnn_table_set(lim, 1);
        double tab = 0;
        int tables = 0;
        for (int k = 0; k < f.ref.c.nwidths; k++) {
            size_t nt = ee_cnn_table_floats(f.ref.c.widths[k], f.T, f.ref.c.filters);
            tab += 4.0 * nt;
            tables += nt > 0;
        }
        int expect = 0;
        for (int k = 0; k < f.ref.c.nwidths; k++)
            expect += f.ref.c.widths[k] <= lim && f.ref.c.widths[k] <= EE_CNN_TABLE_WMAX;
        CHECK(tables == expect, "%s, table limit %d: %d widths with a table, expected %d", kn, lim, tables, expect);
        double bytes = ee_cnn_coalition_bytes(f.m);
        if (lim == 0) bytes0 = bytes;
        CHECK(bytes - bytes0 == nth * tab, "%s, table limit %d: the bytes count each thread's tables (%.0f more "
              "than without, expected %.0f)", kn, lim, bytes - bytes0, nth * tab);
#ifdef _OPENMP
        omp_set_num_threads(lim % 2 ? 1 : 2);
#endif
        memset(v2, 0, sizeof(float) * total);
        CHECK_OK(ee_cnn_coalition_values(f.m, be, &f.in, &o, "test", 0, first, coal, 1, tg2, fx2, v2, ve2));
        long diff = 0;
        for (long k = 0; k < total; k++) diff += memcmp(&v1[k], &v2[k], sizeof(float)) != 0;
        CHECK(diff == 0 && !memcmp(ve1, ve2, sizeof(float) * f.N), "%s, table limit %d (%d of %d widths with a "
              "table): the same bits as the default (%ld of %ld values differ)", kn, lim, tables, f.ref.c.nwidths,
              diff, total);
#ifdef _OPENMP
        omp_set_num_threads(2);
#endif
    }
    ee_cnn_table_set(-1, 0);
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    free(coal); free(v1); free(v2); free(vf);
    fix_free(&f);
}

static void check_cnn_coalitions(void)
{
    cnn_coalitions_on(0);
    cnn_coalitions_on(1);
}

/* ---- the transformer's occlusion with layer 0's attention from the row's ----------
 * ee_masked_values with windows (tf_incremental.c) against full passes and
 * the double reference, value by value: rows of 38, 17, 1 and 25 real
 * tokens (and a 3-token row of the 12-position fixture's kin), windows of
 * 1 and 3 players at stride 1 and 2, at both ends of a row, the empty
 * coalition (every position the baseline's: every query computed in full)
 * and the full one (nothing changed: the prefix alone), baseline PAD and
 * given ids that differ per position (some equal to the row's token: an
 * unchanged position inside a window); the path is taken (counted) and
 * not without windows or with full passes; the same bits at batch 1, 5
 * and 64 and at 1 and 2 threads. */
static void check_tf_windows(void)
{
    enum { N = 4, T = 40 };
    static const int lens[N] = {38, 17, 1, 25};
    EeConfig c;
    refm_config(&c, EE_KIND_TRANSFORMER, T, 0, 0, 0);
    c.d = 12; c.heads = 3;
    EeModel *m = refm_model(&c, 9, 0.6, &rng);
    REQUIRE(m != NULL, "model");
    Ref ref;
    ref_load(&ref, m);
    int32_t *ids = refm_ids(N, T, lens, &rng), bids[N * T];
    for (int k = 0; k < N * T; k++) bids[k] = k % 5 == 0 ? ids[k] : 4 + (int)ee_rng_below(&rng, 26);
    EeInput in = {.n = N, .ids = ids};
    /* per row: the empty and the full coalition, w = 1 s = 1, w = 3 s = 1, w = 3 s = 2 */
    long first[N + 1] = {0};
    int n[N];
    for (int i = 0; i < N; i++) {
        n[i] = ee_coalition_players(m, &in, i);
        first[i + 1] = first[i] + 2 + n[i] + 2 * (n[i] > 3 ? n[i] - 2 : 1) + (n[i] > 3 ? (n[i] - 2) / 2 : 0);
    }
    long total = first[N];
    uint64_t *coal = calloc(total, sizeof(uint64_t));
    int ends = 0;
    for (int i = 0; i < N; i++) {
        uint64_t all = (1ULL << n[i]) - 1, *S = coal + first[i];
        long k = 0;
        S[k++] = 0;
        S[k++] = all;
        for (int ww = 1; ww <= 3; ww += 2)
            for (int st = 1; st <= (ww == 3 ? 2 : 1); st++)
                for (int a = 0; a == 0 || a + ww <= n[i]; a += st) {
                    int b = a + ww < n[i] ? a + ww : n[i];
                    S[k++] = all & ~(((1ULL << b) - 1) & ~((1ULL << a) - 1));
                    ends += a == 0 || b == n[i];
                    if (b == n[i]) break;
                }
        REQUIRE(k <= first[i + 1] - first[i], "row %d: %ld coalitions fit", i + 1, k);
        for (; k < first[i + 1] - first[i]; k++) S[k] = all & ~1ULL; /* fill: the first player out */
    }
    CHECK(ends > 6, "windows at both ends of the rows (%d)", ends);
    float *v1 = malloc(sizeof(float) * total), *v2 = malloc(sizeof(float) * total), *vf = malloc(sizeof(float) * total);
    int32_t tg1[N], tg2[N], tgf[N];
    float fx1[N], fx2[N], fxf[N], ve1[N], ve2[N], vef[N];
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(2);
#endif
    for (int given = 0; given <= 1; given++) {
        EeAttrOptions o;
        gc_cpu_options(&o);
        o.batch = 5;
        o.baseline = given ? EE_BASELINE_IDS : EE_BASELINE_PAD;
        o.baseline_ids = given ? bids : NULL;
        long calls = ee_tf_window_calls();
        EeMaskedValues mv = {.words = 1, .first = first, .coal = coal, .value = v1, .vempty = ve1, .fx = fx1,
                             .target = tg1, .windows = 1};
        CHECK_OK(ee_masked_values(m, &in, &o, "test", &mv));
        CHECK(ee_tf_window_calls() > calls, "baseline %d: the windows' attention ran (%ld calls)", given,
              ee_tf_window_calls() - calls);
        EeAttrOptions of = o;
        of.full_passes = 1;
        calls = ee_tf_window_calls();
        EeMaskedValues mf = {.words = 1, .first = first, .coal = coal, .value = vf, .vempty = vef, .fx = fxf,
                             .target = tgf, .windows = 1};
        CHECK_OK(ee_masked_values(m, &in, &of, "test", &mf));
        mf.windows = 0;
        of.full_passes = 0;
        CHECK_OK(ee_masked_values(m, &in, &of, "test", &mf)); /* the layer-0 cache alone */
        CHECK(ee_tf_window_calls() == calls, "baseline %d: not with full passes or without windows", given);
        of.full_passes = 1;
        CHECK_OK(ee_masked_values(m, &in, &of, "test", &mf));
        CheckCmp full = CMP_INIT, refc = CMP_INIT;
        int tmis = 0, fxbits = 0;
        for (int i = 0; i < N; i++) {
            tmis += tg1[i] != tgf[i];
            fxbits += memcmp(&fx1[i], &fxf[i], sizeof(float)) != 0;
            RefRow q;
            row_init(&q, &ref, ids + i * T, given ? bids + i * T : NULL, NULL, tg1[i]);
            cmp_row_values(&q, n[i], first[i], first[i + 1], coal, v1, vf, ve1[i], vef[i], &full, &refc);
        }
        CHECK(tmis == 0 && fxbits == 0, "baseline %d: targets (%d differ) and f(x) (%d differ) are a full pass's",
              given, tmis, fxbits);
        CHECK_CMP(full, cmp_bound(&full, 1e-5, 1e-1), "baseline %d: the windows' attention = full passes, value by "
                  "value (%ld values): max err %.3g (scale %.3g)", given, total, full.err, full.scale);
        CHECK_CMP(refc, cmp_bound(&refc, 2e-5, 1e-1), "baseline %d: the windows' attention against the double "
                  "reference: max err %.3g (scale %.3g)", given, refc.err, refc.scale);
        static const int batches[3] = {1, 5, 64};
        for (int b = 0; b < 3; b++) { /* the same bits for any batch */
            o.batch = batches[b];
            EeMaskedValues m2 = {.words = 1, .first = first, .coal = coal, .value = v2, .vempty = ve2, .fx = fx2,
                                 .target = tg2, .windows = 1};
            CHECK_OK(ee_masked_values(m, &in, &o, "test", &m2));
            CHECK(!memcmp(v1, v2, sizeof(float) * total) && !memcmp(ve1, ve2, sizeof(float) * N),
                  "baseline %d: batch %d gives the same bits", given, o.batch);
        }
#ifdef _OPENMP
        omp_set_num_threads(1); /* one thread: the same bits */
        o.batch = 5;
        EeMaskedValues m1 = {.words = 1, .first = first, .coal = coal, .value = v2, .vempty = ve2, .fx = fx2,
                             .target = tg2, .windows = 1};
        CHECK_OK(ee_masked_values(m, &in, &o, "test", &m1));
        CHECK(!memcmp(v1, v2, sizeof(float) * total) && !memcmp(ve1, ve2, sizeof(float) * N),
              "baseline %d: 1 and 2 threads give the same bits", given);
        omp_set_num_threads(2);
#endif
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    free(coal); free(v1); free(v2); free(vf); free(ids);
    ref_free(&ref);
    ee_model_free(m);
}

int main(void)
{
    ee_threads_enter();
    ee_rng_seed(&rng, 2026);
    const EeKind kinds[3] = {EE_KIND_TRANSFORMER, EE_KIND_CNN, EE_KIND_MLP};
    for (int k = 0; k < 3; k++) {
        check_given(kinds[k]);
        check_drawn(kinds[k]);
    }
    check_cnn_maxima();
    check_cnn_coalitions();
    check_parallel_rows();
    check_tf_windows();
    check_bad();
    ee_threads_leave();
    return check_finish("test_perturb");
}
