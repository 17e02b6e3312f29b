/* test_rng.c: the one random generator of libcore (ee_rng_*, splitmix64
 * seeding of xoshiro256**):
 * - the algorithm: ee_rng_seed/ee_rng_next reproduce an independent
 *   implementation of splitmix64 + xoshiro256** (published constants, and
 *   the known first splitmix64 output for seed 0), uniform = top 53 bits;
 * - determinism for a seed; different seeds differ;
 * - streams (ee_rng_stream): reproducible, pairwise different for a grid
 *   of (a, b), not symmetric in (a, b), different from the plain seed;
 * - ee_rng_uniform in [0, 1), mean/variance within 5 sigma, 16-bin
 *   chi-square;
 * - ee_rng_below: in range, n <= 1 gives 0, chi-square for small n, and
 *   the top range of a huge n (where a modulo method would be biased);
 * - ee_rng_permutation: always a permutation; the 6 orders of 3 items are
 *   equally frequent (chi-square); element positions for n = 5 uniform;
 * - ee_rng_normal: finite, mean, variance, P(|z| < 1), 4th moment.
 * Chi-square bounds use the upper quantile at z = 4 (p ~ 3e-5) and every
 * seed is fixed, so a pass is deterministic. */
#include "check.h"
#include "gradcheck.h"
#include "ee.h"

#include <stdint.h>
#include <string.h>

/* ---- independent reference of the documented algorithm -------------------- */
static uint64_t ref_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t ref_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** 1.0 (Blackman & Vigna) */
static uint64_t ref_next(uint64_t s[4])
{
    uint64_t result = ref_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ref_rotl(s[3], 45);
    return result;
}

static void test_algorithm(void)
{
    /* splitmix64 from state 0: first output 0xe220a8397b1dcdaf (reference value) */
    uint64_t x = 0;
    CHECK(ref_splitmix(&x) == 0xE220A8397B1DCDAFULL, "splitmix64 reference constant");

    const uint64_t seeds[] = {0, 1, 42, 0xFFFFFFFFFFFFFFFFULL, 0x123456789ABCDEFULL};
    for (size_t k = 0; k < sizeof seeds / sizeof *seeds; k++) {
        EeRng r;
        ee_rng_seed(&r, seeds[k]);
        uint64_t s[4], sx = seeds[k];
        for (int i = 0; i < 4; i++) s[i] = ref_splitmix(&sx);
        CHECK(memcmp(r.s, s, sizeof s) == 0, "seed %llu: state is not splitmix64(seed) x 4",
              (unsigned long long)seeds[k]);
        int bad = 0;
        for (int i = 0; i < 1000; i++)
            if (ee_rng_next(&r) != ref_next(s)) bad++;
        CHECK(bad == 0, "seed %llu: %d of 1000 outputs differ from xoshiro256**",
              (unsigned long long)seeds[k], bad);
        /* uniform = (next >> 11) * 2^-53 */
        int badu = 0;
        for (int i = 0; i < 1000; i++) {
            double u = ee_rng_uniform(&r);
            double want = (double)(ref_next(s) >> 11) * 0x1.0p-53;
            if (u != want) badu++;
        }
        CHECK(badu == 0, "seed %llu: %d uniforms are not the top 53 bits", (unsigned long long)seeds[k], badu);
    }
}

static void test_determinism(void)
{
    EeRng a, b, c;
    ee_rng_seed(&a, 12345);
    ee_rng_seed(&b, 12345);
    ee_rng_seed(&c, 12346);
    int same = 1, diff = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t x = ee_rng_next(&a), y = ee_rng_next(&b), z = ee_rng_next(&c);
        same &= x == y;
        diff += x != z;
    }
    CHECK(same, "same seed gives different sequences");
    CHECK(diff >= 9990, "seeds 12345/12346 agree on %d of 10000 outputs", 10000 - diff);

    /* the derived draws are deterministic too */
    ee_rng_seed(&a, 7);
    ee_rng_seed(&b, 7);
    int p1[17], p2[17], ok = 1;
    for (int i = 0; i < 100; i++) {
        ok &= ee_rng_uniform(&a) == ee_rng_uniform(&b);
        ok &= ee_rng_normal(&a) == ee_rng_normal(&b);
        ok &= ee_rng_below(&a, 1000003) == ee_rng_below(&b, 1000003);
        ee_rng_permutation(&a, 17, p1);
        ee_rng_permutation(&b, 17, p2);
        ok &= memcmp(p1, p2, sizeof p1) == 0;
    }
    CHECK(ok, "uniform/normal/below/permutation not reproducible for one seed");
}

