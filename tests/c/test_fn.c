/* test_fn.c: attributions of a model given as a callback. Shapley values
 * (ee_sv_fn) against a double-precision reference written from the
 * definitions:
 * exact values as the mean marginal over all P! orders, each coalition's
 * value evaluated directly (the mean of f over the background rows with
 * the absent players' columns replaced); sampled values from the
 * permutations of doc/RANDOM.md's stream; the closed form of a linear
 * model; batch and row-split independence; the callback's errors, NaN,
 * wrong sizes and interrupts. Integrated Gradients (ee_ig_fn) with the
 * model's own gradient and with central differences, against the
 * quadrature of the analytic gradient and a linear model's closed form;
 * expected gradients (ee_eg_fn) likewise, over the background's rows. */
#include "check.h"
#include "ee.h"

#include <string.h>
#include <time.h>

/* ---- the model: C = 2 scores with interactions ---------------------------- */
#define C_OUT 2
typedef struct {
    int F, C;
    const double *w;     /* linear: F x C (column c at w + c F); NULL = the nonlinear model */
    double bias;
    double *out;         /* column-major scores of the last call */
    long calls, rows, max_m;
    /* misbehaviour to test */
    long fail_at, nan_at, wrongc_at;
    int sleep_ms;        /* per call: makes every interrupt poll live (polled at most every 20 ms) */
    /* the columns hook (EeScoreFn.columns): the array handed out, its size */
    double *colbuf;
    int col_m, col_f;
    long col_calls, null_rows;
} Model;

/* EeScoreFn.columns, as a front end with column-major arrays offers it */
static double *columns(void *ctx, int M, int F)
{
    Model *m = ctx;
    free(m->colbuf);
    m->colbuf = malloc(sizeof(double) * (size_t)M * F);
    /* poison: a row the sampler forgot to write is NaN, not an old value */
    for (size_t t = 0; m->colbuf && t < (size_t)M * F; t++) m->colbuf[t] = NAN;
    m->col_m = M;
    m->col_f = F;
    m->col_calls++;
    return m->colbuf;
}
/* set by main: the samplers get the columns hook (the gateways' path) */
static int use_columns;

static double nonlinear(const double *x, int F, int c)
{
    double s = 0.3 * c - 0.1;
    for (int f = 0; f < F; f++) s += (0.5 + 0.25 * f) * (c ? -1 : 1) * x[f];
    s += (c ? 1.5 : -0.7) * x[0] * x[1];
    if (F > 3) s += tanh(x[2] + (c ? 2 : 1) * x[3]);
    if (F > 4) s += (c + 1) * x[0] * x[2] * x[4];
    return s;
}

/* d nonlinear(x, F, c) / dx into g (F values) */
static void nonlinear_grad(const double *x, int F, int c, double *g)
{
    for (int f = 0; f < F; f++) g[f] = (0.5 + 0.25 * f) * (c ? -1 : 1);
    double k = c ? 1.5 : -0.7;
    g[0] += k * x[1];
    g[1] += k * x[0];
    if (F > 3) {
        double t = tanh(x[2] + (c ? 2 : 1) * x[3]), d = 1 - t * t;
        g[2] += d;
        g[3] += (c ? 2 : 1) * d;
    }
    if (F > 4) {
        g[0] += (c + 1) * x[2] * x[4];
        g[2] += (c + 1) * x[0] * x[4];
        g[4] += (c + 1) * x[0] * x[2];
    }
}

static double model_value(const Model *m, const double *x, int c)
{
    if (!m->w) return nonlinear(x, m->F, c);
    double s = m->bias;
    for (int f = 0; f < m->F; f++) s += m->w[f + (size_t)c * m->F] * x[f];
    return s;
}

static EeStatus eval(void *ctx, const double *rows, int M, int F, long call, const double **scores, int *C)
{
    Model *m = ctx;
    m->calls++;
    m->rows += M;
    if (M > m->max_m) m->max_m = M;
    if (call != m->calls) return ee_fail(EE_ERR_IO, "call numbered %ld, expected %ld", call, m->calls);
    if (m->sleep_ms) nanosleep(&(struct timespec){0, m->sleep_ms * 1000000L}, NULL);
    if (m->fail_at == call) return ee_fail(EE_ERR_IO, "the model failed on purpose");
    if (!rows && !(m->colbuf && m->col_m == M && m->col_f == F))
        return ee_fail(EE_ERR_IO, "call %ld: rows NULL without a %d x %d columns array", call, M, F);
    m->null_rows += !rows;
    free(m->out);
    m->out = malloc(sizeof(double) * (size_t)M * m->C);
    double x[64];
    for (int j = 0; j < M; j++) {
        for (int f = 0; f < F; f++) x[f] = rows ? rows[(size_t)j * F + f] : m->colbuf[j + (size_t)f * M];
        for (int c = 0; c < m->C; c++) m->out[j + (size_t)c * M] = model_value(m, x, c);
    }
    if (m->nan_at == call) m->out[M - 1] = NAN;
    *scores = m->out;
    *C = m->wrongc_at == call ? 1 : m->C;
    return EE_OK;
}

static double *grad_out;
static EeStatus eval_grad(void *ctx, const double *rows, int M, int F, long call, const double **scores,
                          const double **grads, int *C)
{
    Model *m = ctx;
    EeStatus st = eval(ctx, rows, M, F, call, scores, C);
    if (st) return st;
    free(grad_out);
    grad_out = malloc(sizeof(double) * (size_t)M * F * m->C);
    double g[64];
    for (int j = 0; j < M; j++)
        for (int c = 0; c < m->C; c++) {
            if (m->w) for (int f = 0; f < F; f++) g[f] = m->w[f + (size_t)c * F];
            else nonlinear_grad(rows + (size_t)j * F, F, c, g);
            for (int f = 0; f < F; f++) grad_out[j + (size_t)f * M + (size_t)c * M * F] = g[f];
        }
    if (m->nan_at == -call) grad_out[M * F - 1] = NAN;
    *grads = grad_out;
    return EE_OK;
}

/* ---- the reference ------------------------------------------------------------ */
typedef struct {
    const Model *m;
    int F, P, K;
    const int *player;   /* column -> player or -1 */
    const double *bg;    /* K x F */
} Ref;

/* v(S) of row x, S given as a 0/1 vector over the players. */
static double ref_value(const Ref *r, const double *x, const int *in, int target)
{
    double sum = 0, z[64];
    for (int k = 0; k < r->K; k++) {
        for (int f = 0; f < r->F; f++) {
            int p = r->player[f];
            z[f] = p < 0 || in[p] ? x[f] : r->bg[(size_t)k * r->F + f];
        }
        sum += model_value(r->m, z, target);
    }
    return sum / r->K;
}

/* Adds to phi each player's marginal along the order perm (P players). */
static void add_marginals(const Ref *r, const double *x, int target, const int *perm, double *phi)
{
    int in[16] = {0};
    double prev = ref_value(r, x, in, target);
    for (int j = 0; j < r->P; j++) {
        in[perm[j]] = 1;
        double v = ref_value(r, x, in, target);
        phi[perm[j]] += v - prev;
        prev = v;
    }
}

