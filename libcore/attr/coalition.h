/* coalition.h: the coalition methods' pieces inside libcore (the public
 * entry points are in ee.h): KernelSHAP (kernelshap.c), LIME (lime.c) and
 * leave-one-out occlusion (coalition.c), each a draw of the coalitions a
 * row needs and a solve from their values, generic over who evaluates
 * the values. */
#ifndef EE_COALITION_H
#define EE_COALITION_H

#include "../ee.h"

/* Stream ids (the b of ee_rng_stream (seed, row, b)) of coalition j:
 * apart from SV's permutations (b = k, small) and from each other. */
#define EE_KERNELSHAP_STREAM (0x4B53ull << 32)
#define EE_LIME_STREAM (0x4C4Dull << 32)
/* expected gradients' draw of a row's baselines (one stream per row) */
#define EE_EG_STREAM (0x4547ull << 32)

/* coalition_model.c: the work (about count n^2 operations of the solves
 * summed over the rows; occlusion: count n) from which
 * ee_coalition_attribute draws and solves its rows in parallel. Tests: 0
 * for always, a negative value for the default. Not while a call runs. */
void ee_coalition_set_parallel_work(double work);

/* spd_solve.c: solves G u = r in place (r becomes u) for the n x n symmetric G
 * (row-major, overwritten by its Cholesky factor). Returns 0, or -1 when
 * a pivot falls to 1e-10 of G's largest diagonal entry or below (G is
 * singular up to rounding: the data do not determine u). */
int ee_spd_solve(int n, double *G, double *r);

/* KernelSHAP (kernelshap.c). */
double ee_kernelshap_weight(int P, int s);
long ee_kernelshap_count(const EeCoalitionOptions *m, int P);
EeStatus ee_kernelshap_draw(const EeCoalitionOptions *m, uint64_t seed, long row, int P, uint8_t *Z, double *w);
EeStatus ee_kernelshap_solve(int P, long n, const uint8_t *Z, const double *w, const double *v, double v0,
                             double v1, double *phi);

/* LIME (lime.c). */
double ee_lime_weight(const EeCoalitionOptions *m, int P, int s);
EeStatus ee_lime_draw(const EeCoalitionOptions *m, uint64_t seed, long row, int P, uint8_t *Z, double *w);
EeStatus ee_lime_solve(const EeCoalitionOptions *m, int P, long n, const uint8_t *Z, const double *w,
                       const double *v, double *phi);

/* The lister of a row's coalitions behind ee_coalition_fn, open to any
 * method that explains or measures a row from coalition values (the
 * faithfulness of a map, faith_fn.c): count (the coalitions per row for P
 * players, -1: bad options), draw (row i's, i its index in the call, row
 * its stream key, Z count x P bytes, 1 = present, and their weights) and
 * solve (from their values v, v0 = v(empty), v1 = v(all) = f(x); phi P
 * values). sv_fn.c evaluates the values for a function, batched across
 * rows. */
typedef struct {
    long (*count)(void *ctx, int P);
    EeStatus (*draw)(void *ctx, int i, uint64_t seed, long row, int P, uint8_t *Z, double *w);
    EeStatus (*solve)(void *ctx, int i, int P, long n, const uint8_t *Z, const double *w, const double *v, double v0,
                      double v1, double *phi);
    void *ctx;
} EeCoalitionList;
/* ee_coalition_fn with any lister; A (N x F, a player's value spread over
 * its columns) may be NULL. */
EeStatus ee_coalition_list_fn(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl,
                              const EeAttrOptions *o, const EeCoalitionList *L, double *A, EeFnInfo *info);
/* The player of each column (0..P-1, -1: none) of a grouping as in
 * EeFnPlayers; returns P, -1 for a negative id, -2 out of memory. */
int ee_fn_player_map(const int32_t *groups, int F, int *player);

#endif
