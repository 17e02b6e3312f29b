/* faith_fn.c: the faithfulness of attribution maps of a model given as a
 * function (ee_faithfulness_fn; doc/MODELS.md, "Faithfulness of a map"):
 * the measures of faithfulness.c, with the players of ee_sv_fn (columns
 * or groups of columns) and an absent player taking the baseline's
 * values (or the background's, averaged over its rows).
 *
 * Every copy a measure reads is a coalition of the row's players (x
 * without its top j players, the baseline with only them, x without a
 * random subset), so the measure is a coalition method: it lists a row's
 * coalitions from its map and computes the measures from their values,
 * and sv_fn.c's generator evaluates them, batched across rows, as it
 * does for KernelSHAP and LIME. The score is f's own output for the
 * target (f's scores need not be probabilities, so no log-odds). */
#define _GNU_SOURCE /* qsort_r */
#include "attr_common.h"
#include "coalition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const EeFaithOptions *f;
    const double *A;   /* N x Acols */
    int Acols, F;
    const int *player; /* column -> player (-1: none), for Acols = F */
    double *score;     /* P: the row's player scores */
    int *order;        /* P: the players, largest score first */
    char *need;        /* P + 2 */
    double *D, *I;     /* P + 1: the deletion and insertion values */
    EeFaithResult *res;
} Faith;

/* the infidelity's subset k of row `row`: as faithfulness.c's, one uniform
 * per player in order of player */
#define EE_FAITH_SUBSET_STREAM (3ull << 32)

static int by_score(const void *pa, const void *pb, void *scores)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    double sa = ((const double *)scores)[a], sb = ((const double *)scores)[b];
    if (sa != sb) return sa > sb ? -1 : 1;
    return (a > b) - (a < b);
}

/* Row i's player scores (a player's columns summed when A has one score
 * per column), its order and the counts the measures read. */
static void row_order(Faith *c, int i, int P)
{
    const double *a = c->A + (size_t)i * c->Acols;
    if (c->Acols == c->F) {
        memset(c->score, 0, sizeof(double) * P);
        for (int f = 0; f < c->F; f++)
            if (c->player[f] >= 0) c->score[c->player[f]] += a[f];
    } else
        memcpy(c->score, a, sizeof(double) * P);
    for (int p = 0; p < P; p++) c->order[p] = p;
    qsort_r(c->order, (size_t)P, sizeof(int), by_score, c->score);
    ee_faith_mark_needed(c->need, P, c->f->steps, P);
}

/* the deletion copy at j = P is the empty coalition, which the generator
 * evaluates anyway (v0) */
static long faith_count(void *ctx, int P)
{
    Faith *c = ctx;
    if (P < 1) return 0;
    return ee_faith_mark_needed(c->need, P, c->f->steps, P) - 1 + c->f->infidelity_samples;
}

static EeStatus faith_draw(void *ctx, int i, uint64_t seed, long row, int P, uint8_t *Z, double *w)
{
    Faith *c = ctx;
    row_order(c, i, P);
    long q = 0;
    for (int j = 1; j < P; j++)
        for (int del = 1; del >= 0; del--) {
            if (!(c->need[j] & (del ? 1 : 2))) continue;
            uint8_t *z = Z + (size_t)q * P;
            memset(z, del, (size_t)P);
            for (int t = 0; t < j; t++) z[c->order[t]] = (uint8_t)!del;
            w[q++] = 1;
        }
    for (int k = 0; k < c->f->infidelity_samples; k++) {
        EeRng r;
        ee_rng_stream(&r, seed, (uint64_t)row, EE_FAITH_SUBSET_STREAM + (uint64_t)k);
        uint8_t *z = Z + (size_t)q * P;
        for (int p = 0; p < P; p++) z[p] = !(ee_rng_uniform(&r) < 0.5); /* in S: absent */
        w[q++] = 1;
    }
    return EE_OK;
}

static EeStatus faith_solve(void *ctx, int i, int P, long n, const uint8_t *Z, const double *w, const double *v,
                            double v0, double v1, double *phi)
{
    Faith *c = ctx;
    EeFaithResult *res = c->res;
    (void)w;
    (void)n;
    memset(phi, 0, sizeof(double) * P);
    row_order(c, i, P);
    c->D[0] = v1;
    c->D[P] = v0;
    c->I[0] = v0;
    c->I[P] = v1;
    long q = 0;
    for (int j = 1; j < P; j++) {
        if (c->need[j] & 1) c->D[j] = v[q++];
        if (c->need[j] & 2) c->I[j] = v[q++];
    }
    ee_faith_row_metrics(res, c->f, i, P, c->D, c->I, NAN, NAN);
    if (res->nreal) res->nreal[i] = P;
    /* infidelity: (sum of the map over S - (f(x) - f(x without S)))^2 */
    int m = c->f->infidelity_samples;
    double inf = 0, ss = 0, sd = 0, dd = 0;
    for (int k = 0; k < m; k++, q++) {
        double sa = 0, dz = v1 - v[q];
        for (int p = 0; p < P; p++)
            if (!Z[(size_t)q * P + p]) sa += c->score[p];
        inf += (sa - dz) * (sa - dz) / m;
        ss += sa * sa;
        sd += sa * dz;
        dd += dz * dz;
    }
    if (res->infidelity) res->infidelity[i] = m ? inf : NAN;
    if (res->infidelity_normalized)
        res->infidelity_normalized[i] = m ? fmax(0.0, (dd - (ss > 0 ? sd * sd / ss : 0)) / m) : NAN;
    return EE_OK;
}

