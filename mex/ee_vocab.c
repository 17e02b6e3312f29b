/* ee_vocab.c: MEX gateway. A vocabulary from texts with the datasets'
 * rule (see ee_vocab.m). */
#include "mextext.h"

#include <math.h>
#include <string.h>

enum { O_MIN_COUNT, O_MAX_WORDS, O_T, NOPT };
static const char *const opt_names[NOPT] = {"min_count", "max_words", "T"};

typedef struct {
    EeWordCounts *c;
    int left;   /* words still counted in this text (the first T - 2) */
} Count;

static int count_word(void *ctx, const char *w, int len, size_t b, size_t e)
{
    Count *k = ctx;
    if (ee_counts_add(k->c, w, (size_t)len)) ee_mx_fail(EE_ERR_NOMEM);
    return --k->left == 0;
}

typedef struct { mxArray *V; double *counts; int n; } Out;

static int put_word(void *ctx, const char *w, size_t len, long count)
{
    Out *o = ctx;
    mxArray *s = mxCreateCharArray(2, (mwSize[]){1, len});
    memcpy(mxGetChars(s), w, len);
    mxSetCell(o->V, (mwIndex)o->n, s);
    if (o->counts) o->counts[o->n] = (double)count;
    o->n++;
    return 0;
}

static void free_counts(void *p) { ee_counts_free(p); }

/* Inf means "no limit" for 'max_words' and 'T'. */
static int is_inf(const mxArray *a)
{
    return (mxIsDouble(a) || mxIsSingle(a)) && !mxIsComplex(a) && mxGetNumberOfElements(a) == 1 &&
           isinf(mxGetScalar(a)) && mxGetScalar(a) > 0;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 1) ee_mx_error("ee:badInput", "usage: [V, counts] = ee_vocab(texts, ...)");
    EeMxOpt o[NOPT];
    ee_mx_start("ee_vocab", nlhs, nrhs, prhs, 1, opt_names, o, NOPT);
    long min_count = o[O_MIN_COUNT].value ? ee_mx_int(o[O_MIN_COUNT].value, "'min_count'", 1, 0x7fffffff) : 2;
    long max_words = 20000;
    if (o[O_MAX_WORDS].value)
        max_words = is_inf(o[O_MAX_WORDS].value) ? 0x7fffffffL
                                                 : ee_mx_int(o[O_MAX_WORDS].value, "'max_words'", 0, 1 << 24);
    int per_text = 0;   /* 0: every word of a text counts */
    if (o[O_T].value && !is_inf(o[O_T].value)) per_text = ee_mx_int(o[O_T].value, "'T'", 3, 1 << 20) - 2;
    EeWordCounts *c;
    if (ee_counts_new(&c)) ee_mx_fail(EE_ERR_NOMEM);
    ee_mx_defer(free_counts, c);
    int N = ee_mx_text_count(prhs[0], "TEXTS");
    for (int i = 0; i < N; i++) {
        size_t len;
        const char *s = ee_mx_text_at(prhs[0], i, "TEXTS", &len);
        Count k = {c, per_text ? per_text : -1};
        EeStatus st = ee_text_tokenize(s, len, count_word, &k);
        if (st) ee_mx_error("ee:badInput", "text %d: %s%s", i + 1, ee_last_error(),
                    strstr(ee_last_error(), "UTF-8") ? " (convert other encodings first, e.g. native2unicode "
                                                       "(uint8 (text), 'latin1'))" : "");
    }
    /* the specials, then the kept words; a first call (keeping none) sizes the cell */
    int eligible = 0;
    Out out = {NULL, NULL, 0};
    if (ee_counts_vocab(c, min_count, 0, put_word, &out, &eligible)) ee_mx_fail(EE_ERR_INPUT);
    long n = eligible < max_words ? eligible : max_words;
    out.V = mxCreateCellMatrix(1, (size_t)(4 + n));
    mxArray *counts = nlhs > 1 ? mxCreateDoubleMatrix(1, (size_t)(4 + n), mxREAL) : NULL;
    for (int k = 0; k < 4; k++) mxSetCell(out.V, (mwIndex)k, mxCreateString(ee_special_names[k]));
    out.counts = counts ? mxGetPr(counts) : NULL;
    out.n = 4;
    if (ee_counts_vocab(c, min_count, max_words, put_word, &out, NULL)) ee_mx_fail(EE_ERR_INPUT);
    plhs[0] = out.V;
    if (nlhs > 1) plhs[1] = counts;
    ee_mx_cleanup();
}
