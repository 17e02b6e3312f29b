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

#endif