static void test_streams(void)
{
    enum { NA = 12, NB = 12 };
    uint64_t first[NA][NB][2];
    for (int a = 0; a < NA; a++)
        for (int b = 0; b < NB; b++) {
            EeRng r;
            ee_rng_stream(&r, 99, (uint64_t)a, (uint64_t)b);
            first[a][b][0] = ee_rng_next(&r);
            first[a][b][1] = ee_rng_next(&r);
        }
    /* all (a, b) give different streams (64-bit collisions are impossible in
     * practice, so any repeat means a degenerate key mix) */
    int collisions = 0;
    for (int i = 0; i < NA * NB; i++)
        for (int j = i + 1; j < NA * NB; j++) {
            const uint64_t *x = first[i / NB][i % NB], *y = first[j / NB][j % NB];
            if (x[0] == y[0] || x[1] == y[1]) collisions++;
        }
    CHECK(collisions == 0, "%d pairs of (a, b) streams start alike", collisions);

    /* reproducible */
    int repro = 1;
    for (int a = 0; a < NA; a += 3)
        for (int b = 0; b < NB; b += 5) {
            EeRng r;
            ee_rng_stream(&r, 99, (uint64_t)a, (uint64_t)b);
            repro &= ee_rng_next(&r) == first[a][b][0] && ee_rng_next(&r) == first[a][b][1];
        }
    CHECK(repro, "ee_rng_stream is not reproducible");

    /* the seed matters; (a, b) is not symmetric; a stream is not the plain seed */
    EeRng r1, r2, r3, r4;
    ee_rng_stream(&r1, 100, 3, 4);
    ee_rng_stream(&r2, 99, 3, 4);
    CHECK(ee_rng_next(&r1) != first[3][4][0], "stream ignores the seed");
    (void)r2;
    CHECK(first[3][4][0] != first[4][3][0], "stream (3,4) equals (4,3)");
    ee_rng_seed(&r3, 99);
    CHECK(ee_rng_next(&r3) != first[0][0][0], "stream (0,0) equals the plain seed");
    /* large keys (as used for tensor / epoch / row indices) */
    ee_rng_stream(&r3, 99, 1ULL << 40, 0);
    ee_rng_stream(&r4, 99, 0, 1ULL << 40);
    CHECK(ee_rng_next(&r3) != ee_rng_next(&r4), "large stream keys collide");

    /* two streams are uncorrelated: mean of u1*u2 ~ 1/4 */
    EeRng s, t;
    ee_rng_stream(&s, 5, 1, 0);
    ee_rng_stream(&t, 5, 2, 0);
    int n = gc_quick() ? 20000 : 200000;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += (ee_rng_uniform(&s) - 0.5) * (ee_rng_uniform(&t) - 0.5);
    double sd = (1.0 / 12.0) / sqrt((double)n); /* sd of the mean of a product of two U-1/2 */
    CHECK(fabs(sum / n) < 5 * sd, "streams (1,0) and (2,0) correlated: E[(u-.5)(v-.5)] = %.3g", sum / n);
}

