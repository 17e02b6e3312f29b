/* sv_fn.c: Shapley values of a model given as a function (EeScoreFn):
 * Shapley Value Sampling and exact enumeration over players that are
 * columns or groups of columns of a dense row, absent players taking the
 * values of a baseline row or of each row of a background set
 * (interventional expectation, MODELS.md).
 *
 * Every value the samplers need is the value of a coalition S of a row
 * x: v(S) = mean over the K background rows b_k of f(x_S, b_k,~S). Row i
 * has a list of coalitions to evaluate (index 0 the empty one); each
 * emits K consecutive perturbed rows. A generator walks the rows and their
 * coalitions and fills batches of at most B rows, so one call of f serves
 * many coalitions and many rows, and a row is finished as soon as its
 * last coalition is back. The K values of a coalition are summed in the
 * order k = 0..K-1 whatever the batches, so the results do not depend on
 * the batch size. The full coalition is x itself: its value is f(x) from
 * the first pass, which makes efficiency hold per permutation.
 *
 * The same generator serves the coalition methods (KernelSHAP, LIME,
 * occlusion: ee_coalition_fn): a row's coalitions are then the list the
 * method draws for it (index 0 the empty one, 1 + j the j-th listed), and
 * the method solves for the values once they are back. */
#include "attr_common.h"
#include "coalition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ee_sv_permutation(uint64_t seed, long row, int k, int n, int *perm)
{
    EeRng rng;
    ee_rng_stream(&rng, seed, (uint64_t)row, (uint64_t)k);
    ee_rng_permutation(&rng, n, perm);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* player[f] in 0..P-1 or -1 (not a player); size[p] columns of player p.
 * Returns P, or -1 for a negative id. size may be NULL. */
static int map_players(const int32_t *groups, int F, int *player, int *size)
{
    if (!groups) {
        for (int f = 0; f < F; f++) {
            player[f] = f;
            if (size) size[f] = 1;
        }
        return F;
    }
    int32_t *ids = malloc(sizeof(int32_t) * (F ? F : 1));
    if (!ids) return -2;
    int n = 0;
    for (int f = 0; f < F; f++) {
        if (groups[f] < 0) { free(ids); return -1; }
        if (groups[f] > 0) ids[n++] = groups[f];
    }
    qsort(ids, (size_t)n, sizeof *ids, cmp_i32);
    int P = 0;
    for (int j = 0; j < n; j++)
        if (j == 0 || ids[j] != ids[j - 1]) ids[P++] = ids[j];
    if (size) memset(size, 0, sizeof(int) * (P ? P : 1));
    for (int f = 0; f < F; f++) {
        player[f] = -1;
        if (groups[f] == 0) continue;
        const int32_t *hit = bsearch(&groups[f], ids, (size_t)P, sizeof *ids, cmp_i32);
        player[f] = (int)(hit - ids);
        if (size) size[player[f]]++;
    }
    free(ids);
    return P;
}

int ee_fn_players(const int32_t *groups, int F)
{
    if (!groups) return F;
    int *player = malloc(sizeof(int) * (F ? F : 1));
    if (!player) return -1;
    int P = map_players(groups, F, player, NULL);
    free(player);
    return P < 0 ? -1 : P;
}

/* How a row's coalitions are listed. */
enum { MODE_SAMPLING, MODE_EXACT, MODE_LIST };

/* Coalitions of one row. Sampling: 0 = empty, 1 + k (P-1) + j = the first
 * j + 1 players of permutation k (j < P - 1; the P-th is x). Exact: c is
 * the bit set of the players, 0 .. 2^P - 2 (2^P - 1 is x). List: 0 =
 * empty, 1 + j = row j of Z. */
typedef struct {
    int *perm;      /* sampling: steps x P */
    uint8_t *Z;     /* list: the method's coalitions, (ncoal - 1) x P */
    double *w;      /* list: their weights */
    double *vals;   /* ncoal sums of f over the K background rows */
    long ncoal;
    long pending;   /* perturbed rows not yet evaluated (ncoal K) */
} RowState;

static void row_free(RowState *q)
{
    if (!q) return;
    free(q->perm);
    free(q->Z);
    free(q->w);
    free(q->vals);
    free(q);
}

typedef struct {
    const EeScoreFn *f;
    const double *X;
    const EeFnPlayers *pl;
    const EeAttrOptions *o;
    int mode, exact, F, P, K, B, C;
    const EeCoalitionList *L; /* list: who lists a row's coalitions and solves */
    long nlist;               /* list: its coalitions per row (L->n) */
    const int *player, *size;
    const int *slot;          /* player[f], or P for the columns of no player
                                 (present[P] is always 1) */
    const int *col_start, *cols; /* the columns of player p: cols[col_start[p] ..
                                    col_start[p+1]) */
    const double *bg;         /* K x F (zeros when pl has none) */
    double *buf;              /* B x F, row-major (no columns hook) */
    /* the batch being filled: buf row-major (ld 0), or the front end's
     * array from f->columns, column-major with leading dimension ld */
    double *dst;
    int ld;
    /* column-major: the last rows generated, row-major (TILE x F), put
     * into dst a tile at a time: written one row at a time, a row of a
     * column-major array is F stores ld apart, and ld a power of two maps
     * them all onto a few cache sets */
    double *tile;
    int tile_j0, tile_n;
    long total;               /* rows of all batches after the first pass */
    long calls, rows;
    double t_eval;
} Ctx;

/* One call of f on the first M rows of the buffer; checks the scores. */
static EeStatus call_f(Ctx *c, int M, const double **y)
{
    int C = 0;
    double t0 = ee_now();
    c->calls++;
    EeStatus st = c->f->eval(c->f->ctx, c->ld ? NULL : c->buf, M, c->F, c->calls, y, &C);
    c->t_eval += ee_now() - t0;
    c->rows += M;
    if (st) return st;
    return ee_fn_check(c->calls, M, 0, *y, NULL, C, &c->C);
}

enum { TILE = 16 };

/* n rows (row-major, F apart) into rows j0.. of the column-major batch:
 * per column n consecutive values, whole cache lines. */
static void put_rows(Ctx *c, const double *src, int j0, int n)
{
    for (int f = 0; f < c->F; f++) {
        double *d = c->dst + (size_t)f * c->ld + j0;
        for (int t = 0; t < n; t++) d[t] = src[(size_t)t * c->F + f];
    }
}

static void tile_flush(Ctx *c)
{
    if (c->tile_n) put_rows(c, c->tile, c->tile_j0, c->tile_n);
    c->tile_n = 0;
}

/* Where the next batch of M rows goes: the front end's column-major
 * array when it offers one, else the row-major buffer. */
static EeStatus batch_start(Ctx *c, int M)
{
    c->dst = c->buf;
    c->ld = 0;
    if (!c->f->columns) return EE_OK;
    c->dst = c->f->columns(c->f->ctx, M, c->F);
    c->ld = M;
    c->tile_n = 0;
    return c->dst ? EE_OK : ee_fail(EE_ERR_NOMEM, "out of memory for a batch of %d rows of f", M);
}

EeStatus ee_fn_check(long call, int M, int F, const double *y, const double *g, int C, int *C_known)
{
    if (!y || C < 1 || (F > 0 && !g))
        return ee_fail(EE_ERR_INPUT, "call %ld of f (%d rows) returned no scores", call, M);
    if (*C_known && C != *C_known)
        return ee_fail(EE_ERR_INPUT, "call %ld of f (%d rows) returned %d scores per row; the first call returned %d",
                       call, M, C, *C_known);
    *C_known = C;
    for (size_t t = 0; t < (size_t)M * C; t++)
        if (!isfinite(y[t]))
            return ee_fail(EE_ERR_INPUT, "call %ld of f (%d rows) returned %s at row %zu, score %zu: f must return finite scores",
                           call, M, isnan(y[t]) ? "NaN" : "Inf", t % M + 1, t / M + 1);
    for (size_t t = 0; F > 0 && t < (size_t)M * F * C; t++)
        if (!isfinite(g[t]))
            return ee_fail(EE_ERR_INPUT, "call %ld of f (%d rows) returned a gradient of %s at row %zu, column %zu, score %zu",
                           call, M, isnan(g[t]) ? "NaN" : "Inf", t % M + 1, t / M % F + 1, t / ((size_t)M * F) + 1);
    return EE_OK;
}

/* Per column, all ones where the column takes x's value in the
 * coalition `present`, zeros where the background's. */
static void column_mask(const Ctx *c, const uint8_t *present, uint64_t *mask)
{
    for (int f = 0; f < c->F; f++) mask[f] = (uint64_t)0 - present[c->slot[f]];
}

/* Writes into buffer row j the row x with the absent players' columns
 * taken from background row k. A bitwise select, not a branch: which
 * columns are present is random, and a mispredicted branch per element
 * cost more than everything else outside f. */
static void emit_row(Ctx *c, const double *x, const uint64_t *mask, int k, int j)
{
    const double *b = c->bg + (size_t)k * c->F;
    const uint64_t *m = mask;
    double *dst = c->dst + (size_t)j * c->F;
    if (c->ld) { /* column-major: into the tile, which goes out when full */
        if (c->tile_n == TILE) tile_flush(c);
        if (c->tile_n == 0) c->tile_j0 = j;
        dst = c->tile + (size_t)c->tile_n++ * c->F;
    }
    /* vectorised on request: GCC's -O2 leaves this loop scalar */
    #pragma omp simd
    for (int f = 0; f < c->F; f++) {
        uint64_t xv, bv, v;
        memcpy(&xv, x + f, 8);
        memcpy(&bv, b + f, 8);
        v = (xv & m[f]) | (bv & ~m[f]);
        memcpy(dst + f, &v, 8);
    }
}

/* present[0..P-1] (present[P] = 1) and the column mask of a row's
 * coalition. Sampling: step j (0 .. P-2) of permutation k, the first
 * j + 1 players of the permutation, or the empty coalition for k < 0;
 * step j > 0 extends step j - 1 by one player and changes that player's
 * columns only. Exact: the bit set `bits`. */
static void coalition_mask(const Ctx *c, const RowState *q, long k, long j, long bits, uint8_t *present,
                           uint64_t *mask)
{
    if (c->mode == MODE_LIST) {
        memset(present, 0, (size_t)c->P);
        present[c->P] = 1;
        if (bits > 0) memcpy(present, q->Z + (size_t)(bits - 1) * c->P, (size_t)c->P);
        column_mask(c, present, mask);
        return;
    }
    if (c->mode == MODE_SAMPLING && k >= 0 && j > 0) {
        int p = q->perm[(size_t)k * c->P + j];
        present[p] = 1;
        for (int t = c->col_start[p]; t < c->col_start[p + 1]; t++) mask[c->cols[t]] = ~(uint64_t)0;
        return;
    }
    memset(present, 0, (size_t)c->P);
    present[c->P] = 1;
    if (c->exact)
        for (int p = 0; p < c->P; p++) present[p] = (uint8_t)(bits >> p & 1);
    else if (k >= 0)
        for (long t = 0; t <= j; t++) present[q->perm[(size_t)k * c->P + t]] = 1;
    column_mask(c, present, mask);
}

/* The first pass: f(x) of every row, the targets and C. */
static EeStatus first_pass(Ctx *c, int N, int32_t *target, double *fx)
{
    for (int i0 = 0; i0 < N; i0 += c->B) {
        int M = N - i0 < c->B ? N - i0 : c->B;
        if (ee_interrupted()) return ee_fail(EE_ERR_INTERRUPTED, "interrupted during SV of f");
        EeStatus st = batch_start(c, M);
        if (st) return st;
        const double *xs = c->X + (size_t)i0 * c->F;
        if (c->ld)
            for (int j = 0; j < M; j += TILE) put_rows(c, xs + (size_t)j * c->F, j, M - j < TILE ? M - j : TILE);
        else
            memcpy(c->buf, xs, sizeof(double) * (size_t)M * c->F);
        const double *y;
        if ((st = call_f(c, M, &y))) return st;
        for (int j = 0; j < M; j++) {
            int i = i0 + j, t = 0;
            if (c->o->target) {
                t = c->o->target[i];
                if (t < 0 || t >= c->C)
                    return ee_fail(EE_ERR_INPUT, "'target' of row %d is %d but f returns %d score%s per row", i + 1, t + 1,
                                   c->C, c->C == 1 ? "" : "s");
            } else {
                for (int k = 1; k < c->C; k++)
                    if (y[j + (size_t)k * M] > y[j + (size_t)t * M]) t = k;
            }
            target[i] = t;
            fx[i] = y[j + (size_t)t * M];
        }
    }
    return EE_OK;
}

static EeStatus row_new(const Ctx *c, int i, RowState **out)
{
    RowState *q = calloc(1, sizeof *q);
    if (!q) return ee_fail(EE_ERR_NOMEM, "out of memory");
    int P = c->P, s = c->o->steps;
    if (P == 0) q->ncoal = 0;
    else if (c->mode == MODE_EXACT) q->ncoal = (1L << P) - 1;
    else if (c->mode == MODE_LIST) q->ncoal = 1 + c->nlist;
    else q->ncoal = 1 + (long)s * (P - 1);
    q->vals = calloc((size_t)q->ncoal + 1, sizeof(double));
    if (c->mode == MODE_SAMPLING) q->perm = malloc(sizeof(int) * ((size_t)s * P + 1));
    if (c->mode == MODE_LIST) {
        q->Z = malloc((size_t)c->nlist * P + 1);
        q->w = malloc(sizeof(double) * ((size_t)c->nlist + 1));
    }
    if (!q->vals || (c->mode == MODE_SAMPLING && !q->perm) || (c->mode == MODE_LIST && (!q->Z || !q->w))) {
        row_free(q);
        return ee_fail(EE_ERR_NOMEM, "out of memory");
    }
    if (c->mode == MODE_SAMPLING)
        for (int k = 0; k < s; k++) ee_sv_permutation(c->o->seed, c->o->row_offset + i, k, P, q->perm + (size_t)k * P);
    if (c->mode == MODE_LIST && P > 0) {
        EeStatus st = c->L->draw(c->L->ctx, i, c->o->seed, c->o->row_offset + i, P, q->Z, q->w);
        if (st) { row_free(q); return st; }
    }
    q->pending = q->ncoal * c->K;
    *out = q;
    return EE_OK;
}

/* The player values of a finished row from its coalition values. */
static EeStatus row_finish(const Ctx *c, int i, RowState *q, double fx, double *phi, double *var)
{
    int P = c->P, s = c->o->steps;
    double K = c->K, vempty = P ? q->vals[0] / K : fx;
    memset(phi, 0, sizeof(double) * (P ? P : 1));
    if (P == 0) return EE_OK;
    if (c->mode == MODE_LIST) {
        for (long t = 1; t < q->ncoal; t++) q->vals[t] /= K;
        return c->L->solve(c->L->ctx, i, P, c->nlist, q->Z, q->w, q->vals + 1, vempty, fx, phi);
    }
    if (c->mode == MODE_EXACT) {
        /* phi_p = sum over S without p of |S|! (P-|S|-1)! / P! (v(S+p) - v(S)),
         * the weight 1 / (P binom(P-1, |S|)) */
        double w[EE_FN_EXACT_MAX + 1];
        for (int k = 0; k < P; k++) {
            double b = 1;
            for (int t = 1; t <= k; t++) b = b * (P - t) / t;
            w[k] = 1.0 / (P * b);
        }
        long full = (1L << P) - 1;
        for (int p = 0; p < P; p++) {
            double sum = 0;
            for (long S = 0; S < full + 1; S++) {
                if (S >> p & 1) continue;
                long T = S | (1L << p);
                double vs = q->vals[S] / K, vt = T == full ? fx : q->vals[T] / K;
                sum += w[__builtin_popcountl((unsigned long)S)] * (vt - vs);
            }
            phi[p] = sum;
        }
        return EE_OK;
    }
    double *sq = var;
    if (sq) memset(sq, 0, sizeof(double) * P);
    for (int k = 0; k < s; k++) {
        const int *perm = q->perm + (size_t)k * P;
        double prev = vempty;
        for (int j = 0; j < P; j++) {
            double v = j < P - 1 ? q->vals[1 + (size_t)k * (P - 1) + j] / K : fx, d = v - prev;
            phi[perm[j]] += d;
            if (sq) sq[perm[j]] += d * d;
            prev = v;
        }
    }
    for (int p = 0; p < P; p++) {
        double mean = phi[p] / s;
        if (var) {
            double v = s > 1 ? (sq[p] - s * mean * mean) / (s - 1) : 0;
            var[p] = v > 0 ? v : 0;
        }
        phi[p] = mean;
    }
    return EE_OK;
}

static EeStatus sv_fn_run(Ctx *c, int N, const int32_t *target, const double *fx, double *A, EeFnInfo *info,
                          double *phi)
{
    int P = c->P, F = c->F, K = c->K, B = c->B;
    EeStatus st = EE_OK;
    RowState **rs = calloc((size_t)N + 1, sizeof *rs);
    int *row_i = malloc(sizeof(int) * B);
    long *row_c = malloc(sizeof(long) * B);
    uint8_t *present = malloc((size_t)P + 1);
    uint64_t *mask = malloc(sizeof(uint64_t) * F);
    if (!rs || !row_i || !row_c || !present || !mask) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for SV buffers (batch %d)", B);
        goto done;
    }
    EeProgress prog;
    ee_progress_start_rows(&prog, c->o,
                           c->mode == MODE_EXACT ? "exact Shapley" : c->mode == MODE_LIST ? "coalitions" : "sv", N);
    /* generator: background row gk of coalition gc of row gi; sampling:
     * coalition gc >= 1 is step gj of permutation gp */
    int gi = 0, gk = 0, finished = 0;
    long gc = 0, gp = -1, gj = 0, left = c->total;
    while (finished < N && !st) {
        if (ee_interrupted()) {
            st = ee_fail(EE_ERR_INTERRUPTED, "interrupted during SV of f");
            break;
        }
        /* the generator below fills min(B, rows left) rows: the batch's
         * size is known before its first row */
        int want = left < B ? (int)left : B;
        if (want > 0 && (st = batch_start(c, want))) break;
        int nb = 0;
        while (nb < B && gi < N) {
            if (!rs[gi]) {
                if ((st = row_new(c, gi, &rs[gi]))) break;
                gc = 0;
                gk = 0;
                gp = -1;
                gj = 0;
            }
            RowState *q = rs[gi];
            /* past a row's last coalition at once: once its rows are back
             * it is finished and freed, and must not be started again */
            if (gc >= q->ncoal) { gi++; continue; }
            if (gk == 0) coalition_mask(c, q, gp, gj, gc, present, mask);
            emit_row(c, c->X + (size_t)gi * F, mask, gk, nb);
            row_i[nb] = gi;
            row_c[nb] = gc;
            nb++;
            if (++gk == K) {
                gk = 0;
                if (++gc >= q->ncoal) gi++;
                if (gp < 0 || ++gj == P - 1) { gp++; gj = 0; } /* the next step, or a new permutation */
            }
        }
        if (st) break;
        if (c->ld) tile_flush(c);
        if (nb != want) {
            st = ee_fail(EE_ERR_INPUT, "internal error: SV of f made a batch of %d rows where %d were due", nb, want);
            break;
        }
        left -= nb;
        if (nb > 0) {
            const double *y;
            if ((st = call_f(c, nb, &y))) break;
            for (int j = 0; j < nb; j++) {
                RowState *q = rs[row_i[j]];
                q->vals[row_c[j]] += y[j + (size_t)target[row_i[j]] * nb];
                q->pending--;
            }
        }
        while (finished < N && rs[finished] && rs[finished]->pending == 0) {
            RowState *q = rs[finished];
            double *var = c->mode == MODE_SAMPLING && info && info->variance ? info->variance + (size_t)finished * P : NULL;
            if ((st = row_finish(c, finished, q, fx[finished], phi, var))) break;
            double sum = 0;
            for (int p = 0; p < P; p++) sum += phi[p];
            double fe = P ? q->vals[0] / K : fx[finished];
            if (info && info->players) memcpy(info->players + (size_t)finished * P, phi, sizeof(double) * P);
            if (info && info->fempty) info->fempty[finished] = fe;
            if (info && info->delta) info->delta[finished] = sum - (fx[finished] - fe);
            double *a = A ? A + (size_t)finished * F : NULL;
            for (int f = 0; a && f < F; f++) a[f] = c->player[f] < 0 ? 0 : phi[c->player[f]] / c->size[c->player[f]];
            row_free(q);
            rs[finished] = NULL;
            finished++;
        }
        ee_progress_tick(&prog, finished);
    }
    ee_progress_end(&prog, finished, c->rows);
done:
    if (rs)
        for (int i = 0; i < N; i++) row_free(rs[i]);
    free(rs); free(row_i); free(row_c); free(present); free(mask);
    return st;
}

