/* rng.c: the one random generator of libcore: xoshiro256** seeded through
 * splitmix64 (doc/RANDOM.md). Streams keyed by (seed, a, b) make results
 * independent of batching and thread count. */
#include "../ee.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void ee_rng_seed(EeRng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

void ee_rng_stream(EeRng *r, uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t x = seed;
    uint64_t k = splitmix64(&x);
    x = k ^ (a * 0xD1B54A32D192ED03ULL);
    k = splitmix64(&x);
    x = k ^ (b * 0x8CB92BA72F3D8DD7ULL);
    ee_rng_seed(r, splitmix64(&x));
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t ee_rng_next(EeRng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double ee_rng_uniform(EeRng *r) { return (double)(ee_rng_next(r) >> 11) * 0x1.0p-53; }

double ee_rng_normal(EeRng *r)
{
    double u1 = ee_rng_uniform(r), u2 = ee_rng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Lemire's nearly divisionless method, with rejection: unbiased. */
uint64_t ee_rng_below(EeRng *r, uint64_t n)
{
    if (n <= 1) return 0;
    uint64_t threshold = (0 - n) % n;
    for (;;) {
        uint64_t x = ee_rng_next(r);
        __uint128_t m = (__uint128_t)x * n;
        if ((uint64_t)m >= threshold) return (uint64_t)(m >> 64);
    }
}

void ee_rng_permutation(EeRng *r, int n, int *perm)
{
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)ee_rng_below(r, (uint64_t)i + 1);
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}