/* Mean marginal over all P! orders (Heap's algorithm). */
static void ref_exact(const Ref *r, const double *x, int target, double *phi)
{
    int P = r->P, perm[16], cnt[16] = {0};
    double nperm = 0;
    for (int p = 0; p < P; p++) { perm[p] = p; phi[p] = 0; }
    for (;;) {
        add_marginals(r, x, target, perm, phi);
        nperm++;
        int i = 1;
        while (i < P && cnt[i] >= i) cnt[i++] = 0;
        if (i >= P) break;
        int j = i % 2 ? cnt[i] : 0, t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        cnt[i]++;
    }
    for (int p = 0; p < P; p++) phi[p] /= nperm;
}

/* The s permutations of row `row` (RANDOM.md: Fisher-Yates on the stream
 * (seed, row, k)), each marginal evaluated directly. */
static void ref_sampled(const Ref *r, const double *x, int target, uint64_t seed, long row, int s, double *phi)
{
    int P = r->P, perm[16];
    for (int p = 0; p < P; p++) phi[p] = 0;
    for (int k = 0; k < s; k++) {
        EeRng rng;
        ee_rng_stream(&rng, seed, (uint64_t)row, (uint64_t)k);
        ee_rng_permutation(&rng, P, perm);
        add_marginals(r, x, target, perm, phi);
    }
    for (int p = 0; p < P; p++) phi[p] /= s;
}

static int argmax_row(const Model *m, const double *x)
{
    int t = 0;
    for (int c = 1; c < m->C; c++)
        if (model_value(m, x, c) > model_value(m, x, t)) t = c;
    return t;
}

static double max_abs(const double *v, int n)
{
    double a = 0;
    for (int i = 0; i < n; i++)
        if (fabs(v[i]) > a) a = fabs(v[i]);
    return a;
}

/* ---- the data ------------------------------------------------------------------- */
#define N_ROWS 5
#define F_COLS 6
static double X[N_ROWS * F_COLS], BG[3 * F_COLS];

static void make_data(void)
{
    EeRng rng;
    ee_rng_seed(&rng, 42);
    for (int i = 0; i < N_ROWS * F_COLS; i++) X[i] = 2 * ee_rng_uniform(&rng) - 1;
    for (int i = 0; i < 3 * F_COLS; i++) BG[i] = ee_rng_uniform(&rng) - 0.5;
}

/* Runs ee_sv_fn and checks it against the reference, for one setting. */
static void check_against_reference(const int32_t *groups, int K, int exact, int s, int batch, const char *what)
{
    Model m = {.F = F_COLS, .C = C_OUT};
    EeScoreFn fn = {eval, &m, use_columns ? columns : NULL};
    EeFnPlayers pl = {.F = F_COLS, .groups = groups, .background = K ? BG : NULL, .K = K};
    static const double zero[F_COLS];
    int P = ee_fn_players(groups, F_COLS);
    CHECK(P >= 1 && P <= 6, "%s: P = %d", what, P);
    int player[F_COLS], size[16] = {0};
    /* the player of each column, from the definition: distinct positive ids ascending */
    for (int f = 0; f < F_COLS; f++) {
        if (!groups) { player[f] = f; size[f]++; continue; }
        player[f] = -1;
        if (groups[f] <= 0) continue;
        int rank = 0;
        for (int v = 1; v < groups[f]; v++)
            for (int g = 0; g < F_COLS; g++)
                if (groups[g] == v) { rank++; break; }
        player[f] = rank;
        size[rank]++;
    }
    Ref r = {&m, F_COLS, P, K ? K : 1, player, K ? BG : zero};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.steps = s;
    o.seed = 7;
    o.batch = batch;
    double A[N_ROWS * F_COLS], players[N_ROWS * 8], var[N_ROWS * 8], fx[N_ROWS], fe[N_ROWS], delta[N_ROWS];
    int32_t target[N_ROWS];
    EeFnInfo info = {target, fx, fe, delta, players, exact ? NULL : var, 0, 0, 0, 0};
    CHECK_OK(ee_sv_fn(&fn, X, N_ROWS, &pl, &o, exact, A, &info));
    double err = 0, scale = 0, err_a = 0, worst_delta = 0;
    for (int i = 0; i < N_ROWS; i++) {
        const double *x = X + (size_t)i * F_COLS;
        int t = argmax_row(&m, x);
        CHECK(target[i] == t, "%s: row %d target %d, expected %d", what, i, target[i], t);
        CHECK(fx[i] == model_value(&m, x, t), "%s: row %d fx", what, i);
        int none[16] = {0};
        double v0 = ref_value(&r, x, none, t);
        CHECK(fabs(fe[i] - v0) <= 1e-12 * (1 + fabs(v0)), "%s: row %d fempty %g vs %g", what, i, fe[i], v0);
        double phi[16];
        if (exact) ref_exact(&r, x, t, phi);
        else ref_sampled(&r, x, t, 7, i, s, phi);
        double sum = 0;
        for (int p = 0; p < P; p++) {
            double d = fabs(players[(size_t)i * P + p] - phi[p]);
            if (!(d <= err)) err = d;   /* NaN counts as an error */
            if (fabs(phi[p]) > scale) scale = fabs(phi[p]);
            sum += players[(size_t)i * P + p];
        }
        for (int f = 0; f < F_COLS; f++) {
            double want = player[f] < 0 ? 0 : players[(size_t)i * P + player[f]] / size[player[f]];
            double d = fabs(A[(size_t)i * F_COLS + f] - want);
            if (!(d <= err_a)) err_a = d;
        }
        CHECK(fabs(delta[i] - (sum - (fx[i] - fe[i]))) <= 1e-12, "%s: row %d delta field", what, i);
        if (fabs(delta[i]) > worst_delta || delta[i] != delta[i]) worst_delta = fabs(delta[i]);
    }
    CHECK(scale > 1e-3, "%s: the values are not all ~0 (max %g)", what, scale);
    CHECK(err <= 1e-12 * scale, "%s: player values differ from the reference by %g (scale %g)", what, err, scale);
    CHECK(err_a <= 1e-15 * scale, "%s: A is not the players' values spread over their columns (%g)", what, err_a);
    CHECK(worst_delta <= 1e-12 * scale, "%s: efficiency: |delta| up to %g", what, worst_delta);
    /* the rows f saw: the first pass, then every coalition but the full one, K rows each */
    long per_row = exact ? ((1L << P) - 1) : (1 + (long)s * (P - 1));
    long rows = N_ROWS + N_ROWS * per_row * (K ? K : 1);
    int B = batch > 0 ? batch : 1024;
    CHECK(m.rows == rows && info.rows == rows, "%s: f evaluated %ld rows (info %ld), expected %ld", what, m.rows,
          info.rows, rows);
    long batches = (N_ROWS + B - 1) / B + (rows - N_ROWS + B - 1) / B;
    if (B >= rows - N_ROWS) batches = 2; /* the batch shrinks to the rows there are */
    CHECK(m.calls == batches && info.calls == m.calls, "%s: %ld calls of f, expected %ld (full batches)", what,
          m.calls, batches);
    CHECK(m.max_m <= B, "%s: a call of %ld rows, batch %d", what, m.max_m, B);
    if (!exact)
        for (int i = 0; i < N_ROWS * P; i++)
            CHECK(var[i] >= 0 && isfinite(var[i]), "%s: variance %g", what, var[i]);
    /* with the hook every batch went through it, none without */
    CHECK(m.col_calls == (use_columns ? m.calls : 0) && m.null_rows == m.col_calls,
          "%s: %ld columns arrays, %ld calls without rows, %ld calls (hook %s)", what, m.col_calls, m.null_rows,
          m.calls, use_columns ? "on" : "off");
    free(m.out);
    free(m.colbuf);
}