static void test_uniform(void)
{
    EeRng r;
    ee_rng_seed(&r, 2024);
    int n = gc_quick() ? 100000 : 1000000;
    double s = 0, s2 = 0, lo = 1, hi = 0;
    long bins[16] = {0};
    int out = 0;
    for (int i = 0; i < n; i++) {
        double u = ee_rng_uniform(&r);
        if (!(u >= 0.0 && u < 1.0)) out++;
        s += u;
        s2 += (u - 0.5) * (u - 0.5);
        lo = fmin(lo, u);
        hi = fmax(hi, u);
        int b = (int)(u * 16);
        if (b >= 0 && b < 16) bins[b]++;
    }
    CHECK(out == 0, "%d uniforms outside [0, 1)", out);
    double mean = s / n, var = s2 / n;
    CHECK(fabs(mean - 0.5) < 5 * sqrt(1.0 / 12 / n), "uniform mean %.6f", mean);
    /* Var((U-1/2)^2) = 1/80 - 1/144 = 1/180 */
    CHECK(fabs(var - 1.0 / 12) < 5 * sqrt(1.0 / 180 / n), "uniform variance %.6f (1/12 = %.6f)", var, 1.0 / 12);
    CHECK(lo < 1e-4 && hi > 1 - 1e-4, "uniform range [%.3g, %.3g] too narrow", lo, hi);
    double chi = 0, e = n / 16.0;
    for (int b = 0; b < 16; b++) chi += (bins[b] - e) * (bins[b] - e) / e;
    CHECK(chi < gc_chi2_quantile(15, 4), "uniform 16-bin chi-square %.2f > %.2f", chi, gc_chi2_quantile(15, 4));
    /* edge: the generator can return 0 but never 1 (0 when next() < 2^11) */
    EeRng z = {{0, 0, 0, 0}};
    CHECK(ee_rng_uniform(&z) == 0.0, "all-zero state should give 0");
}

static void test_below(void)
{
    EeRng r;
    ee_rng_seed(&r, 31337);
    CHECK(ee_rng_below(&r, 0) == 0 && ee_rng_below(&r, 1) == 0, "below(0), below(1) must be 0");
    int reps = gc_quick() ? 3000 : 20000; /* draws per category */
    const uint64_t ns[] = {2, 3, 5, 7, 10, 13};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        uint64_t n = ns[k];
        long cnt[16] = {0};
        long total = (long)(reps * n);
        int out = 0;
        for (long i = 0; i < total; i++) {
            uint64_t x = ee_rng_below(&r, n);
            if (x >= n) out++;
            else cnt[x]++;
        }
        CHECK(out == 0, "below(%llu): %d values out of range", (unsigned long long)n, out);
        double chi = 0;
        for (uint64_t c = 0; c < n; c++) chi += (cnt[c] - reps) * (double)(cnt[c] - reps) / reps;
        double q = gc_chi2_quantile((int)n - 1, 4);
        CHECK(chi < q, "below(%llu): chi-square %.2f > %.2f", (unsigned long long)n, chi, q);
    }
    /* Huge n = 3 * 2^62, where both classic shortcuts are badly biased:
     * x mod n puts half of the mass in the lowest third (2^64 = n + 2^62), and
     * a multiply-shift floor(x n / 2^64) without rejection hits every value
     * v = 0 (mod 3) twice as often as the others. Unbiased: 1/3 each. */
    uint64_t n = 3ULL << 62, third = 1ULL << 62;
    long cnt[3] = {0}, res[3] = {0};
    int total = 3 * reps, out = 0;
    for (int i = 0; i < total; i++) {
        uint64_t x = ee_rng_below(&r, n);
        if (x >= n) { out++; continue; }
        cnt[x / third]++;
        res[x % 3]++;
    }
    double chi = 0, chr = 0;
    for (int c = 0; c < 3; c++) {
        chi += (cnt[c] - reps) * (double)(cnt[c] - reps) / reps;
        chr += (res[c] - reps) * (double)(res[c] - reps) / reps;
    }
    CHECK(out == 0, "below(3*2^62): %d out of range", out);
    CHECK(chi < gc_chi2_quantile(2, 4), "below(3*2^62): thirds %ld %ld %ld, chi-square %.2f", cnt[0],
          cnt[1], cnt[2], chi);
    CHECK(chr < gc_chi2_quantile(2, 4), "below(3*2^62): residues mod 3 %ld %ld %ld, chi-square %.2f", res[0],
          res[1], res[2], chr);
    /* n = 2^64 - 1: in range */
    int ok = 1;
    for (int i = 0; i < 1000; i++) ok &= ee_rng_below(&r, UINT64_MAX) < UINT64_MAX;
    CHECK(ok, "below(2^64-1) out of range");
}

static int is_perm(const int *p, int n)
{
    int seen[64] = {0};
    for (int i = 0; i < n; i++) {
        if (p[i] < 0 || p[i] >= n || seen[p[i]]) return 0;
        seen[p[i]] = 1;
    }
    return 1;
}

