/* mextext.c: shared helpers of the text gateways (see mextext.h). */
#include "mextext.h"

#include <math.h>
#include <string.h>

static int is_char_row(const mxArray *a)
{
    return mxIsChar(a) && mxGetNumberOfDimensions(a) == 2 &&
           (mxGetM(a) == 1 || mxGetNumberOfElements(a) == 0);
}

const char *ee_mx_text(const mxArray *a, const char *what, size_t *len)
{
    if (!is_char_row(a))
        ee_mx_error("ee:badInput", "%s must be a char row (one text), got a %zux%zu %s", what, mxGetM(a),
                    mxGetN(a), mxGetClassName(a));
    *len = mxGetNumberOfElements(a);
    /* Octave's mxChar is a byte: the char row is the text's UTF-8 */
    return *len ? (const char *)mxGetChars(a) : "";
}

int ee_mx_text_count(const mxArray *a, const char *what)
{
    if (mxIsCell(a)) return (int)mxGetNumberOfElements(a);
    if (is_char_row(a)) return 1;
    ee_mx_error("ee:badInput", "%s must be a char row or a cell of char rows, got a %zux%zu %s", what,
                mxGetM(a), mxGetN(a), mxGetClassName(a));
}

const char *ee_mx_text_at(const mxArray *a, int i, const char *what, size_t *len)
{
    if (!mxIsCell(a)) return ee_mx_text(a, what, len);
    const mxArray *t = mxGetCell(a, (mwIndex)i);
    if (!t || !is_char_row(t))
        ee_mx_error("ee:badInput", "%s{%d} must be a char row (a text), got %s", what, i + 1,
                    t ? mxGetClassName(t) : "an empty cell");
    *len = mxGetNumberOfElements(t);
    return *len ? (const char *)mxGetChars(t) : "";
}

static void free_vocab(void *p) { ee_vocab_free(p); }

EeVocab *ee_mx_vocab(const mxArray *cell, const char *what, const char *id)
{
    if (!mxIsCell(cell) || mxGetNumberOfDimensions(cell) != 2 ||
        (mxGetM(cell) != 1 && mxGetN(cell) != 1))
        ee_mx_error(id, "%s must be a 1 x V cell of words, got a %zux%zu %s", what, mxGetM(cell),
                    mxGetN(cell), mxGetClassName(cell));
    size_t n = mxGetNumberOfElements(cell);
    if (n > (1u << 24)) ee_mx_error(id, "%s has %zu words, more than 2^24", what, n);
    const char **w = mxMalloc(sizeof *w * (n + 1));
    size_t *len = mxMalloc(sizeof *len * (n + 1));
    for (size_t i = 0; i < n; i++) {
        const mxArray *c = mxGetCell(cell, (mwIndex)i);
        if (!c || !is_char_row(c) || mxGetNumberOfElements(c) == 0)
            ee_mx_error(id, "%s{%zu} must be a non-empty char row (a word), got %s", what, i + 1,
                        c ? mxGetClassName(c) : "an empty cell");
        w[i] = (const char *)mxGetChars(c);
        len[i] = mxGetNumberOfElements(c);
    }
    EeVocab *v = NULL;
    if (ee_vocab_new(w, len, (int)n, &v)) ee_mx_error(id, "%s: %s", what, ee_last_error());
    ee_mx_defer(free_vocab, v);
    return v;
}

/* A positive integer scalar field of a model, 0 when absent. */
static int model_size(const mxArray *m, const char *field)
{
    const mxArray *f = mxGetField(m, 0, field);
    if (!f) return 0;
    if (!mxIsNumeric(f) || mxIsComplex(f) || mxGetNumberOfElements(f) != 1)
        ee_mx_error("ee:badModel", "the model's field %s must be a number", field);
    double v = mxGetScalar(f);
    if (!(v >= 1 && v <= (1 << 24) && v == floor(v)))
        ee_mx_error("ee:badModel", "the model's field %s must be a positive integer, got %g", field, v);
    return (int)v;
}

const mxArray *ee_mx_vocab_arg(const mxArray *a, const char *what, int *T_model)
{
    *T_model = 0;
    if (mxIsCell(a)) return a;
    if (!mxIsStruct(a) || mxGetNumberOfElements(a) != 1)
        ee_mx_error("ee:badInput", "%s must be a vocabulary (1 x V cell of words) or a model struct, got %s",
                    what, mxGetClassName(a));
    const mxArray *w = mxGetField(a, 0, "vocab_words");
    if (!w)
        ee_mx_error("ee:badModel", "the model carries no vocabulary (field vocab_words): train it with "
                    "ee_train (..., 'vocab', VOCAB) or pass the vocabulary itself");
    int T = model_size(a, "T");
    if (T < 3) ee_mx_error("ee:badModel", "the model has no sequence length T >= 3: not a token model");
    int V = model_size(a, "vocab");
    if (V && (!mxIsCell(w) || mxGetNumberOfElements(w) != (size_t)V))
        ee_mx_error("ee:badModel", "the model's vocab_words must be a cell of vocab = %d words", V);
    *T_model = T;
    return w;
}

static void free_counts(void *p) { ee_counts_free(p); }

int ee_mx_names(const mxArray *cell, const char *what, int min)
{
    if (!mxIsCell(cell) || mxGetNumberOfDimensions(cell) != 2 || (mxGetM(cell) != 1 && mxGetN(cell) != 1))
        ee_mx_error("ee:badInput", "%s must be a 1 x n cell of names, got a %zux%zu %s", what, mxGetM(cell),
                    mxGetN(cell), mxGetClassName(cell));
    int n = (int)mxGetNumberOfElements(cell);
    if (n < min) ee_mx_error("ee:badInput", "%s needs at least %d names, got %d", what, min, n);
    EeWordCounts *seen;
    if (ee_counts_new(&seen)) ee_mx_fail(EE_ERR_NOMEM);
    ee_mx_defer(free_counts, seen);
    for (int i = 0; i < n; i++) {
        const mxArray *c = mxGetCell(cell, (mwIndex)i);
        if (!c || !is_char_row(c) || mxGetNumberOfElements(c) == 0)
            ee_mx_error("ee:badInput", "%s{%d} must be a non-empty char row", what, i + 1);
        if (ee_counts_add(seen, (const char *)mxGetChars(c), mxGetNumberOfElements(c))) ee_mx_fail(EE_ERR_NOMEM);
        if (ee_counts_types(seen) != i + 1)
            ee_mx_error("ee:badInput", "%s{%d} ('%.*s') repeats an earlier name", what, i + 1,
                        (int)(mxGetNumberOfElements(c) > 40 ? 40 : mxGetNumberOfElements(c)),
                        (const char *)mxGetChars(c));
    }
    return n;
}

mxArray *ee_mx_words_row(const mxArray *cell)
{
    size_t n = mxGetNumberOfElements(cell);
    mxArray *r = mxCreateCellMatrix(1, n);
    for (size_t i = 0; i < n; i++) mxSetCell(r, (mwIndex)i, mxDuplicateArray(mxGetCell(cell, (mwIndex)i)));
    return r;
}