/* A linear model: phi of column f is w_f (x_f - mean_k b_kf), by sampling
 * (any order gives it) and exactly; with groups, the sum over the group. */
static void check_linear(void)
{
    double w[F_COLS * 2];
    for (int i = 0; i < F_COLS * 2; i++) w[i] = (i % 5) - 2.2 + 0.1 * i;
    static const int32_t groups[F_COLS] = {2, 2, 0, 5, 9, 5};
    for (int variant = 0; variant < 4; variant++) {
        int exact = variant & 1, grouped = variant >> 1;
        Model m = {.F = F_COLS, .C = 2, .w = w, .bias = 0.75};
        EeScoreFn fn = {eval, &m, NULL};
        EeFnPlayers pl = {.F = F_COLS, .groups = grouped ? groups : NULL, .background = BG, .K = 3};
        EeAttrOptions o;
        ee_attr_options_defaults(&o);
        o.verbose = 0;
        o.steps = 3;
        o.target = (const int32_t[]){1, 0, 1, 1, 0};
        double A[N_ROWS * F_COLS];
        CHECK_OK(ee_sv_fn(&fn, X, N_ROWS, &pl, &o, exact, A, NULL));
        double err = 0;
        for (int i = 0; i < N_ROWS; i++) {
            int t = o.target[i];
            for (int f = 0; f < F_COLS; f++) {
                double want = 0;
                if (!grouped || groups[f]) {
                    int n = 0;
                    for (int g = 0; g < F_COLS; g++) {
                        if (grouped ? groups[g] != groups[f] : g != f) continue;
                        double mb = (BG[g] + BG[F_COLS + g] + BG[2 * F_COLS + g]) / 3;
                        want += w[g + (size_t)t * F_COLS] * (X[(size_t)i * F_COLS + g] - mb);
                        n++;
                    }
                    want /= n;
                }
                double d = fabs(A[(size_t)i * F_COLS + f] - want);
                if (!(d <= err)) err = d;
            }
        }
        CHECK(err <= 1e-13, "linear model (%s, %s): %g from w .* (x - mean(background))", exact ? "exact" : "sampling",
              grouped ? "groups" : "columns", err);
        free(m.out);
    }
}

/* Bits equal for any batch, and a run of rows keyed by its offset equals
 * those rows of the whole run. */
static void check_batch_and_split(void)
{
    Model m = {.F = F_COLS, .C = C_OUT};
    EeScoreFn fn = {eval, &m, NULL};
    EeFnPlayers pl = {.F = F_COLS, .background = BG, .K = 2};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.steps = 4;
    o.seed = 11;
    double ref[N_ROWS * F_COLS], A[N_ROWS * F_COLS];
    CHECK_OK(ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, ref, NULL));
    CHECK(max_abs(ref, N_ROWS * F_COLS) > 1e-3, "the values are not all ~0");
    const int batches[] = {1, 2, 7, 33, 100000};
    for (int b = 0; b < 5; b++) {
        o.batch = batches[b];
        m.calls = 0;
        CHECK_OK(ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, NULL));
        CHECK(!memcmp(A, ref, sizeof A), "batch %d changes the bits", batches[b]);
    }
    o.batch = 5;
    o.row_offset = 2;
    m.calls = 0;
    CHECK_OK(ee_sv_fn(&fn, X + 2 * F_COLS, 3, &pl, &o, 0, A, NULL));
    CHECK(!memcmp(A, ref + 2 * F_COLS, sizeof(double) * 3 * F_COLS), "rows 3..5 alone (row_offset 2) differ");
    o.row_offset = 0;
    o.seed = 12;
    m.calls = 0;
    CHECK_OK(ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, NULL));
    CHECK(memcmp(A, ref, sizeof A), "another seed gives the same values");
    free(m.out);
}

static int polls;
static int stop_after(void *ctx) { return ++polls > *(int *)ctx; }

static void check_errors(void)
{
    Model m = {.F = F_COLS, .C = C_OUT};
    EeScoreFn fn = {eval, &m, NULL};
    EeFnPlayers pl = {.F = F_COLS};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.batch = 16;
    double A[N_ROWS * F_COLS];
    EeFnInfo info = {0};
    /* the callback's own status and message come back as they are */
    m.fail_at = 3;
    EeStatus st = ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, &info);
    CHECK(st == EE_ERR_IO && strstr(ee_last_error(), "on purpose"), "callback failure: %s, %s", ee_status_id(st),
          ee_last_error());
    CHECK(m.calls == 3 && info.calls == 3, "no call after the failure (%ld)", m.calls);
    free(m.out);
    m = (Model){.F = F_COLS, .C = C_OUT, .nan_at = 2};
    st = ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "call 2 "), "NaN: %s, %s", ee_status_id(st), ee_last_error());
    free(m.out);
    m = (Model){.F = F_COLS, .C = C_OUT, .wrongc_at = 4};
    st = ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "call 4 ") && strstr(ee_last_error(), "returned 1 scores"),
          "C changes: %s, %s", ee_status_id(st), ee_last_error());
    free(m.out);
    m = (Model){.F = F_COLS, .C = C_OUT};
    o.target = (const int32_t[]){0, 1, 2, 0, 0};
    st = ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "row 3"), "target 3 of 2 scores: %s", ee_last_error());
    o.target = NULL;
    static const int32_t bad[F_COLS] = {1, 2, -1, 0, 0, 0};
    pl.groups = bad;
    CHECK(ee_fn_players(bad, F_COLS) == -1, "negative id counted");
    st = ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, NULL);
    CHECK(st == EE_ERR_INPUT, "negative group id: %s", ee_status_id(st));
    pl.groups = NULL;
    double Xw[21];
    for (int f = 0; f < 21; f++) Xw[f] = f;
    EeFnPlayers wide = {.F = 21};
    st = ee_sv_fn(&fn, Xw, 1, &wide, &o, 1, A, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "2^P"), "21 players exact: %s", ee_last_error());
    double Xn[F_COLS * N_ROWS];
    memcpy(Xn, X, sizeof Xn);
    Xn[7] = NAN;
    st = ee_sv_fn(&fn, Xn, N_ROWS, &pl, &o, 0, A, NULL);
    CHECK(st == EE_ERR_INPUT, "NaN in X: %s", ee_status_id(st));
    /* interrupts: before the first call and between later batches (the
     * first poll asks the hook at once, later ones 20 ms apart: f sleeps
     * 30 ms a call, so the hook is asked before every call) */
    m.sleep_ms = 30;
    for (int after = 0; after < 4; after++) {
        polls = 0;
        m.calls = 0;
        ee_set_interrupt(stop_after, &after);
        st = ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, NULL);
        ee_set_interrupt(NULL, NULL);
        CHECK(st == EE_ERR_INTERRUPTED, "interrupt after %d polls: %s", after, ee_status_id(st));
        CHECK(m.calls == after, "interrupt after %d polls: %ld calls of f", after, m.calls);
    }
    free(m.out);
}

