/* ee_tokenize.c: MEX gateway. Texts to token-id rows with libcore's text
 * rule, the one the datasets were built with (see ee_tokenize.m). */
#include "mextext.h"

#include <string.h>

enum { O_T, O_TRUNCATE, O_EMPTY, NOPT };
static const char *const opt_names[NOPT] = {"T", "truncate", "empty"};

/* Pass 1 counts the words of a text; pass 2 keeps the first `want` of
 * them with their bytes. */
typedef struct {
    int n, want;
    char (*word)[EE_TEXT_MAX_WORD + 1];
    size_t *begin, *end;
} Words;

static int count_word(void *ctx, const char *w, int len, size_t b, size_t e)
{
    ((Words *)ctx)->n++;
    return 0;
}

static int keep_word(void *ctx, const char *w, int len, size_t b, size_t e)
{
    Words *k = ctx;
    memcpy(k->word[k->n], w, (size_t)len);
    k->word[k->n][len] = 0;
    k->begin[k->n] = b;
    k->end[k->n] = e;
    return ++k->n == k->want;
}

static void tokenize(const char *s, size_t len, int i, EeTokenFn fn, Words *w)
{
    EeStatus st = ee_text_tokenize(s, len, fn, w);
    if (st) ee_mx_error("ee:badInput", "text %d: %s%s", i + 1, ee_last_error(),
                    strstr(ee_last_error(), "UTF-8") ? " (convert other encodings first, e.g. native2unicode "
                                                       "(uint8 (text), 'latin1'))" : "");
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
    if (nrhs < 2) ee_mx_error("ee:badInput", "usage: [X, info] = ee_tokenize(vocab_or_model, text, ...)");
    EeMxOpt o[NOPT];
    ee_mx_start("ee_tokenize", nlhs, nrhs, prhs, 2, opt_names, o, NOPT);
    int T_model;
    const mxArray *vcell = ee_mx_vocab_arg(prhs[0], "the vocabulary", &T_model);
    EeVocab *v = ee_mx_vocab(vcell, T_model ? "the model's vocab_words" : "the vocabulary",
                             T_model ? "ee:badModel" : "ee:badInput");
    int truncate = o[O_TRUNCATE].value ? ee_mx_bool(o[O_TRUNCATE].value, "'truncate'") : 1;
    static const char *const empty_choices[] = {"error", "keep"};
    int keep_empty = o[O_EMPTY].value ? ee_mx_choice(o[O_EMPTY].value, "'empty'", empty_choices, 2) : 0;
    int T = 0;
    if (o[O_T].value) {
        T = ee_mx_int(o[O_T].value, "'T'", 3, 1 << 20);
        if (T_model && T != T_model)
            ee_mx_error("ee:badInput", "'T' = %d differs from the model's T = %d (its rows must have T tokens)",
                        T, T_model);
    } else if (T_model) {
        T = T_model;
    }

    const mxArray *texts = prhs[1];
    int N = ee_mx_text_count(texts, "TEXT");
    int *nwords = mxMalloc(sizeof(int) * ((size_t)N + 1));
    int longest = 0;
    for (int i = 0; i < N; i++) {
        size_t len;
        const char *s = ee_mx_text_at(texts, i, "TEXT", &len);
        Words w = {0};
        tokenize(s, len, i, count_word, &w);
        nwords[i] = w.n;
        if (w.n > longest) longest = w.n;
        if (w.n == 0 && !keep_empty)
            ee_mx_error("ee:badInput", "text %d has no words (it is empty or only separators); "
                        "'empty', 'keep' encodes it as [CLS] [SEP]", i + 1);
    }
    if (!T) T = longest + 2 < 3 ? 3 : longest + 2;   /* a plain vocabulary: the longest text fits */
    for (int i = 0; i < N; i++)
        if (nwords[i] > T - 2 && !truncate)
            ee_mx_error("ee:badInput", "text %d has %d words, more than T - 2 = %d ('truncate', true keeps the "
                        "first %d)", i + 1, nwords[i], T - 2, T - 2);

    /* the budget, before anything big is made: X (N x T int32), the word
     * buffers of one text, and with info each kept word's cell (a char
     * array, about 100 bytes with its header) and span, and a copy of
     * every text */
    double need = 4.0 * N * T + (double)T * (EE_TEXT_MAX_WORD + 1 + 2 * sizeof(size_t) + sizeof(char *) + 4);
    if (nlhs > 1)
        for (int i = 0; i < N; i++) {
            size_t len;
            ee_mx_text_at(texts, i, "TEXT", &len);
            need += 128.0 * (nwords[i] < T - 2 ? nwords[i] : T - 2) + (double)len + 400;
        }
    ee_mx_budget(need, "the call");
    mxArray *X = mxCreateNumericMatrix((size_t)N, (size_t)T, mxINT32_CLASS, mxREAL);
    int32_t *x = mxGetData(X);
    Words w;
    w.word = mxMalloc(sizeof *w.word * (size_t)T);
    w.begin = mxMalloc(sizeof(size_t) * (size_t)T);
    w.end = mxMalloc(sizeof(size_t) * (size_t)T);
    const char **wp = mxMalloc(sizeof *wp * (size_t)T);
    int32_t *row = mxMalloc(sizeof(int32_t) * (size_t)T);
    mxArray *words = NULL, *spans = NULL, *unknown = NULL, *ntext = NULL;
    if (nlhs > 1) {
        words = mxCreateCellMatrix((size_t)N, 1);
        spans = mxCreateCellMatrix((size_t)N, 1);
        unknown = mxCreateDoubleMatrix((size_t)N, 1, mxREAL);
        ntext = mxCreateCellMatrix((size_t)N, 1);
    }
    for (int i = 0; i < N; i++) {
        size_t len;
        const char *s = ee_mx_text_at(texts, i, "TEXT", &len);
        w.n = 0;
        w.want = nwords[i] < T - 2 ? nwords[i] : T - 2;
        if (w.want > 0) tokenize(s, len, i, keep_word, &w);
        for (int k = 0; k < w.n; k++) wp[k] = w.word[k];
        EeEncodeInfo ei;
        if (ee_encode_words(v, wp, NULL, w.n, T, row, &ei)) ee_mx_fail(EE_ERR_INPUT);
        for (int t = 0; t < T; t++) x[i + (size_t)N * t] = row[t] + 1;
        if (nlhs > 1) {
            mxArray *wc = mxCreateCellMatrix(1, (size_t)w.n);
            mxArray *sp = mxCreateDoubleMatrix((size_t)w.n, 2, mxREAL);
            double *spd = mxGetPr(sp);
            for (int k = 0; k < w.n; k++) {
                mxSetCell(wc, (mwIndex)k, mxCreateString(w.word[k]));
                spd[k] = (double)w.begin[k] + 1;              /* 1-based, inclusive */
                spd[k + (size_t)w.n] = (double)w.end[k];
            }
            mxSetCell(words, (mwIndex)i, wc);
            mxSetCell(spans, (mwIndex)i, sp);
            mxGetPr(unknown)[i] = ei.unknown;
            mxArray *tc = mxCreateCharArray(2, (mwSize[]){1, len});
            if (len) memcpy(mxGetChars(tc), s, len);
            mxSetCell(ntext, (mwIndex)i, tc);
        }
    }
    plhs[0] = X;
    if (nlhs > 1) {
        mxArray *info = mxCreateStructMatrix(1, 1, 0, NULL);
        ee_mx_set(info, "T", mxCreateDoubleScalar(T));
        mxArray *nw = mxCreateDoubleMatrix((size_t)N, 1, mxREAL);
        mxArray *tr = mxCreateLogicalMatrix((size_t)N, 1);
        for (int i = 0; i < N; i++) {
            mxGetPr(nw)[i] = nwords[i];
            mxGetLogicals(tr)[i] = nwords[i] > T - 2;
        }
        ee_mx_set(info, "n_words", nw);
        ee_mx_set(info, "truncated", tr);
        ee_mx_set(info, "n_unknown", unknown);
        ee_mx_set(info, "words", words);
        ee_mx_set(info, "spans", spans);
        ee_mx_set(info, "text", ntext);
        plhs[1] = info;
    }
    ee_mx_cleanup();
}
