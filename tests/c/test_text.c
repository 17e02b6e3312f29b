/* test_text.c: the text rule of libcore (ee_text.h):
 * - the tokenizer on the cases the rule names (case, accents and other
 *   compatibility forms, apostrophes, '!' and '$' runs, the 30-character
 *   limit, separators), the byte spans it reports, and its refusal of
 *   invalid UTF-8;
 * - the generated fold table is sorted and disjoint;
 * - vocabularies: the special tokens are required, words unique and
 *   non-empty; lookup;
 * - encoding: [CLS] .. [SEP] [PAD], truncation to T - 2, [UNK] for absent
 *   words and for words spelled like special tokens;
 * - the vocabulary rule: min count, count descending, ties in byte order,
 *   the cap, the eligible count.
 * The datasets themselves are compared with ee_tokenize in
 * tests/octave/test_text_datasets.m. */
#include "check.h"
#include "ee_text.h"
#include "../../libcore/text/fold.h"

#include <string.h>

typedef struct {
    char out[1024];           /* tokens joined by '|' */
    size_t begin[64], end[64];
    int n;
} Toks;

static int collect(void *ctx, const char *w, int len, size_t b, size_t e)
{
    Toks *t = ctx;
    size_t l = strlen(t->out);
    if (t->n) t->out[l++] = '|';
    memcpy(t->out + l, w, (size_t)len);
    t->out[l + (size_t)len] = 0;
    if (t->n < 64) { t->begin[t->n] = b; t->end[t->n] = e; }
    t->n++;
    return 0;
}

static EeStatus tok(const char *s, size_t n, Toks *t)
{
    memset(t, 0, sizeof *t);
    return ee_text_tokenize(s, n, collect, t);
}

#define TOK(text, want)                                                                  \
    do {                                                                                 \
        Toks t_;                                                                         \
        EeStatus st_ = tok(text, sizeof(text) - 1, &t_);                                 \
        CHECK(st_ == EE_OK && !strcmp(t_.out, want), "tokenize(\"%s\") = \"%s\" (%s), want \"%s\"", \
              text, t_.out, ee_status_id(st_), want);                                    \
    } while (0)

static int stop_after_two(void *ctx, const char *w, int len, size_t b, size_t e)
{
    return ++*(int *)ctx == 2;
}

static void test_tokenizer(void)
{
    /* the example of issue 9: what the datasets' vocabulary holds */
    TOK("Don't \xe2\x80\xa6 !!! \xe2\x80\xa6 $$$", "dont|!|$");
    TOK("Hello, World", "hello|world");
    TOK("Caf\xc3\xa9 na\xc3\xafve \xc3\x89" "COLE", "cafe|naive|ecole");
    TOK("e\xcc\x81t\xc3\xa9", "ete");                         /* decomposed accent joins */
    TOK("rock'n'roll it\xe2\x80\x99s", "rocknroll|its");    /* ' and U+2019 */
    TOK("'quoted' a' b ''x", "quoted|a|b|x");
    TOK("a''b a'\xe2\x80\x99" "b", "ab|ab");
    TOK("wow!!!$$$!", "wow|!|$|!");
    TOK("!'!", "!|!");
    TOK("price: $5, 10$!", "price|$|5|10|$|!");
    TOK("x\xc2\xbd \xef\xac\x81ne", "x1|2|fine");             /* one half, fi ligature */
    TOK("\xef\xbc\xa1\xef\xbc\xa2\xef\xbc\xa3", "abc");       /* fullwidth ABC */
    TOK("\xe2\x91\xa0\xe2\x91\xa1", "12");                    /* circled digits */
    TOK("stra\xc3\x9f" "e", "stra|e");                        /* sharp s has no decomposition */
    TOK("\xe4\xb8\xad\xe6\x96\x87 ok", "ok");                 /* CJK separates */
    TOK("\xe2\x84\xaa" "elvin", "kelvin");                    /* KELVIN SIGN */
    TOK("under_score tab\tnew\nline", "under|score|tab|new|line");
    TOK("", "");
    TOK("  ... ", "");
    /* 30 characters are a word, 31 are dropped (also when an apostrophe joins them) */
    TOK("abcdefghijklmnopqrstuvwxyz0123 abcdefghijklmnopqrstuvwxyz01234 z",
        "abcdefghijklmnopqrstuvwxyz0123|z");
    TOK("abcdefghijklmnopqrstuvwxyz'01234 y", "y");
    {   /* NUL bytes separate */
        Toks t;
        CHECK_OK(tok("a\0b", 3, &t));
        CHECK(!strcmp(t.out, "a|b"), "NUL separates: %s", t.out);
    }
    {   /* spans: bytes of the original text, apostrophes and accents inside */
        Toks t;
        const char *s = "Don't stop!! caf\xc3\xa9";
        CHECK_OK(tok(s, strlen(s), &t));
        CHECK(t.n == 4 && !strcmp(t.out, "dont|stop|!|cafe"), "spans text: %s", t.out);
        CHECK(t.begin[0] == 0 && t.end[0] == 5, "span of dont %zu..%zu", t.begin[0], t.end[0]);
        CHECK(t.begin[1] == 6 && t.end[1] == 10, "span of stop %zu..%zu", t.begin[1], t.end[1]);
        CHECK(t.begin[2] == 10 && t.end[2] == 12, "span of ! %zu..%zu", t.begin[2], t.end[2]);
        CHECK(t.begin[3] == 13 && t.end[3] == 18, "span of cafe %zu..%zu", t.begin[3], t.end[3]);
    }
    {   /* both tokens of one code point share its bytes */
        Toks t;
        const char *s = "x\xc2\xbd";
        CHECK_OK(tok(s, strlen(s), &t));
        CHECK(t.n == 2 && t.begin[0] == 0 && t.end[0] == 3 && t.begin[1] == 1 && t.end[1] == 3,
              "spans of x1|2: %zu..%zu %zu..%zu", t.begin[0], t.end[0], t.begin[1], t.end[1]);
    }
    /* invalid UTF-8 */
    static const char *bad[] = {"ok \xff", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80",
                                "\x80", "\xe0\x80\x80"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        Toks t;
        EeStatus st = tok(bad[k], strlen(bad[k]), &t);
        CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "UTF-8"), "invalid UTF-8 case %zu: %s %s", k,
              ee_status_id(st), ee_last_error());
    }
    /* the callback stops the scan */
    int count = 0;
    CHECK_OK(ee_text_tokenize("a b c d", 7, stop_after_two, &count));
    CHECK(count == 2, "stopped after %d tokens", count);
}