/* Groups where every id is 0: no players, A = 0, one call (the first pass). */
static void check_no_players(void)
{
    Model m = {.F = F_COLS, .C = C_OUT};
    EeScoreFn fn = {eval, &m, NULL};
    static const int32_t none[F_COLS] = {0};
    EeFnPlayers pl = {.F = F_COLS, .groups = none};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    double A[N_ROWS * F_COLS], delta[N_ROWS];
    for (int i = 0; i < N_ROWS * F_COLS; i++) A[i] = 1;
    EeFnInfo info = {.delta = delta};
    CHECK_OK(ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A, &info));
    CHECK(max_abs(A, N_ROWS * F_COLS) == 0 && max_abs(delta, N_ROWS) == 0, "no players: A and delta not 0");
    CHECK(m.calls == 1, "no players: %ld calls", m.calls);
    free(m.out);
}

/* IG: the model's gradient and central differences against the quadrature
 * of the analytic gradient; a linear model's closed form; completeness;
 * batch independence; the rows and calls; errors. */
static void check_ig(void)
{
    static const double b[F_COLS] = {0.1, -0.2, 0.3, 0, 0.5, -0.4};
    double alpha[32], wq[32];
    const int s = 16;
    CHECK_OK(ee_ig_nodes(EE_IG_GAUSSLEGENDRE, s, alpha, wq));
    for (int fd = 0; fd < 2; fd++) {
        Model m = {.F = F_COLS, .C = C_OUT};
        EeScoreFn fn = {eval, &m, NULL};
        EeGradFn gfn = {eval_grad, &m};
        EeAttrOptions o;
        ee_attr_options_defaults(&o);
        o.verbose = 0;
        o.steps = s;
        double A[N_ROWS * F_COLS], ref[N_ROWS * F_COLS], fx[N_ROWS], fb[N_ROWS], delta[N_ROWS];
        int32_t target[N_ROWS];
        EeFnInfo info = {.target = target, .fx = fx, .fempty = fb, .delta = delta};
        CHECK_OK(ee_ig_fn(&fn, fd ? NULL : &gfn, X, N_ROWS, F_COLS, b, &o, 1e-4, A, &info));
        double err = 0, scale = 0, worst_delta = 0;
        for (int i = 0; i < N_ROWS; i++) {
            const double *x = X + (size_t)i * F_COLS;
            int t = argmax_row(&m, x);
            CHECK(target[i] == t && fx[i] == model_value(&m, x, t) && fb[i] == model_value(&m, b, t),
                  "IG (%s): row %d target, f(x) or f(b)", fd ? "differences" : "gradient", i);
            double sum[F_COLS] = {0}, z[F_COLS], g[F_COLS];
            for (int k = 0; k < s; k++) {
                for (int f = 0; f < F_COLS; f++) z[f] = b[f] + alpha[k] * (x[f] - b[f]);
                nonlinear_grad(z, F_COLS, t, g);
                for (int f = 0; f < F_COLS; f++) sum[f] += wq[k] * g[f];
            }
            for (int f = 0; f < F_COLS; f++) {
                ref[i * F_COLS + f] = (x[f] - b[f]) * sum[f];
                double d = fabs(A[i * F_COLS + f] - ref[i * F_COLS + f]);
                if (!(d <= err)) err = d;
                if (fabs(ref[i * F_COLS + f]) > scale) scale = fabs(ref[i * F_COLS + f]);
            }
            if (!(fabs(delta[i]) <= worst_delta)) worst_delta = fabs(delta[i]);
        }
        CHECK(scale > 1e-2, "IG: the values are not all ~0");
        CHECK(err <= (fd ? 1e-7 : 1e-13) * scale, "IG (%s): %g from the quadrature of the analytic gradient",
              fd ? "differences" : "gradient", err);
        /* 16 Gauss-Legendre nodes integrate this smooth path to near rounding */
        CHECK(worst_delta <= 1e-6 * scale, "IG (%s): completeness |delta| up to %g", fd ? "differences" : "gradient",
              worst_delta);
        long rows = N_ROWS + 1 + (long)N_ROWS * s * (fd ? 2 * F_COLS : 1);
        CHECK(info.rows == rows && m.rows == rows, "IG: %ld rows, expected %ld", info.rows, rows);
        /* any batch: the same bits */
        const int batches[] = {1, 2, 7, 100000};
        for (int k = 0; k < 4; k++) {
            double Ab[N_ROWS * F_COLS];
            o.batch = batches[k];
            m.calls = 0;
            m.max_m = 0;
            CHECK_OK(ee_ig_fn(&fn, fd ? NULL : &gfn, X, N_ROWS, F_COLS, b, &o, 1e-4, Ab, NULL));
            CHECK(!memcmp(A, Ab, sizeof A), "IG (%s): batch %d changes the bits", fd ? "differences" : "gradient",
                  batches[k]);
            CHECK(m.max_m <= (batches[k] < rows ? batches[k] : rows), "IG: a call of %ld rows", m.max_m);
        }
        free(m.out);
    }
    /* a linear model: (x - b) .* w, by either gradient, and Gradient x Input */
    double w[F_COLS * 2];
    for (int i = 0; i < F_COLS * 2; i++) w[i] = 0.3 * i - 1.1;
    for (int fd = 0; fd < 2; fd++) {
        Model m = {.F = F_COLS, .C = 2, .w = w, .bias = -0.25};
        EeScoreFn fn = {eval, &m, NULL};
        EeGradFn gfn = {eval_grad, &m};
        EeAttrOptions o;
        ee_attr_options_defaults(&o);
        o.verbose = 0;
        o.steps = 3;
        o.method = EE_IG_RIEMANN_TRAPEZOID;
        o.target = (const int32_t[]){1, 1, 0, 0, 1};
        double A[N_ROWS * F_COLS], G[N_ROWS * F_COLS], err = 0, err_g = 0;
        /* the trapezoid's weights sum to (s-1)/s (Captum's): scaled back below */
        CHECK_OK(ee_ig_fn(&fn, fd ? NULL : &gfn, X, N_ROWS, F_COLS, b, &o, 1e-3, A, NULL));
        o.method = EE_IG_GRADXINPUT;
        m.calls = 0;
        CHECK_OK(ee_ig_fn(&fn, fd ? NULL : &gfn, X, N_ROWS, F_COLS, NULL, &o, 1e-3, G, NULL));
        for (int i = 0; i < N_ROWS * F_COLS; i++) {
            double wt = w[i % F_COLS + (size_t)o.target[i / F_COLS] * F_COLS];
            double d = fabs(A[i] * 3 / 2 - wt * (X[i] - b[i % F_COLS])), dg = fabs(G[i] - wt * X[i]);
            if (!(d <= err)) err = d;
            if (!(dg <= err_g)) err_g = dg;
        }
        CHECK(err <= 1e-9 && err_g <= 1e-9, "IG of a linear model (%s): %g, gradient x input %g",
              fd ? "differences" : "gradient", err, err_g);
        free(m.out);
    }
    /* errors */
    Model m = {.F = F_COLS, .C = C_OUT, .nan_at = -3};
    EeScoreFn fn = {eval, &m, NULL};
    EeGradFn gfn = {eval_grad, &m};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.batch = 8;
    double A[N_ROWS * F_COLS];
    EeStatus st = ee_ig_fn(&fn, &gfn, X, N_ROWS, F_COLS, b, &o, 1e-4, A, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "call 3 ") && strstr(ee_last_error(), "gradient of NaN"),
          "NaN gradient: %s", ee_last_error());
    m.nan_at = 0;
    o.method = EE_IG_XGRAD;
    CHECK(ee_ig_fn(&fn, &gfn, X, N_ROWS, F_COLS, NULL, &o, 1e-4, A, NULL) == EE_ERR_UNSUPPORTED, "xgrad on f");
    o.method = EE_IG_GRADXINPUT;
    CHECK(ee_ig_fn(&fn, &gfn, X, N_ROWS, F_COLS, b, &o, 1e-4, A, NULL) == EE_ERR_INPUT, "gradxinput with a baseline");
    o.method = EE_IG_GAUSSLEGENDRE;
    CHECK(ee_ig_fn(&fn, NULL, X, N_ROWS, F_COLS, b, &o, 0, A, NULL) == EE_ERR_INPUT, "step 0");
    m.fail_at = 2;
    m.calls = 0;
    st = ee_ig_fn(&fn, NULL, X, N_ROWS, F_COLS, b, &o, 1e-4, A, NULL);
    CHECK(st == EE_ERR_IO && m.calls == 2, "IG: the callback's failure (%s, %ld calls)", ee_status_id(st), m.calls);
    free(m.out);
    free(grad_out);
    grad_out = NULL;
}