EeStatus ee_faithfulness_fn(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl, const double *A,
                            int Acols, const EeAttrOptions *o, const EeFaithOptions *fo, EeFaithResult *res,
                            EeFnInfo *info)
{
    if (!f || !pl || !o || !fo || !res || (N > 0 && (!X || !A)) || N < 0)
        return ee_fail(EE_ERR_INPUT, "faithfulness of f: missing argument");
    int F = pl->F;
    if (F < 1) return ee_fail(EE_ERR_INPUT, "faithfulness of f: X must have at least one column");
    if (fo->steps < 0 || fo->steps > (1 << 20))
        return ee_fail(EE_ERR_INPUT, "'steps' of the curves must be 0 (every count) or 1..%d, got %d", 1 << 20, fo->steps);
    if (fo->infidelity_samples < 0 || fo->infidelity_samples > (1 << 20))
        return ee_fail(EE_ERR_INPUT, "'infidelity' (subsets per row) must be in 0..%d, got %d", 1 << 20,
                       fo->infidelity_samples);
    int *player = malloc(sizeof(int) * F);
    if (!player) return ee_fail(EE_ERR_NOMEM, "out of memory");
    int P = ee_fn_player_map(pl->groups, F, player);
    EeStatus st = EE_OK;
    if (P < 0) st = P == -1 ? ee_fail(EE_ERR_INPUT, "'groups' must hold player ids >= 0 (0: not a player)")
                            : ee_fail(EE_ERR_NOMEM, "out of memory");
    else if (Acols != F && Acols != P)
        st = ee_fail(EE_ERR_INPUT, "the maps must have one score per column of X (%d) or per player (%d), got %d", F, P,
                     Acols);
    for (size_t t = 0; !st && t < (size_t)N * Acols; t++)
        if (!isfinite(A[t]))
            st = ee_fail(EE_ERR_INPUT, "A(%zu,%zu) is %g: the maps must be finite", t / Acols + 1, t % Acols + 1, A[t]);
    if (st) { free(player); return st; }
    Faith c = {.f = fo, .A = A, .Acols = Acols, .F = F, .player = player, .res = res};
    c.score = malloc(sizeof(double) * (P + 1));
    c.order = malloc(sizeof(int) * (P + 1));
    c.need = malloc((size_t)P + 2);
    c.D = malloc(sizeof(double) * (P + 1));
    c.I = malloc(sizeof(double) * (P + 1));
    if (!c.score || !c.order || !c.need || !c.D || !c.I) st = ee_fail(EE_ERR_NOMEM, "out of memory");
    /* rows without players are never solved: their measures are NaN */
    for (int i = 0; i < N && !st; i++) {
        ee_faith_row_metrics(res, fo, i, 0, NULL, NULL, NAN, NAN);
        if (res->infidelity) res->infidelity[i] = NAN;
        if (res->infidelity_normalized) res->infidelity_normalized[i] = NAN;
    }
    EeFnInfo part = {.target = res->target, .fx = res->fx, .fempty = res->fbaseline};
    EeCoalitionList L = {faith_count, faith_draw, faith_solve, &c};
    if (!st) st = ee_coalition_list_fn(f, X, N, pl, o, &L, NULL, &part);
    if (!st) {
        res->forward = part.rows;
        res->seconds = part.seconds;
    }
    if (info) {
        info->rows = part.rows;
        info->calls = part.calls;
        info->seconds = part.seconds;
        info->seconds_eval = part.seconds_eval;
    }
    free(player); free(c.score); free(c.order); free(c.need); free(c.D); free(c.I);
    return st;
}

double ee_faithfulness_fn_bytes(int N, int F, int P, int K, const EeAttrOptions *o, const EeFaithOptions *fo)
{
    double B = o->batch > 0 ? o->batch : 1024;
    /* at most 2 P copies per row, and the infidelity's subsets */
    double ncoal = 2.0 * P + 1 + fo->infidelity_samples;
    double live = B / (ncoal * K) + 2;
    if (live > N + 1.0) live = N + 1.0;
    return B * F * 8 + B * 12 + (double)N * 20 + (double)F * 24 + live * (ncoal * (9.0 + P) + 64) + 40.0 * (P + 2);
}
