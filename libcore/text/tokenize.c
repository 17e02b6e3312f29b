/* tokenize.c: the tokenizer of ee_text.h. One pass over the UTF-8 bytes:
 * each code point folds (fold_table.c) to the few characters the rule can
 * see, [a-z0-9!$'] or a separator, and a small state machine turns that
 * stream into tokens while remembering which bytes each came from. */
#include "../ee_text.h"
#include "fold.h"

#include <string.h>

const char *ee_text_unicode_version(void) { return ee_fold_unicode_version; }

/* Decodes one UTF-8 sequence at s[i] (strict: no overlong forms, no
 * surrogates, nothing above U+10FFFF). Returns its length, 0 if invalid. */
static int utf8_next(const unsigned char *s, size_t n, size_t i, uint32_t *cp)
{
    unsigned c = s[i];
    if (c < 0x80) { *cp = c; return 1; }
    int len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; v = c & 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; v = c & 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; v = c & 0x07; min = 0x10000; }
    else return 0;
    if (i + (size_t)len > n) return 0;
    for (int k = 1; k < len; k++) {
        if ((s[i + k] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i + k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
}

size_t ee_text_utf8_bad(const char *s, size_t n)
{
    uint32_t cp;
    size_t i = 0;
    while (i < n) {
        int k = utf8_next((const unsigned char *)s, n, i, &cp);
        if (!k) return i;
        i += (size_t)k;
    }
    return n;
}

/* The folded characters of a code point >= 0x80 (len 0: deleted). */
static const char *fold_lookup(uint32_t cp, int *len)
{
    int lo = 0, hi = ee_fold_nranges - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const EeFoldRange *r = &ee_fold_ranges[mid];
        if (cp < r->lo) hi = mid - 1;
        else if (cp > r->hi) lo = mid + 1;
        else { *len = r->len; return ee_fold_pool + r->off; }
    }
    *len = 1;
    return " ";
}

static int is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* Token assembly over the folded stream. A word is a run of [a-z0-9];
 * apostrophes met inside it are held back (`apos`) until the next
 * character shows whether they join two alphanumerics (deleted) or end
 * the word (separators). '!' and '$' runs become one token each. */
typedef struct {
    EeTokenFn fn;
    void *ctx;
    int stop;
    char word[EE_TEXT_MAX_WORD];
    int len;            /* characters of the current run (may exceed the buffer) */
    size_t begin, end;  /* bytes of the current run */
    int apos;           /* apostrophes pending after the run */
    char punct;         /* '!' or '$' while in such a run, else 0 */
    size_t pbegin, pend;
} Tok;

static void emit_word(Tok *t)
{
    if (t->len > 0 && t->len <= EE_TEXT_MAX_WORD && !t->stop)
        t->stop = t->fn(t->ctx, t->word, t->len, t->begin, t->end);
    t->len = 0;
    t->apos = 0;
}

static void emit_punct(Tok *t)
{
    if (t->punct && !t->stop) t->stop = t->fn(t->ctx, &t->punct, 1, t->pbegin, t->pend);
    t->punct = 0;
}

static void feed(Tok *t, char c, size_t b, size_t e)
{
    if (is_alnum(c)) {
        emit_punct(t);
        if (t->len > 0 && t->apos) t->apos = 0;           /* x'y: the apostrophes go */
        if (t->len == 0) t->begin = b;
        if (t->len < EE_TEXT_MAX_WORD) t->word[t->len] = c;
        if (t->len <= EE_TEXT_MAX_WORD) t->len++;          /* stays above the limit: dropped */
        t->end = e;
        return;
    }
    if (c == '\'' && t->len > 0) {                         /* maybe inside a word */
        t->apos++;
        return;
    }
    emit_word(t);
    if (c == '!' || c == '$') {
        if (t->punct != c) {
            emit_punct(t);
            t->punct = c;
            t->pbegin = b;
        }
        t->pend = e;
        return;
    }
    emit_punct(t);                                         /* a separator */
}

EeStatus ee_text_tokenize(const char *utf8, size_t n, EeTokenFn fn, void *ctx)
{
    if (!fn || (!utf8 && n)) return ee_fail(EE_ERR_INPUT, "ee_text_tokenize: no text or no callback");
    const unsigned char *s = (const unsigned char *)utf8;
    Tok t;
    memset(&t, 0, sizeof t);
    t.fn = fn;
    t.ctx = ctx;
    size_t i = 0;
    while (i < n && !t.stop) {
        uint32_t cp;
        int k = utf8_next(s, n, i, &cp);
        if (!k)
            return ee_fail(EE_ERR_INPUT, "the text is not valid UTF-8 (byte %zu is 0x%02x)", i + 1, s[i]);
        if (cp < 0x80) {
            char c = (char)cp;
            if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
            feed(&t, c, i, i + 1);
        } else {
            int len;
            const char *f = fold_lookup(cp, &len);
            for (int j = 0; j < len; j++) feed(&t, f[j], i, i + (size_t)k);
        }
        i += (size_t)k;
    }
    emit_word(&t);
    emit_punct(&t);
    return EE_OK;
}
