/* vocab.c: vocabularies (word -> id), the encoding of word lists into
 * token-id rows, and word counts with the datasets' vocabulary rule (see
 * ee_text.h). Both vocabularies and counts are one open-addressing hash
 * table of words kept in an arena. */
#include "../ee_text.h"
#include "fold.h"

#include <stdlib.h>
#include <string.h>

const char *const ee_special_names[4] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]"};

/* ---- the word table ------------------------------------------------------------ */
typedef struct {
    char *arena;          /* words, each NUL-terminated */
    size_t arena_len, arena_cap;
    size_t *off;          /* per entry: offset into arena */
    size_t *len;          /* per entry: length */
    long *count;          /* per entry: occurrences (counts only) */
    int n, cap;           /* entries */
    int *slot;            /* hash slots: entry index or -1 */
    size_t nslots;        /* power of two */
} WordTab;

static uint64_t hash(const char *w, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;   /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)w[i]) * 0x100000001b3ULL;
    return h;
}

static void tab_free(WordTab *t)
{
    free(t->arena);
    free(t->off);
    free(t->len);
    free(t->count);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

/* Slot holding the word, or the empty slot where it would go. */
static size_t tab_probe(const WordTab *t, const char *w, size_t len)
{
    size_t mask = t->nslots - 1, s = (size_t)hash(w, len) & mask;
    while (t->slot[s] >= 0) {
        int e = t->slot[s];
        if (t->len[e] == len && !memcmp(t->arena + t->off[e], w, len)) return s;
        s = (s + 1) & mask;
    }
    return s;
}

static int tab_grow_slots(WordTab *t)
{
    size_t ns = t->nslots ? 2 * t->nslots : 64;
    int *slot = malloc(ns * sizeof *slot);
    if (!slot) return 0;
    for (size_t s = 0; s < ns; s++) slot[s] = -1;
    free(t->slot);
    t->slot = slot;
    t->nslots = ns;
    for (int e = 0; e < t->n; e++) t->slot[tab_probe(t, t->arena + t->off[e], t->len[e])] = e;
    return 1;
}

/* Finds the word's entry; adds it when absent and `add` is set. Returns
 * the entry, -1 when absent (and not added), -2 when out of memory. */
static int tab_find(WordTab *t, const char *w, size_t len, int add)
{
    if (t->nslots == 0) {
        if (!add) return -1;
        if (!tab_grow_slots(t)) return -2;
    }
    size_t s = tab_probe(t, w, len);
    if (t->slot[s] >= 0 || !add) return t->slot[s];
    if (t->n == 0x7fffffff) return -2;
    if (t->n == t->cap) {
        int nc = t->cap ? 2 * t->cap : 64;
        size_t *off = realloc(t->off, (size_t)nc * sizeof *off);
        if (off) t->off = off;
        size_t *ln = realloc(t->len, (size_t)nc * sizeof *ln);
        if (ln) t->len = ln;
        long *cnt = realloc(t->count, (size_t)nc * sizeof *cnt);
        if (cnt) t->count = cnt;
        if (!off || !ln || !cnt) return -2;
        t->cap = nc;
    }
    if (t->arena_len + len + 1 > t->arena_cap) {
        size_t nc = t->arena_cap ? 2 * t->arena_cap : 4096;
        while (nc < t->arena_len + len + 1) nc *= 2;
        char *a = realloc(t->arena, nc);
        if (!a) return -2;
        t->arena = a;
        t->arena_cap = nc;
    }
    int e = t->n++;
    t->off[e] = t->arena_len;
    t->len[e] = len;
    t->count[e] = 0;
    memcpy(t->arena + t->arena_len, w, len);
    t->arena[t->arena_len + len] = 0;
    t->arena_len += len + 1;
    t->slot[s] = e;
    /* keep the load factor at or below 1/2 */
    if ((size_t)t->n * 2 > t->nslots && !tab_grow_slots(t)) return -2;
    return e;
}

/* ---- vocabularies ------------------------------------------------------------------ */
struct EeVocab { WordTab t; };

EeStatus ee_vocab_new(const char *const *words, const size_t *lens, int n, EeVocab **out)
{
    *out = NULL;
    if (n < 4 || !words)
        return ee_fail(EE_ERR_INPUT, "a vocabulary needs the special tokens %s %s %s %s first, got %d words",
                       ee_special_names[0], ee_special_names[1], ee_special_names[2], ee_special_names[3], n);
    EeVocab *v = calloc(1, sizeof *v);
    if (!v) return ee_fail(EE_ERR_NOMEM, "out of memory for a vocabulary of %d words", n);
    for (int i = 0; i < n; i++) {
        size_t len = lens ? lens[i] : (words[i] ? strlen(words[i]) : 0);
        if (!words[i] || len == 0) {
            ee_vocab_free(v);
            return ee_fail(EE_ERR_INPUT, "vocabulary word %d is empty", i + 1);
        }
        /* the tokenizer makes words of valid UTF-8 without NUL: a word
         * with either could never be found, a mistake to report */
        size_t bad = ee_text_utf8_bad(words[i], len);
        if (bad < len || memchr(words[i], 0, len)) {
            ee_vocab_free(v);
            if (bad < len)
                return ee_fail(EE_ERR_INPUT, "vocabulary word %d is not valid UTF-8 (byte %zu is 0x%02x)", i + 1,
                               bad + 1, (unsigned char)words[i][bad]);
            return ee_fail(EE_ERR_INPUT, "vocabulary word %d has a NUL character", i + 1);
        }
        if (i < 4 && (len != strlen(ee_special_names[i]) || memcmp(words[i], ee_special_names[i], len))) {
            ee_vocab_free(v);
            return ee_fail(EE_ERR_INPUT, "vocabulary word %d must be the special token %s (the first four are "
                           "[PAD] [UNK] [CLS] [SEP]), got '%.*s'", i + 1, ee_special_names[i],
                           (int)(len > 40 ? 40 : len), words[i]);
        }
        int before = v->t.n;
        int e = tab_find(&v->t, words[i], len, 1);
        if (e == -2) {
            ee_vocab_free(v);
            return ee_fail(EE_ERR_NOMEM, "out of memory for a vocabulary of %d words", n);
        }
        if (v->t.n == before) {
            ee_vocab_free(v);
            return ee_fail(EE_ERR_INPUT, "vocabulary word %d ('%.*s') repeats word %d", i + 1,
                           (int)(len > 40 ? 40 : len), words[i], e + 1);
        }
    }
    *out = v;
    return EE_OK;
}

void ee_vocab_free(EeVocab *v)
{
    if (!v) return;
    tab_free(&v->t);
    free(v);
}

int ee_vocab_size(const EeVocab *v) { return v->t.n; }

int ee_vocab_find(const EeVocab *v, const char *word, size_t len)
{
    int e = tab_find((WordTab *)&v->t, word, len, 0);
    return e >= 0 ? e : -1;
}

const char *ee_vocab_word(const EeVocab *v, int id, size_t *len)
{
    if (id < 0 || id >= v->t.n) return NULL;
    if (len) *len = v->t.len[id];
    return v->t.arena + v->t.off[id];
}

/* ---- encoding ---------------------------------------------------------------------- */
EeStatus ee_encode_words(const EeVocab *v, const char *const *words, const size_t *lens, int nwords,
                         int T, int32_t *row, EeEncodeInfo *info)
{
    if (T < 3) return ee_fail(EE_ERR_INPUT, "T must be at least 3 ([CLS], a word, [SEP]), got %d", T);
    if (nwords < 0) return ee_fail(EE_ERR_INPUT, "negative word count");
    int kept = nwords < T - 2 ? nwords : T - 2, unknown = 0;
    row[0] = EE_CLS;
    for (int k = 0; k < kept; k++) {
        size_t len = lens ? lens[k] : strlen(words[k]);
        int id = ee_vocab_find(v, words[k], len);
        /* a word spelled like a special token is an ordinary unknown word */
        if (id < 4) { id = EE_UNK; unknown++; }
        row[1 + k] = id;
    }
    row[1 + kept] = EE_SEP;
    for (int t = kept + 2; t < T; t++) row[t] = EE_PAD;
    if (info) {
        info->words = nwords;
        info->kept = kept;
        info->unknown = unknown;
    }
    return EE_OK;
}

/* ---- word counts and the vocabulary rule ---------------------------------------------------- */
struct EeWordCounts { WordTab t; };

EeStatus ee_counts_new(EeWordCounts **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? EE_OK : ee_fail(EE_ERR_NOMEM, "out of memory for word counts");
}

void ee_counts_free(EeWordCounts *c)
{
    if (!c) return;
    tab_free(&c->t);
    free(c);
}

EeStatus ee_counts_add(EeWordCounts *c, const char *word, size_t len)
{
    if (len == 0) return ee_fail(EE_ERR_INPUT, "an empty word cannot be counted");
    int e = tab_find(&c->t, word, len, 1);
    if (e < 0) return ee_fail(EE_ERR_NOMEM, "out of memory counting words (%d distinct so far)", c->t.n);
    c->t.count[e]++;
    return EE_OK;
}

int ee_counts_types(const EeWordCounts *c) { return c->t.n; }

/* qsort has no context argument: the table being sorted is passed here
 * (one sort at a time per thread). */
static _Thread_local const WordTab *sort_tab;

static int by_count_then_bytes(const void *pa, const void *pb)
{
    const WordTab *t = sort_tab;
    int a = *(const int *)pa, b = *(const int *)pb;
    if (t->count[a] != t->count[b]) return t->count[a] > t->count[b] ? -1 : 1;
    size_t la = t->len[a], lb = t->len[b];
    int r = memcmp(t->arena + t->off[a], t->arena + t->off[b], la < lb ? la : lb);
    if (r) return r;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

EeStatus ee_counts_vocab(const EeWordCounts *c, long min_count, long max_words, EeWordFn fn, void *ctx,
                         int *eligible)
{
    if (min_count < 1) return ee_fail(EE_ERR_INPUT, "min_count must be at least 1, got %ld", min_count);
    if (max_words < 0) return ee_fail(EE_ERR_INPUT, "max_words must be at least 0, got %ld", max_words);
    const WordTab *t = &c->t;
    int *idx = malloc(((size_t)t->n + 1) * sizeof *idx);
    if (!idx) return ee_fail(EE_ERR_NOMEM, "out of memory sorting %d words", t->n);
    int n = 0;
    for (int e = 0; e < t->n; e++)
        if (t->count[e] >= min_count) idx[n++] = e;
    sort_tab = t;
    qsort(idx, (size_t)n, sizeof *idx, by_count_then_bytes);
    sort_tab = NULL;
    if (eligible) *eligible = n;
    long keep = n < max_words ? n : max_words;
    for (long k = 0; k < keep; k++) {
        int e = idx[k];
        if (fn(ctx, t->arena + t->off[e], t->len[e], t->count[e])) break;
    }
    free(idx);
    return EE_OK;
}