static void test_fold_table(void)
{
    int ok = 1;
    for (int i = 0; i < ee_fold_nranges; i++) {
        const EeFoldRange *r = &ee_fold_ranges[i];
        if (r->lo < 0x80 || r->hi < r->lo || r->hi > 0x10FFFF) ok = 0;
        if (i && r->lo <= ee_fold_ranges[i - 1].hi) ok = 0;
        for (int j = 0; j < r->len; j++) {
            char c = ee_fold_pool[r->off + j];
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("!$' ", c))) ok = 0;
        }
    }
    CHECK(ok && ee_fold_nranges > 1000, "fold table: %d sorted, disjoint ranges of [a-z0-9!$' ]",
          ee_fold_nranges);
    CHECK(strlen(ee_text_unicode_version()) > 0, "Unicode version recorded");
}

static void test_vocab(void)
{
    const char *w[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat"};
    EeVocab *v = NULL;
    CHECK_OK(ee_vocab_new(w, NULL, 7, &v));
    CHECK(v && ee_vocab_size(v) == 7, "size");
    CHECK(ee_vocab_find(v, "cat", 3) == 5 && ee_vocab_find(v, "dog", 3) == -1 && ee_vocab_find(v, "ca", 2) == -1,
          "find");
    size_t len;
    CHECK(!strcmp(ee_vocab_word(v, 6, &len), "sat") && len == 3 && !ee_vocab_word(v, 7, NULL), "word");

    int32_t row[6];
    EeEncodeInfo info;
    const char *doc[] = {"the", "dog", "[SEP]", "sat", "cat"};
    CHECK_OK(ee_encode_words(v, doc, NULL, 5, 6, row, &info));
    int32_t want[6] = {EE_CLS, 4, EE_UNK, EE_UNK, 6, EE_SEP};
    CHECK(!memcmp(row, want, sizeof want), "encode with truncation: %d %d %d %d %d %d", row[0], row[1], row[2],
          row[3], row[4], row[5]);
    CHECK(info.words == 5 && info.kept == 4 && info.unknown == 2, "encode info %d %d %d", info.words, info.kept,
          info.unknown);
    CHECK_OK(ee_encode_words(v, doc, NULL, 1, 6, row, &info));
    int32_t want2[6] = {EE_CLS, 4, EE_SEP, EE_PAD, EE_PAD, EE_PAD};
    CHECK(!memcmp(row, want2, sizeof want2) && info.kept == 1, "encode with padding");
    CHECK_OK(ee_encode_words(v, doc, NULL, 0, 3, row, &info));
    CHECK(row[0] == EE_CLS && row[1] == EE_SEP && row[2] == EE_PAD, "empty text");
    CHECK(ee_encode_words(v, doc, NULL, 1, 2, row, NULL) == EE_ERR_INPUT, "T < 3 refused");
    ee_vocab_free(v);

    /* defects */
    const char *nospecial[] = {"the", "[UNK]", "[CLS]", "[SEP]", "x"};
    CHECK(ee_vocab_new(nospecial, NULL, 5, &v) == EE_ERR_INPUT && !v && strstr(ee_last_error(), "[PAD]"),
          "specials required: %s", ee_last_error());
    CHECK(ee_vocab_new(w, NULL, 3, &v) == EE_ERR_INPUT, "too short");
    const char *dup[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "a"};
    CHECK(ee_vocab_new(dup, NULL, 7, &v) == EE_ERR_INPUT && strstr(ee_last_error(), "repeats"),
          "duplicate: %s", ee_last_error());
    const char *empty[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", ""};
    CHECK(ee_vocab_new(empty, NULL, 5, &v) == EE_ERR_INPUT && strstr(ee_last_error(), "empty"),
          "empty word: %s", ee_last_error());
    /* words the tokenizer can never make: a NUL inside, invalid UTF-8 */
    const char *nul[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "a\0b"};
    const size_t nul_len[] = {5, 5, 5, 5, 3};
    CHECK(ee_vocab_new(nul, nul_len, 5, &v) == EE_ERR_INPUT && !v && strstr(ee_last_error(), "NUL"),
          "NUL in a word: %s", ee_last_error());
    const char *bad8[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "caf\xc3", "x\xffy", "\xc0\xaf"};
    for (int k = 4; k < 7; k++) {
        const char *one[] = {bad8[0], bad8[1], bad8[2], bad8[3], bad8[k]};
        CHECK(ee_vocab_new(one, NULL, 5, &v) == EE_ERR_INPUT && !v && strstr(ee_last_error(), "UTF-8"),
              "invalid UTF-8 word %d: %s", k, ee_last_error());
    }
    const char *good8[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "caf\xc3\xa9"};
    CHECK_OK(ee_vocab_new(good8, NULL, 5, &v));
    ee_vocab_free(v);

    /* a large vocabulary (the hash table grows) */
    static char words[5000][8];
    const char *wp[5004] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]"};
    for (int i = 0; i < 5000; i++) {
        snprintf(words[i], sizeof words[i], "w%d", i);
        wp[4 + i] = words[i];
    }
    CHECK_OK(ee_vocab_new(wp, NULL, 5004, &v));
    int ok = 1;
    for (int i = 0; i < 5000; i++) ok &= ee_vocab_find(v, words[i], strlen(words[i])) == 4 + i;
    CHECK(ok, "5000 words found");
    ee_vocab_free(v);
}

typedef struct { char out[256]; long counts[16]; int n; } Kept;

static int keep(void *ctx, const char *w, size_t len, long count)
{
    Kept *k = ctx;
    size_t l = strlen(k->out);
    if (k->n) k->out[l++] = '|';
    memcpy(k->out + l, w, len);
    k->out[l + len] = 0;
    if (k->n < 16) k->counts[k->n] = count;
    k->n++;
    return 0;
}

static void test_counts(void)
{
    EeWordCounts *c;
    CHECK_OK(ee_counts_new(&c));
    const char *text[] = {"b", "a", "c", "a", "b", "d", "ab", "ab", "e", "b", "aa", "aa"};
    for (size_t k = 0; k < sizeof text / sizeof *text; k++) CHECK_OK(ee_counts_add(c, text[k], strlen(text[k])));
    CHECK(ee_counts_types(c) == 7, "types %d", ee_counts_types(c));
    CHECK(ee_counts_add(c, "", 0) == EE_ERR_INPUT, "empty word refused");
    Kept k;
    memset(&k, 0, sizeof k);
    int eligible = -1;
    CHECK_OK(ee_counts_vocab(c, 2, 100, keep, &k, &eligible));
    CHECK(!strcmp(k.out, "b|a|aa|ab") && eligible == 4 && k.counts[0] == 3 && k.counts[3] == 2,
          "count desc, then byte order: %s (%d eligible)", k.out, eligible);
    memset(&k, 0, sizeof k);
    CHECK_OK(ee_counts_vocab(c, 1, 3, keep, &k, &eligible));
    CHECK(!strcmp(k.out, "b|a|aa") && eligible == 7, "cap: %s (%d eligible)", k.out, eligible);
    CHECK(ee_counts_vocab(c, 0, 3, keep, &k, NULL) == EE_ERR_INPUT, "min_count 0 refused");
    ee_counts_free(c);
}

int main(void)
{
    test_tokenizer();
    test_fold_table();
    test_vocab();
    test_counts();
    return check_finish("test_text");
}
