/* cpu_mem.c: the CPU backend's buffers (ee_cpu_alloc), per-thread scratch
 * memory of its ops, the out-of-memory flag they raise instead of
 * aborting, and the choice of the AVX2 loops (see cpu_internal.h): the
 * base of cpu/, calling no other file of it (cpu_gemm.c and cpu_ops.c
 * build on it). */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "cpu_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A batch's activations are tens to hundreds of MB that a call writes once
 * before it reads them. With 4 KB pages the kernel traps on every page of
 * that first touch, which on a virtual machine costs about as much as a
 * model pass over the same memory: IG at s = 1 on 256-token rows spent a
 * third of its time in page faults (issue 19). Blocks of HUGE_BLOCK bytes
 * and more are mapped here, aligned to 2 MB, with transparent huge pages
 * asked for (MADV_HUGEPAGE: the kernel's "madvise" setting grants them),
 * which traps once per 2 MB instead of 512 times. Blocks from BIG_BLOCK
 * (malloc's own threshold for mapping) up are mapped here too, in 4 KB
 * pages, so that they can be kept for the next call below: from malloc
 * they were unmapped when freed and faulted in again by every call (an
 * ablation of 4 rows on the transformer: 4,800 faults a call, half its
 * time, in a process whose malloc had not yet raised that threshold).
 * Smaller ones come from calloc. All come zeroed, as calloc's do. The
 * mapped blocks are listed so that ee_cpu_free tells them apart (tens
 * live at a time). Under AddressSanitizer every block comes from calloc,
 * so that it keeps its redzones. */
#if defined(__SANITIZE_ADDRESS__)
#define BIG_BLOCK ((size_t)-1)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_BLOCK ((size_t)-1)
#endif
#endif
#ifndef BIG_BLOCK
#define BIG_BLOCK ((size_t)128 << 10)
#endif
#define HUGE_BLOCK ((size_t)4 << 20)
#define HUGE_ALIGN ((size_t)2 << 20)
#define MAX_BIG 1024

static struct {
    void *p, *map;
    size_t len, bytes; /* mapped, asked for */
} big[MAX_BIG];
static int nbig;
static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;

/* Freed big blocks are kept (up to KEEP_BYTES in all) for the next call's
 * buffers: a gateway call allocates its run's activations afresh, and the
 * kernel's zeroing of their pages on first touch was a quarter of an
 * explainer's call on 256-token rows (issue 19). A kept block is zeroed
 * with memset when it is handed out again, so the contract (zeroed, as
 * calloc) holds; only the page faults are saved. */
#define KEEP_BYTES ((size_t)256 << 20)
#define MAX_KEPT 256
static struct {
    void *p, *map;
    size_t len, cap;
} kept[MAX_KEPT];
static int nkept;
static size_t kept_bytes;

static void remember(void *p, void *map, size_t len, size_t bytes)
{
    big[nbig++] = (typeof(big[0])){p, map, len, bytes};
}

size_t ee_cpu_mapped_bytes(void)
{
    size_t n = 0;
    pthread_mutex_lock(&big_lock);
    for (int i = 0; i < nbig; i++) n += big[i].bytes;
    pthread_mutex_unlock(&big_lock);
    return n;
}

static void *take(size_t bytes, int zero)
{
    if (bytes < BIG_BLOCK) return zero ? calloc(1, bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
    pthread_mutex_lock(&big_lock);
    int best = -1;
    for (int i = 0; i < nkept; i++) /* the smallest kept block that holds it, if not twice its size */
        if (kept[i].cap >= bytes && kept[i].cap <= 2 * bytes && (best < 0 || kept[i].cap < kept[best].cap))
            best = i;
    if (best >= 0 && nbig < MAX_BIG) {
        void *p = kept[best].p, *map = kept[best].map;
        size_t len = kept[best].len;
        kept_bytes -= len;
        kept[best] = kept[--nkept];
        remember(p, map, len, bytes);
        pthread_mutex_unlock(&big_lock);
        if (zero) memset(p, 0, bytes);
        return p;
    }
    pthread_mutex_unlock(&big_lock);
    int huge = bytes >= HUGE_BLOCK;
    size_t len = bytes + (huge ? HUGE_ALIGN : 0);
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return NULL;
    void *p = huge ? (void *)(((uintptr_t)map + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1)) : map;
#ifdef MADV_HUGEPAGE
    if (huge) madvise(p, bytes, MADV_HUGEPAGE); /* a request: without it the pages are 4 KB */
#endif
    pthread_mutex_lock(&big_lock);
    int ok = nbig < MAX_BIG;
    if (ok) remember(p, map, len, bytes);
    pthread_mutex_unlock(&big_lock);
    if (!ok) { /* more live blocks than ever seen: give this one back, use calloc */
        munmap(map, len);
        return zero ? calloc(1, bytes) : malloc(bytes);
    }
    return p; /* a fresh mapping reads as zeros */
}

void *ee_cpu_alloc(size_t bytes) { return take(bytes, 1); }

void *ee_host_alloc(size_t bytes) { return take(bytes, 0); }

void ee_host_free(void *p) { ee_cpu_free(p); }

void ee_cpu_free(void *p)
{
    if (!p) return;
    pthread_mutex_lock(&big_lock);
    for (int i = nbig - 1; i >= 0; i--)
        if (big[i].p == p) {
            void *map = big[i].map;
            size_t len = big[i].len;
            big[i] = big[--nbig];
            if (nkept < MAX_KEPT && kept_bytes + len <= KEEP_BYTES) {
                kept[nkept++] = (typeof(kept[0])){p, map, len, len - ((uintptr_t)p - (uintptr_t)map)};
                kept_bytes += len;
                pthread_mutex_unlock(&big_lock);
                return;
            }
            pthread_mutex_unlock(&big_lock);
            munmap(map, len);
            return;
        }
    pthread_mutex_unlock(&big_lock);
    free(p);
}

static _Thread_local struct {
    void *p;
    size_t n;
} scratch[EE_SCRATCH_SLOTS];

static int nomem; /* any thread may raise it */

void ee_cpu_raise_nomem(void) { __atomic_store_n(&nomem, 1, __ATOMIC_RELAXED); }

int ee_cpu_take_nomem(void) { return __atomic_exchange_n(&nomem, 0, __ATOMIC_RELAXED); }

void *ee_cpu_scratch(int slot, size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (scratch[slot].n < bytes) {
        free(scratch[slot].p);
        scratch[slot].p = malloc(bytes);
        scratch[slot].n = scratch[slot].p ? bytes : 0;
        if (!scratch[slot].p) ee_cpu_raise_nomem();
    }
    return scratch[slot].p;
}

void ee_cpu_release_scratch(void)
{
    for (int i = 0; i < EE_SCRATCH_SLOTS; i++) {
        free(scratch[i].p);
        scratch[i].p = NULL;
        scratch[i].n = 0;
    }
}

int ee_cpu_use_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && defined(EE_HAVE_AVX2_OBJECT)
    static int v = -1;
    if (v < 0) v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return v;
#else
    return 0;
#endif
}

int ee_cpu_use_avx512(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static int v = -1;
    if (v < 0) {
        const char *env = getenv("EE_CPU_AVX512");
        v = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
            __builtin_cpu_supports("fma") && !(env && !strcmp(env, "0"));
    }
    return v;
#else
    return 0;
#endif
}