static void test_permutation(void)
{
    EeRng r;
    ee_rng_seed(&r, 777);
    int p[64];
    ee_rng_permutation(&r, 0, p); /* no-op, must not crash */
    ee_rng_permutation(&r, 1, p);
    CHECK(p[0] == 0, "permutation of 1 item");
    int bad = 0;
    for (int n = 2; n <= 64; n++)
        for (int k = 0; k < 20; k++) {
            ee_rng_permutation(&r, n, p);
            bad += !is_perm(p, n);
        }
    CHECK(bad == 0, "%d results are not permutations", bad);

    /* all 3! orders equally frequent */
    int reps = gc_quick() ? 5000 : 30000; /* per order */
    long cnt[6] = {0};
    for (int i = 0; i < 6 * reps; i++) {
        ee_rng_permutation(&r, 3, p);
        if (!is_perm(p, 3)) { bad++; continue; }
        /* rank of the order: first element * 2 + (second > third) */
        int code = p[0] * 2 + (p[1] > p[2]);
        cnt[code]++;
    }
    double chi = 0;
    int seen_all = 1;
    for (int c = 0; c < 6; c++) {
        chi += (cnt[c] - reps) * (double)(cnt[c] - reps) / reps;
        seen_all &= cnt[c] > 0;
    }
    CHECK(seen_all, "not all 6 orders of 3 items appear");
    CHECK(chi < gc_chi2_quantile(5, 4), "3-item orders %ld %ld %ld %ld %ld %ld: chi-square %.2f > %.2f",
          cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], cnt[5], chi, gc_chi2_quantile(5, 4));

    /* n = 5: the position of every element is uniform (5 x 5 table) */
    long pos[5][5] = {{0}};
    int reps5 = gc_quick() ? 4000 : 20000;
    for (int i = 0; i < 5 * reps5; i++) {
        ee_rng_permutation(&r, 5, p);
        for (int k = 0; k < 5; k++) pos[p[k]][k]++;
    }
    CheckCmp worst = CMP_INIT; /* the chi-square statistics (against 0) */
    for (int e = 0; e < 5; e++) {
        double c2 = 0;
        for (int k = 0; k < 5; k++) c2 += (pos[e][k] - reps5) * (double)(pos[e][k] - reps5) / reps5;
        cmp_add(&worst, c2, 0);
    }
    CHECK_CMP(worst, gc_chi2_quantile(4, 4.5), "n=5: element positions not uniform (chi-square %.2f)", worst.err);
}

static void test_normal(void)
{
    EeRng r;
    ee_rng_seed(&r, 4242);
    int n = gc_quick() ? 100000 : 1000000;
    double s = 0, s2 = 0, s4 = 0;
    long inside = 0;
    int nonfinite = 0;
    for (int i = 0; i < n; i++) {
        double z = ee_rng_normal(&r);
        if (!isfinite(z)) { nonfinite++; continue; }
        s += z;
        s2 += z * z;
        s4 += z * z * z * z;
        inside += fabs(z) < 1;
    }
    CHECK(nonfinite == 0, "%d normals not finite", nonfinite);
    double mean = s / n, var = s2 / n - mean * mean, k4 = s4 / n, frac = (double)inside / n;
    CHECK(fabs(mean) < 5 / sqrt((double)n), "normal mean %.5f", mean);
    CHECK(fabs(var - 1) < 5 * sqrt(2.0 / n), "normal variance %.5f", var);
    /* E z^4 = 3, Var z^4 = 105 - 9 = 96 */
    CHECK(fabs(k4 - 3) < 5 * sqrt(96.0 / n), "normal 4th moment %.4f", k4);
    double p1 = 0.682689492137086;
    CHECK(fabs(frac - p1) < 5 * sqrt(p1 * (1 - p1) / n), "P(|z| < 1) = %.5f", frac);
}

int main(void)
{
    double t0 = ee_now();
    test_algorithm();
    test_determinism();
    test_streams();
    test_uniform();
    test_below();
    test_permutation();
    test_normal();
    printf("test_rng: %.2f s%s\n", ee_now() - t0, gc_quick() ? " (quick)" : "");
    return check_finish("test_rng");
}