/* Expected gradients: IG averaged over the background's rows (all, or m
 * drawn per row from RANDOM.md's stream, re-derived here), against the
 * mean of the quadrature of the analytic gradient over the same
 * baselines; the linear model's closed form w .* (x - mean(baselines));
 * f(b) the mean over them; batch independence. */
static void check_eg(void)
{
    const int s = 12, K = 3;
    double alpha[32], wq[32];
    CHECK_OK(ee_ig_nodes(EE_IG_GAUSSLEGENDRE, s, alpha, wq));
    for (int m_draw = 0; m_draw <= 5; m_draw += 5) {
        Model m = {.F = F_COLS, .C = C_OUT};
        EeScoreFn fn = {eval, &m, NULL};
        EeGradFn gfn = {eval_grad, &m};
        EeAttrOptions o;
        ee_attr_options_defaults(&o);
        o.verbose = 0;
        o.steps = s;
        o.seed = 9;
        o.row_offset = 2;
        double A[N_ROWS * F_COLS], fx[N_ROWS], fb[N_ROWS], delta[N_ROWS];
        int32_t target[N_ROWS];
        EeFnInfo info = {.target = target, .fx = fx, .fempty = fb, .delta = delta};
        CHECK_OK(ee_eg_fn(&fn, &gfn, X, N_ROWS, F_COLS, BG, K, m_draw, &o, 1e-4, A, &info));
        CheckCmp c = CMP_INIT, cb = CMP_INIT;
        int nb = m_draw ? m_draw : K;
        for (int i = 0; i < N_ROWS; i++) {
            const double *x = X + (size_t)i * F_COLS;
            int t = argmax_row(&m, x), idx[8];
            EeRng r;
            ee_rng_stream(&r, 9, (uint64_t)(2 + i), (uint64_t)0x4547 << 32);
            for (int j = 0; j < nb; j++) idx[j] = m_draw ? (int)ee_rng_below(&r, K) : j;
            double ref[F_COLS] = {0}, fbr = 0;
            for (int j = 0; j < nb; j++) {
                const double *b = BG + (size_t)idx[j] * F_COLS;
                double sum[F_COLS] = {0}, z[F_COLS], g[F_COLS];
                for (int k = 0; k < s; k++) {
                    for (int f = 0; f < F_COLS; f++) z[f] = b[f] + alpha[k] * (x[f] - b[f]);
                    nonlinear_grad(z, F_COLS, t, g);
                    for (int f = 0; f < F_COLS; f++) sum[f] += wq[k] * g[f];
                }
                for (int f = 0; f < F_COLS; f++) ref[f] += (x[f] - b[f]) * sum[f] / nb;
                fbr += model_value(&m, b, t) / nb;
            }
            for (int f = 0; f < F_COLS; f++) cmp_add(&c, A[i * F_COLS + f], ref[f]);
            cmp_add(&cb, fb[i], fbr);
        }
        CHECK(c.scale > 1e-2, "EG: the values are not all ~0");
        CHECK_CMP(c, 1e-13 * c.scale, "EG (%d drawn): against the mean of the quadratures over the baselines", m_draw);
        CHECK_CMP(cb, 1e-14 * fmax(cb.scale, 1), "EG (%d drawn): f(b) is the mean over the baselines", m_draw);
        long rows = N_ROWS + K + (long)N_ROWS * nb * s;
        CHECK(info.rows == rows && m.rows == rows, "EG: %ld rows, expected %ld", info.rows, rows);
        double Ab[N_ROWS * F_COLS];
        o.batch = 7;
        m.calls = 0;
        CHECK_OK(ee_eg_fn(&fn, NULL, X, N_ROWS, F_COLS, BG, K, m_draw, &o, 1e-4, Ab, NULL));
        CheckCmp cf = CMP_INIT;
        for (int t = 0; t < N_ROWS * F_COLS; t++) cmp_add(&cf, Ab[t], A[t]);
        CHECK_CMP(cf, 1e-7 * c.scale, "EG (%d drawn): central differences, batch 7, against the gradient", m_draw);
        m.calls = 0;
        CHECK_OK(ee_eg_fn(&fn, &gfn, X, N_ROWS, F_COLS, BG, K, m_draw, &o, 1e-4, Ab, NULL));
        CHECK(!memcmp(A, Ab, sizeof A), "EG (%d drawn): batch 7 changes the bits", m_draw);
        free(m.out);
    }
    /* the linear model: w .* (x - mean(background)) */
    double w[F_COLS * 2];
    for (int i = 0; i < F_COLS * 2; i++) w[i] = 0.3 * i - 1.1;
    Model m = {.F = F_COLS, .C = 2, .w = w, .bias = -0.25};
    EeScoreFn fn = {eval, &m, NULL};
    EeGradFn gfn = {eval_grad, &m};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.steps = 2;
    double A[N_ROWS * F_COLS], delta[N_ROWS];
    int32_t target[N_ROWS];
    EeFnInfo info = {.target = target, .delta = delta};
    CHECK_OK(ee_eg_fn(&fn, &gfn, X, N_ROWS, F_COLS, BG, 3, 0, &o, 1e-4, A, &info));
    CheckCmp c = CMP_INIT, cd = CMP_INIT;
    for (int i = 0; i < N_ROWS; i++) {
        for (int f = 0; f < F_COLS; f++) {
            double mb = (BG[f] + BG[F_COLS + f] + BG[2 * F_COLS + f]) / 3;
            cmp_add(&c, A[i * F_COLS + f], w[f + target[i] * F_COLS] * (X[i * F_COLS + f] - mb));
        }
        cmp_add(&cd, delta[i], 0);
    }
    CHECK_CMP(c, 1e-14 * fmax(c.scale, 1), "EG, linear model: w .* (x - mean(background))");
    CHECK_CMP(cd, 1e-13, "EG, linear model: completeness");
    free(m.out);
    free(grad_out);
    grad_out = NULL;
}

