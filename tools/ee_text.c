/* ee_text.c: the text rule of libcore (ee_text.h) as a filter program, so
 * that the dataset builders (node, datasets/lib/common.js) tokenize, build
 * vocabularies and encode with the same code as the Octave gateways.
 *
 *   ee_text tokenize              stdin: records (uint32 little-endian byte
 *                                 count, then that many bytes of UTF-8);
 *                                 stdout: one line per record, its tokens
 *                                 separated by single spaces
 *   ee_text vocab MIN MAXWORDS    stdin: one document per line (words
 *                                 separated by spaces); stdout: a line
 *                                 "types eligible min_kept_count", then the
 *                                 vocabulary, one word per line
 *   ee_text encode T VOCABFILE    stdin: one document per line; stdout: per
 *                                 line T int32 little-endian 1-based ids
 *   ee_text version               the Unicode version of the tokenizer
 *
 * Exit status 0 on success, 1 with a message on stderr otherwise. */
#include "ee_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what)
{
    fprintf(stderr, "ee_text: %s\n", what);
    exit(1);
}

static char *read_all(FILE *f, size_t *n)
{
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    if (!buf) die("out of memory");
    for (;;) {
        if (len == cap) {
            cap *= 2;
            char *b = realloc(buf, cap);
            if (!b) die("out of memory");
            buf = b;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) die("read error");
    *n = len;
    return buf;
}

static int put_token(void *ctx, const char *word, int len, size_t begin, size_t end)
{
    int *first = ctx;
    if (!*first) putchar(' ');
    *first = 0;
    fwrite(word, 1, (size_t)len, stdout);
    return 0;
}

static void cmd_tokenize(void)
{
    size_t n, i = 0;
    long rec = 0;
    char *in = read_all(stdin, &n);
    while (i < n) {
        if (n - i < 4) die("truncated record header");
        const unsigned char *h = (const unsigned char *)in + i;
        size_t len = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 | (size_t)h[3] << 24;
        i += 4;
        if (len > n - i) die("truncated record");
        int first = 1;
        if (ee_text_tokenize(in + i, len, put_token, &first)) {
            fprintf(stderr, "ee_text: record %ld: %s\n", rec + 1, ee_last_error());
            exit(1);
        }
        putchar('\n');
        i += len;
        rec++;
    }
    free(in);
}

/* Calls fn for each space-separated word of each line; line_end after
 * each line. */
static void each_line(char *in, size_t n, void (*word)(void *, const char *, size_t),
                      void (*line_end)(void *), void *ctx)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && in[i] != '\n') {
            if (in[i] == ' ') { i++; continue; }
            size_t b = i;
            while (i < n && in[i] != ' ' && in[i] != '\n') i++;
            word(ctx, in + b, i - b);
        }
        if (line_end) line_end(ctx);
        i++;   /* past the newline (or the end) */
    }
}

static long parse_long(const char *s, const char *what, long lo)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo) {
        fprintf(stderr, "ee_text: bad %s '%s'\n", what, s);
        exit(1);
    }
    return v;
}

static void count_word(void *ctx, const char *w, size_t len)
{
    if (ee_counts_add(ctx, w, len)) die(ee_last_error());
}

typedef struct { char **words; size_t *lens; int n, cap; long last_count; } List;

static void list_add(List *l, const char *w, size_t len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->words = realloc(l->words, sizeof *l->words * (size_t)l->cap);
        l->lens = realloc(l->lens, sizeof *l->lens * (size_t)l->cap);
        if (!l->words || !l->lens) die("out of memory");
    }
    l->words[l->n] = malloc(len + 1);
    if (!l->words[l->n]) die("out of memory");
    memcpy(l->words[l->n], w, len);
    l->words[l->n][len] = 0;
    l->lens[l->n++] = len;
}

static int keep_word(void *ctx, const char *w, size_t len, long count)
{
    List *l = ctx;
    list_add(l, w, len);
    l->last_count = count;
    return 0;
}

static void cmd_vocab(const char *min_s, const char *max_s)
{
    long min_count = parse_long(min_s, "min count", 1), max_words = parse_long(max_s, "max words", 0);
    size_t n;
    char *in = read_all(stdin, &n);
    EeWordCounts *c;
    if (ee_counts_new(&c)) die(ee_last_error());
    each_line(in, n, count_word, NULL, c);
    List l = {0};
    int eligible = 0;
    if (ee_counts_vocab(c, min_count, max_words, keep_word, &l, &eligible)) die(ee_last_error());
    printf("%d %d %ld\n", ee_counts_types(c), eligible, l.n ? l.last_count : 0L);
    for (int k = 0; k < 4; k++) printf("%s\n", ee_special_names[k]);
    for (int k = 0; k < l.n; k++) printf("%s\n", l.words[k]);
    ee_counts_free(c);
    free(in);
}

typedef struct { const EeVocab *v; int T; List doc; int32_t *row; } Enc;

static void enc_word(void *ctx, const char *w, size_t len) { list_add(&((Enc *)ctx)->doc, w, len); }

static void enc_line(void *ctx)
{
    Enc *e = ctx;
    if (ee_encode_words(e->v, (const char *const *)e->doc.words, e->doc.lens, e->doc.n, e->T, e->row, NULL))
        die(ee_last_error());
    for (int t = 0; t < e->T; t++) {
        uint32_t id = (uint32_t)(e->row[t] + 1);   /* 1-based, as in the .mat files */
        unsigned char b[4] = {id & 0xff, (id >> 8) & 0xff, (id >> 16) & 0xff, id >> 24};
        fwrite(b, 1, 4, stdout);
    }
    for (int k = 0; k < e->doc.n; k++) free(e->doc.words[k]);
    e->doc.n = 0;
}

static void cmd_encode(const char *T_s, const char *vocab_file)
{
    Enc e = {0};
    e.T = (int)parse_long(T_s, "T", 3);
    FILE *f = fopen(vocab_file, "rb");
    if (!f) die("cannot open the vocabulary file");
    size_t nv;
    char *vin = read_all(f, &nv);
    fclose(f);
    List words = {0};
    size_t i = 0;
    while (i < nv) {   /* one word per line */
        size_t b = i;
        while (i < nv && vin[i] != '\n') i++;
        list_add(&words, vin + b, i - b);
        i++;
    }
    EeVocab *v;
    if (ee_vocab_new((const char *const *)words.words, words.lens, words.n, &v)) die(ee_last_error());
    e.v = v;
    e.row = malloc(sizeof *e.row * (size_t)e.T);
    if (!e.row) die("out of memory");
    size_t n;
    char *in = read_all(stdin, &n);
    each_line(in, n, enc_word, enc_line, &e);
    ee_vocab_free(v);
    free(in);
    free(vin);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "tokenize")) cmd_tokenize();
    else if (argc == 4 && !strcmp(argv[1], "vocab")) cmd_vocab(argv[2], argv[3]);
    else if (argc == 4 && !strcmp(argv[1], "encode")) cmd_encode(argv[2], argv[3]);
    else if (argc == 2 && !strcmp(argv[1], "version")) printf("%s\n", ee_text_unicode_version());
    else die("usage: ee_text tokenize | vocab MIN_COUNT MAX_WORDS | encode T VOCAB_FILE | version");
    if (fflush(stdout) || ferror(stdout)) die("write error");
    return 0;
}