/* ee_sv_fn and ee_coalition_list_fn: mode MODE_*, L the lister of
 * MODE_LIST (A may then be NULL). */
static EeStatus fn_main(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl, const EeAttrOptions *o,
                        int mode, const EeCoalitionList *L, double *A, EeFnInfo *info)
{
    int exact = mode == MODE_EXACT;
    if (!f || !f->eval || !pl || !o || (N > 0 && (!X || (!A && mode != MODE_LIST))) ||
        (mode == MODE_LIST && (!L || !L->draw || !L->solve)))
        return ee_fail(EE_ERR_INPUT, "SV of f: missing argument");
    int F = pl->F, K = pl->background ? pl->K : 1;
    if (N < 0 || F < 1) return ee_fail(EE_ERR_INPUT, "SV of f: X must have at least one column (got %d)", F);
    if (K < 1) return ee_fail(EE_ERR_INPUT, "the background must have at least one row");
    if (mode == MODE_SAMPLING && o->steps < 1) return ee_fail(EE_ERR_INPUT, "'samples' must be >= 1, got %d", o->steps);
    if (mode != MODE_EXACT && o->perms)
        return ee_fail(EE_ERR_UNSUPPORTED, "explicit permutations are not supported for a function");
    for (size_t t = 0; pl->background && t < (size_t)K * F; t++)
        if (!isfinite(pl->background[t]))
            return ee_fail(EE_ERR_INPUT, "the background's row %zu, column %zu is NaN or Inf", t / F + 1, t % F + 1);
    for (size_t t = 0; t < (size_t)N * F; t++)
        if (!isfinite(X[t])) return ee_fail(EE_ERR_INPUT, "X(%zu,%zu) is NaN or Inf", t / F + 1, t % F + 1);
    double t0 = ee_now();
    Ctx c = {.f = f, .X = X, .pl = pl, .o = o, .mode = mode, .exact = exact, .F = F, .K = K, .L = L};
    EeStatus st = EE_OK;
    int *player = malloc(sizeof(int) * F), *size = malloc(sizeof(int) * F), *slot = malloc(sizeof(int) * F);
    int *cols = malloc(sizeof(int) * F), *col_start = NULL;
    double *zeros = NULL, *fx = NULL, *phi = NULL;
    int32_t *target = NULL;
    if (!player || !size || !slot || !cols) { st = ee_fail(EE_ERR_NOMEM, "out of memory"); goto done; }
    int P = map_players(pl->groups, F, player, size);
    if (P < 0) {
        st = P == -1 ? ee_fail(EE_ERR_INPUT, "'groups' must hold player ids >= 0 (0: not a player)")
                     : ee_fail(EE_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (exact && P > EE_FN_EXACT_MAX) {
        st = ee_fail(EE_ERR_INPUT, "exact Shapley values enumerate 2^P coalitions: %d players (at most %d; use sampling or 'groups')",
                     P, EE_FN_EXACT_MAX);
        goto done;
    }
    /* the players' columns, for the masks (CSR: cols[col_start[p] ..]) */
    if (!(col_start = calloc((size_t)P + 2, sizeof(int)))) { st = ee_fail(EE_ERR_NOMEM, "out of memory"); goto done; }
    for (int p = 0; p < P; p++) col_start[p + 1] = col_start[p] + size[p];
    for (int f = 0; f < F; f++) {
        slot[f] = player[f] < 0 ? P : player[f];
        if (player[f] >= 0) cols[col_start[player[f]] + --size[player[f]]] = f;
    }
    for (int p = 0; p < P; p++) size[p] = col_start[p + 1] - col_start[p]; /* counted down above */
    if (mode == MODE_LIST) {
        c.nlist = P ? L->count(L->ctx, P) : 0;
        if (c.nlist < 0) {
            st = ee_fail(EE_ERR_INPUT, "invalid options of the coalition method ('samples' >= 1, coalitions of "
                         "%d players, weights >= 0, ridge >= 0)", P);
            goto done;
        }
    }
    c.P = P;
    c.player = player;
    c.size = size;
    c.slot = slot;
    c.col_start = col_start;
    c.cols = cols;
    /* no batch larger than the rows there are to evaluate */
    long per_row = P == 0 ? 0 : exact ? ((1L << P) - 1) * K
                 : mode == MODE_LIST ? (1 + c.nlist) * K : (1 + (long)o->steps * (P - 1)) * K;
    double total = (double)N * per_row;
    long B = o->batch > 0 ? o->batch : 1024;
    if (B > N && B > total) B = (long)(total > N ? total : N);
    c.B = B > 0 ? (int)B : 1;
    zeros = pl->background ? NULL : calloc((size_t)F, sizeof(double));
    c.bg = pl->background ? pl->background : zeros;
    c.total = (long)N * per_row;
    /* a front end that offers its own array gets the rows there */
    c.buf = f->columns ? NULL : malloc(sizeof(double) * (size_t)c.B * F);
    c.tile = f->columns ? malloc(sizeof(double) * TILE * (size_t)F) : NULL;
    target = malloc(sizeof(int32_t) * (N ? N : 1));
    fx = malloc(sizeof(double) * (N ? N : 1));
    phi = malloc(sizeof(double) * (P ? P : 1));
    if (!c.bg || (!c.buf && !c.tile) || !target || !fx || !phi) {
        st = ee_fail(EE_ERR_NOMEM, "out of memory for SV of f (batch %d)", c.B);
        goto done;
    }
    if (!st) st = first_pass(&c, N, target, fx);
    if (!st) st = sv_fn_run(&c, N, target, fx, A, info, phi);
    if (!st) ee_fn_info_rows(info, N, target, fx);
done:
    ee_fn_info_totals(info, c.rows, c.calls, c.t_eval, t0);
    free(player); free(size); free(slot); free(cols); free(col_start);
    free(zeros); free(c.buf); free(c.tile); free(target); free(fx); free(phi);
    return st;
}

EeStatus ee_sv_fn(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl,
                  const EeAttrOptions *o, int exact, double *A, EeFnInfo *info)
{
    return fn_main(f, X, N, pl, o, exact ? MODE_EXACT : MODE_SAMPLING, NULL, A, info);
}

EeStatus ee_coalition_list_fn(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl,
                              const EeAttrOptions *o, const EeCoalitionList *L, double *A, EeFnInfo *info)
{
    return fn_main(f, X, N, pl, o, MODE_LIST, L, A, info);
}

/* A coalition method as a lister: its draw and solve, the same for every row. */
static long method_count(void *ctx, int P) { return ee_coalition_count(ctx, P); }

static EeStatus method_draw(void *ctx, int i, uint64_t seed, long row, int P, uint8_t *Z, double *w)
{
    (void)i;
    return ee_coalition_draw(ctx, seed, row, P, Z, w);
}

static EeStatus method_solve(void *ctx, int i, int P, long n, const uint8_t *Z, const double *w, const double *v,
                             double v0, double v1, double *phi)
{
    (void)i;
    return ee_coalition_solve(ctx, P, n, Z, w, v, v0, v1, phi);
}

EeStatus ee_coalition_fn(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl, const EeAttrOptions *o,
                         const EeCoalitionOptions *m, double *A, EeFnInfo *info)
{
    if (!m) return ee_fail(EE_ERR_INPUT, "coalition method of f: missing argument");
    if (N > 0 && !A) return ee_fail(EE_ERR_INPUT, "SV of f: missing argument");
    EeCoalitionList L = {method_count, method_draw, method_solve, (void *)m};
    return ee_coalition_list_fn(f, X, N, pl, o, &L, A, info);
}

int ee_fn_player_map(const int32_t *groups, int F, int *player)
{
    return map_players(groups, F, player, NULL);
}

double ee_sv_fn_bytes(int N, int F, int P, int K, const EeAttrOptions *o, int exact)
{
    double B = o->batch > 0 ? o->batch : 1024;
    double ncoal = P <= 0 ? 0 : exact ? ldexp(1.0, P) : 1 + (double)o->steps * (P - 1);
    /* rows in flight: at most the rows of one batch, plus the one being filled */
    double live = ncoal * K > 0 ? B / (ncoal * K) + 2 : 1;
    if (live > N + 1.0) live = N + 1.0;
    return B * F * 8 + B * 12 + (double)N * 20 + (double)F * 16 + live * (ncoal * 8 + (exact ? 0 : (double)o->steps * P * 4) + 64);
}

double ee_coalition_fn_bytes(int N, int F, int P, int K, const EeAttrOptions *o, const EeCoalitionOptions *m)
{
    double B = o->batch > 0 ? o->batch : 1024;
    long n = P > 0 ? ee_coalition_count(m, P) : 0;
    double ncoal = n > 0 ? 1.0 + n : 1;
    double live = B / (ncoal * K) + 2;
    if (live > N + 1.0) live = N + 1.0;
    /* a row: values, coalitions, weights; the solve: a (P + 1)^2 system */
    return B * F * 8 + B * 12 + (double)N * 20 + (double)F * 16 + live * (ncoal * (9.0 + P) + 64) +
           8.0 * (P + 3) * (P + 3);
}