/* The columns hook changes where the rows are written, not what f sees:
 * the same bits with and without it, for sampling and for a coalition
 * method (KernelSHAP), over batch sizes that leave partial batches. */
static void check_columns_same_bits(void)
{
    static const int32_t groups[F_COLS] = {1, 2, 2, 3, 4, 4};
    EeFnPlayers pl = {.F = F_COLS, .groups = groups, .background = BG, .K = 2};
    for (int method = 0; method < 2; method++)
        for (int batch = 1; batch <= 64; batch *= 4) {
            double A[2][N_ROWS * F_COLS];
            long calls[2];
            for (int hook = 0; hook < 2; hook++) {
                Model m = {.F = F_COLS, .C = C_OUT};
                EeScoreFn fn = {eval, &m, hook ? columns : NULL};
                EeAttrOptions o;
                ee_attr_options_defaults(&o);
                o.verbose = 0;
                o.steps = 3;
                o.seed = 11;
                o.batch = batch;
                EeCoalitionOptions co = {.kind = EE_COAL_KERNELSHAP, .samples = 20}; /* all 14 coalitions */
                EeFnInfo info = {0};
                CHECK_OK(method ? ee_coalition_fn(&fn, X, N_ROWS, &pl, &o, &co, A[hook], &info)
                                : ee_sv_fn(&fn, X, N_ROWS, &pl, &o, 0, A[hook], &info));
                calls[hook] = m.calls;
                CHECK(m.col_calls == (hook ? m.calls : 0), "same bits: %ld columns arrays for %ld calls",
                      m.col_calls, m.calls);
                free(m.out);
                free(m.colbuf);
            }
            CHECK(calls[0] == calls[1], "%s, batch %d: %ld calls without the hook, %ld with",
                  method ? "kernelshap" : "sampling", batch, calls[0], calls[1]);
            CHECK(memcmp(A[0], A[1], sizeof A[0]) == 0, "%s, batch %d: the hook changed the attributions",
                  method ? "kernelshap" : "sampling", batch);
        }
}

/* ---- faithfulness of maps of f (ee_faithfulness_fn) ----------------------------- */
typedef struct {
    double comp, suff, dauc, iauc, cb[5], sb[5], dcurve[65], icurve[65], infd, infn, fx, fb;
    int target;
} FaithRef;

/* Row x from the definition (doc/MODELS.md): players ranked by the map
 * (a player's score = the sum over its columns; largest first, ties to
 * the lower player, by selection), D_j = v(x without its top j), I_j =
 * v(only its top j), every j = 0..P evaluated; `reverse` ranks ties to
 * the higher player (the mutation). */
static void ref_faith(const Ref *r, const double *x, const double *A, int Acols, int target, int steps, int ninf,
                      uint64_t seed, long row, int reverse, FaithRef *o)
{
    int P = r->P, order[16];
    double sc[16] = {0}, D[17], I[17];
    for (int f = 0; f < r->F; f++)
        if (Acols == r->F && r->player[f] >= 0) sc[r->player[f]] += A[f];
    for (int p = 0; Acols != r->F && p < P; p++) sc[p] = A[p];
    for (int p = 0; p < P; p++) order[p] = p;
    for (int a = 0; a < P; a++) {
        int best = a;
        for (int b = a + 1; b < P; b++)
            if (sc[order[b]] > sc[order[best]] ||
                (sc[order[b]] == sc[order[best]] && (reverse ? order[b] > order[best] : order[b] < order[best])))
                best = b;
        int t = order[a]; order[a] = order[best]; order[best] = t;
    }
    for (int j = 0; j <= P; j++) {
        int del[16], ins[16];
        for (int p = 0; p < P; p++) { del[p] = 1; ins[p] = 0; }
        for (int q = 0; q < j; q++) { del[order[q]] = 0; ins[order[q]] = 1; }
        D[j] = ref_value(r, x, del, target);
        I[j] = ref_value(r, x, ins, target);
    }
    o->target = target;
    o->fx = D[0];
    o->fb = D[P];
    const int bins[5] = {1, 5, 10, 20, 50};
    o->comp = o->suff = 0;
    for (int k = 0; k < 5; k++) {
        int m = (int)ceil(bins[k] * P / 100.0 - 1e-12);
        o->cb[k] = D[0] - D[m];
        o->sb[k] = D[0] - I[m];
        o->comp += o->cb[k] / 5;
        o->suff += o->sb[k] / 5;
    }
    int K = steps ? steps : P;
    o->dauc = o->iauc = 0;
    for (int q = 0; q <= K; q++) {
        int j = steps ? (int)floor((double)q * P / K + 0.5) : q;
        o->dcurve[q] = D[j];
        o->icurve[q] = I[j];
        if (q == K) break;
        int j1 = steps ? (int)floor((double)(q + 1) * P / K + 0.5) : q + 1;
        o->dauc += (j1 - j) / (double)P * (D[j] + D[j1]) / 2;
        o->iauc += (j1 - j) / (double)P * (I[j] + I[j1]) / 2;
    }
    /* infidelity: each player in S with probability 1/2 (the documented stream) */
    double sk[64], dk[64];
    o->infd = 0;
    for (int k = 0; k < ninf; k++) {
        EeRng g;
        ee_rng_stream(&g, seed, (uint64_t)row, (3ULL << 32) + (uint64_t)k);
        int in[16];
        double sa = 0;
        for (int p = 0; p < P; p++) {
            in[p] = !(ee_rng_uniform(&g) < 0.5);
            if (!in[p]) sa += sc[p];
        }
        double dz = D[0] - ref_value(r, x, in, target);
        o->infd += (sa - dz) * (sa - dz) / ninf;
        sk[k] = sa;
        dk[k] = dz;
    }
    double num = 0, den = 0;
    for (int k = 0; k < ninf; k++) { num += sk[k] * dk[k]; den += sk[k] * sk[k]; }
    double beta = den > 0 ? num / den : 0;
    o->infn = 0;
    for (int k = 0; k < ninf; k++) o->infn += (beta * sk[k] - dk[k]) * (beta * sk[k] - dk[k]) / ninf;
}

/* The counts 1..P-1 that the bins or the curve's points read (each a
 * deletion and an insertion copy; P is the empty coalition). */
static int faith_counts(int P, int steps)
{
    char used[64] = {0};
    const int bins[5] = {1, 5, 10, 20, 50};
    for (int k = 0; k < 5; k++) used[(int)ceil(bins[k] * P / 100.0 - 1e-12)] = 1;
    int K = steps ? steps : P;
    for (int q = 0; q <= K; q++) used[steps ? (int)floor((double)q * P / K + 0.5) : q] = 1;
    int n = 0;
    for (int j = 1; j < P; j++) n += used[j];
    return n;
}

/* Every field of ee_faithfulness_fn against the reference: the nonlinear
 * model, columns or groups, a baseline row or a background of 3, curves
 * of K steps or every count, maps per column or per player, small
 * batches; the rows f saw; a map with ties told from the mutated tie
 * order, and the linear model with one weight 1 % off told apart. */
static void check_faith_case(const int32_t *groups, int K, int steps, int per_player, int batch, const double *w,
                             const char *what)
{
    Model m = {.F = F_COLS, .C = C_OUT, .w = w, .bias = 0.3};
    EeScoreFn fn = {eval, &m, NULL};
    EeFnPlayers pl = {.F = F_COLS, .groups = groups, .background = BG, .K = K};
    int P = ee_fn_players(groups, F_COLS), player[F_COLS];
    for (int f = 0; f < F_COLS; f++) { /* distinct positive ids ascending */
        if (!groups) { player[f] = f; continue; }
        player[f] = -1;
        if (groups[f] <= 0) continue;
        int rank = 0;
        for (int v = 1; v < groups[f]; v++)
            for (int g = 0; g < F_COLS; g++)
                if (groups[g] == v) { rank++; break; }
        player[f] = rank;
    }
    Ref r = {&m, F_COLS, P, K, player, BG};
    /* maps: random, with ties between the first two players in every row */
    int Acols = per_player ? P : F_COLS;
    double A[N_ROWS * F_COLS];
    EeRng g;
    ee_rng_seed(&g, 77);
    for (int q = 0; q < N_ROWS * Acols; q++) A[q] = ee_rng_uniform(&g) - 0.5;
    for (int i = 0; i < N_ROWS; i++) A[i * Acols + 1] = A[i * Acols + (per_player || !groups ? 0 : 1)];
    if (!per_player && groups) /* a tie of two players: their column sums */
        for (int i = 0; i < N_ROWS; i++) {
            double s0 = 0, s1 = 0;
            for (int f = 0; f < F_COLS; f++) {
                if (player[f] == 0) s0 += A[i * F_COLS + f];
                if (player[f] == 1) s1 += A[i * F_COLS + f];
            }
            for (int f = 0; f < F_COLS; f++)
                if (player[f] == 1) { A[i * F_COLS + f] += s0 - s1; break; }
        }
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    o.seed = 11;
    o.batch = batch;
    EeFaithOptions fo;
    ee_faith_options_defaults(&fo);
    fo.steps = steps;
    fo.infidelity_samples = 6;
    int KS = steps ? steps + 1 : 1;
    double comp[N_ROWS], suff[N_ROWS], dauc[N_ROWS], iauc[N_ROWS], lod[N_ROWS], cb[N_ROWS * 5], sb[N_ROWS * 5];
    double dc[N_ROWS * 65], ic[N_ROWS * 65], fx[N_ROWS], fb[N_ROWS], inf[N_ROWS], infn[N_ROWS];
    int32_t tg[N_ROWS], nr[N_ROWS];
    EeFaithResult res = {comp, suff, dauc, iauc, lod, cb, sb, steps ? dc : NULL, steps ? ic : NULL, tg, nr, fx, fb,
                         inf, infn, 0, 0};
    EeFnInfo info = {0};
    CHECK_OK(ee_faithfulness_fn(&fn, X, N_ROWS, &pl, A, Acols, &o, &fo, &res, &info));
    CheckCmp cmp = CMP_INIT, tie = CMP_INIT;
    int tmis = 0, nmis = 0, lodnan = 0;
    for (int mut = 0; mut <= 1; mut++)
        for (int i = 0; i < N_ROWS; i++) {
            const double *x = X + (size_t)i * F_COLS;
            FaithRef R;
            int t = argmax_row(&m, x);
            ref_faith(&r, x, A + (size_t)i * Acols, Acols, t, steps, fo.infidelity_samples, 11, i, mut, &R);
            CheckCmp *c = mut ? &tie : &cmp;
            if (!mut) {
                tmis += tg[i] != t;
                nmis += nr[i] != P;
                lodnan += !isnan(lod[i]);
            }
            cmp_add(c, comp[i], R.comp);
            cmp_add(c, suff[i], R.suff);
            cmp_add(c, dauc[i], R.dauc);
            cmp_add(c, iauc[i], R.iauc);
            cmp_add(c, fx[i], R.fx);
            cmp_add(c, fb[i], R.fb);
            cmp_add(c, inf[i], R.infd);
            cmp_add(c, infn[i], R.infn);
            for (int k = 0; k < 5; k++) {
                cmp_add(c, cb[i * 5 + k], R.cb[k]);
                cmp_add(c, sb[i * 5 + k], R.sb[k]);
            }
            for (int q = 0; steps && q < KS; q++) {
                cmp_add(c, dc[i * KS + q], R.dcurve[q]);
                cmp_add(c, ic[i * KS + q], R.icurve[q]);
            }
        }
    double bound = cmp_bound(&cmp, 1e-12, 1);
    CHECK_CMP(cmp, bound, "faithfulness of f (%s): every field against the double reference", what);
    CHECK(tmis == 0 && nmis == 0 && lodnan == 0, "faithfulness of f (%s): %d targets, %d player counts wrong, %d "
          "log-odds not NaN", what, tmis, nmis, lodnan);
    CHECK(!cmp_ok(&tie, bound), "faithfulness of f (%s): ties to the higher player are told apart (err %.3g)", what,
          tie.err);
    /* the rows f saw: N first, then per row its distinct copies, K rows each */
    long per_row = 1 + 2 * faith_counts(P, steps) + fo.infidelity_samples; /* the empty coalition, the copies */
    long rows = N_ROWS + (long)N_ROWS * per_row * K;
    CHECK(m.rows == rows && info.rows == rows && res.forward == rows,
          "faithfulness of f (%s): f saw %ld rows (info %ld), expected %ld", what, m.rows, info.rows, rows);
    CHECK(m.max_m <= (batch ? batch : 1024), "faithfulness of f (%s): a call of %ld rows", what, m.max_m);
    if (w) { /* the linear model with one weight of the reference 1 % off */
        double w2[F_COLS * C_OUT];
        memcpy(w2, w, sizeof w2);
        w2[F_COLS + 2] *= 1.01;
        w2[2] *= 1.01;
        Model m2 = m;
        m2.w = w2;
        Ref r2 = r;
        r2.m = &m2;
        CheckCmp off = CMP_INIT;
        for (int i = 0; i < N_ROWS; i++) {
            FaithRef R;
            ref_faith(&r2, X + (size_t)i * F_COLS, A + (size_t)i * Acols, Acols, tg[i], steps, fo.infidelity_samples,
                      11, i, 0, &R);
            cmp_add(&off, comp[i], R.comp);
            cmp_add(&off, dauc[i], R.dauc);
            cmp_add(&off, inf[i], R.infd);
        }
        CHECK(!cmp_ok(&off, bound), "faithfulness of f (%s): one weight 1 %% off is seen (err %.3g)", what, off.err);
    }
    free(m.out);
}

static void check_faithfulness(void)
{
    static const int32_t groups[F_COLS] = {3, 3, 1, 0, 7, 1};
    double w[F_COLS * C_OUT];
    for (int i = 0; i < F_COLS * C_OUT; i++) w[i] = (i % 5) - 2.2 + 0.1 * i;
    check_faith_case(NULL, 1, 0, 0, 0, NULL, "columns, baseline row, every count");
    check_faith_case(NULL, 3, 4, 0, 7, NULL, "columns, background of 3, 4 steps, batch 7");
    check_faith_case(groups, 3, 3, 0, 5, NULL, "groups, background of 3, A per column, batch 5");
    check_faith_case(groups, 1, 0, 1, 0, NULL, "groups, A per player");
    check_faith_case(NULL, 1, 5, 0, 3, w, "linear model, batch 3");
    /* a linear model without interactions and a zero baseline: the exact
     * attribution w .* x ranks the players by their true effect, so its
     * comprehensiveness is the largest of any map's in every bin, and
     * infidelity 0 */
    Model m = {.F = F_COLS, .C = C_OUT, .w = w};
    EeScoreFn fn = {eval, &m, NULL};
    static const double zero[F_COLS];
    EeFnPlayers pl = {.F = F_COLS, .background = zero, .K = 1};
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.verbose = 0;
    int32_t tgt[N_ROWS];
    for (int i = 0; i < N_ROWS; i++) tgt[i] = 1;
    o.target = tgt;
    EeFaithOptions fo;
    ee_faith_options_defaults(&fo);
    fo.infidelity_samples = 8;
    double Ae[N_ROWS * F_COLS], Ar[N_ROWS * F_COLS];
    EeRng g;
    ee_rng_seed(&g, 5);
    for (int i = 0; i < N_ROWS; i++)
        for (int f = 0; f < F_COLS; f++) Ae[i * F_COLS + f] = w[F_COLS + f] * X[i * F_COLS + f];
    double cbe[N_ROWS * 5], cbr[N_ROWS * 5], infe[N_ROWS], infr[N_ROWS];
    EeFaithResult re = {.comp_bins = cbe, .infidelity = infe}, rr = {.comp_bins = cbr, .infidelity = infr};
    CHECK_OK(ee_faithfulness_fn(&fn, X, N_ROWS, &pl, Ae, F_COLS, &o, &fo, &re, NULL));
    int worse = 0, strictly = 0, trials = 20;
    double maxinf = 0;
    for (int i = 0; i < N_ROWS; i++) if (!(fabs(infe[i]) <= maxinf)) maxinf = fabs(infe[i]);
    for (int trial = 0; trial < trials; trial++) {
        for (int q = 0; q < N_ROWS * F_COLS; q++) Ar[q] = ee_rng_uniform(&g) - 0.5;
        m.calls = 0; /* eval checks the call numbers of one run */
        CHECK_OK(ee_faithfulness_fn(&fn, X, N_ROWS, &pl, Ar, F_COLS, &o, &fo, &rr, NULL));
        for (int q = 0; q < N_ROWS * 5; q++) {
            worse += !(cbe[q] >= cbr[q] - 1e-12);
            strictly += cbe[q] > cbr[q] + 1e-9;
        }
    }
    CHECK(worse == 0 && strictly > 0, "linear model: the exact map's comprehensiveness is the maximum in every row-bin "
          "(%d of %d below a random map's, %d strictly above)", worse, trials * N_ROWS * 5, strictly);
    CHECK(maxinf <= 1e-24, "linear model: the exact map's infidelity is 0 (max %g)", maxinf);
    /* bad input: maps of the wrong width, NaN in a map, steps < 0 */
    EeFaithOptions bad = fo;
    EeFaithResult rb = {0};
    m.calls = 0;
    EeStatus st = ee_faithfulness_fn(&fn, X, N_ROWS, &pl, Ae, F_COLS - 1, &o, &fo, &rb, NULL);
    CHECK(st == EE_ERR_INPUT, "faithfulness of f: maps of F - 1 columns are %s (%s)", ee_status_id(st), ee_last_error());
    Ae[3] = NAN;
    st = ee_faithfulness_fn(&fn, X, N_ROWS, &pl, Ae, F_COLS, &o, &fo, &rb, NULL);
    CHECK(st == EE_ERR_INPUT, "faithfulness of f: NaN in a map is %s (%s)", ee_status_id(st), ee_last_error());
    Ae[3] = 0;
    bad.steps = -1;
    st = ee_faithfulness_fn(&fn, X, N_ROWS, &pl, Ae, F_COLS, &o, &bad, &rb, NULL);
    CHECK(st == EE_ERR_INPUT, "faithfulness of f: steps -1 is %s (%s)", ee_status_id(st), ee_last_error());
    free(m.out);
}

int main(void)
{
    make_data();
    static const int32_t groups[F_COLS] = {3, 3, 1, 0, 7, 1};
    check_against_reference(NULL, 0, 1, 0, 0, "exact, columns, zero baseline");
    check_against_reference(NULL, 3, 1, 0, 5, "exact, columns, background of 3");
    check_against_reference(groups, 3, 1, 0, 4, "exact, groups, background of 3");
    check_against_reference(NULL, 0, 0, 6, 0, "sampling, columns, zero baseline");
    check_against_reference(NULL, 1, 0, 3, 7, "sampling, columns, baseline row");
    check_against_reference(groups, 3, 0, 5, 13, "sampling, groups, background of 3");
    /* the same through the columns hook: rows written column-major into
     * the front end's array (partial last batches included) */
    use_columns = 1;
    check_against_reference(NULL, 0, 1, 0, 0, "exact, columns, zero baseline, hook");
    check_against_reference(NULL, 3, 1, 0, 5, "exact, columns, background of 3, hook");
    check_against_reference(groups, 3, 1, 0, 4, "exact, groups, background of 3, hook");
    check_against_reference(NULL, 0, 0, 6, 0, "sampling, columns, zero baseline, hook");
    check_against_reference(NULL, 1, 0, 3, 7, "sampling, columns, baseline row, hook");
    check_against_reference(groups, 3, 0, 5, 13, "sampling, groups, background of 3, hook");
    use_columns = 0;
    check_columns_same_bits();
    check_linear();
    check_batch_and_split();
    check_errors();
    check_no_players();
    check_ig();
    check_eg();
    check_faithfulness();
    return check_finish("test_fn");
}
