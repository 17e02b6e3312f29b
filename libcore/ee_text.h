/* ee_text.h: the project's text rule, the one implementation that the
 * dataset builders (through tools/ee_text) and the Octave gateways
 * (ee_tokenize, ee_vocab) share, so that a user's own text becomes exactly
 * the ids the datasets were built with.
 *
 * Tokenizer: UTF-8 text, Unicode NFKD with combining marks dropped,
 * lowercased; apostrophes (' and U+2019) between letters/digits deleted
 * (don't -> dont); tokens are maximal runs of [a-z0-9] (runs longer than
 * EE_TEXT_MAX_WORD characters are dropped), one "!" per run of '!' and one
 * "$" per run of '$'; everything else separates tokens.
 *
 * Vocabulary: ids 0..3 are [PAD] [UNK] [CLS] [SEP]; built from word counts
 * as the four specials, then the words counted at least min_count times
 * by count (descending), ties in byte order, at most max_words of them.
 *
 * Encoding: a row of T ids [CLS] w1 .. wk [SEP] [PAD] ..., k = min(words,
 * T - 2) (longer texts keep their first T - 2 words); words absent from the
 * vocabulary, or equal to a special token's name, become [UNK].
 *
 * Ids are 0-based here, as everywhere in libcore. */
#ifndef EE_TEXT_H
#define EE_TEXT_H

#include "ee.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EE_TEXT_MAX_WORD 30

/* ---- tokenizer ----------------------------------------------------------- */
/* Called once per token in text order: the word (ASCII, not NUL-terminated,
 * 1..EE_TEXT_MAX_WORD characters) and the bytes [begin, end) of the text
 * it was read from (apostrophes and marks inside it included). Return
 * nonzero to stop early (ee_text_tokenize then returns EE_OK). */
typedef int (*EeTokenFn)(void *ctx, const char *word, int len, size_t begin, size_t end);

/* Tokenizes n bytes of UTF-8 (NUL bytes are separators). Invalid UTF-8 is
 * EE_ERR_INPUT, naming the byte offset. */
EeStatus ee_text_tokenize(const char *utf8, size_t n, EeTokenFn fn, void *ctx);
/* The Unicode version of the built-in normalisation table. */
const char *ee_text_unicode_version(void);

/* ---- vocabulary ------------------------------------------------------------ */
typedef struct EeVocab EeVocab;

/* A vocabulary from n words (0-based id = position). Checks that words
 * 0..3 are the special tokens, in order, and that no word is empty or
 * repeated (EE_ERR_INPUT naming the word). lens may be NULL (NUL-terminated
 * words). */
EeStatus ee_vocab_new(const char *const *words, const size_t *lens, int n, EeVocab **out);
void ee_vocab_free(EeVocab *v);
int ee_vocab_size(const EeVocab *v);
/* 0-based id of a word, -1 when absent. */
int ee_vocab_find(const EeVocab *v, const char *word, size_t len);
/* The word of an id (NUL-terminated) and its length, NULL when out of range. */
const char *ee_vocab_word(const EeVocab *v, int id, size_t *len);

/* ---- encoding ------------------------------------------------------------- */
typedef struct {
    int words;     /* words given */
    int kept;      /* words placed in the row: min(words, T - 2) */
    int unknown;   /* kept words that became [UNK] */
} EeEncodeInfo;

/* Encodes nwords words into row[0..T) (0-based ids, T >= 3). lens may be
 * NULL. info may be NULL. */
EeStatus ee_encode_words(const EeVocab *v, const char *const *words, const size_t *lens, int nwords,
                         int T, int32_t *row, EeEncodeInfo *info);

/* ---- building a vocabulary from word counts ------------------------------------------ */
typedef struct EeWordCounts EeWordCounts;

EeStatus ee_counts_new(EeWordCounts **out);
void ee_counts_free(EeWordCounts *c);
/* Counts one occurrence of a word (any non-empty byte string). */
EeStatus ee_counts_add(EeWordCounts *c, const char *word, size_t len);
/* Distinct words counted. */
int ee_counts_types(const EeWordCounts *c);

/* Called for each kept word in vocabulary order (after the specials). */
typedef int (*EeWordFn)(void *ctx, const char *word, size_t len, long count);
/* The vocabulary rule above (min_count >= 1, max_words >= 0). Reports the
 * number of words with count >= min_count in *eligible (may be NULL). */
EeStatus ee_counts_vocab(const EeWordCounts *c, long min_count, long max_words, EeWordFn fn, void *ctx,
                         int *eligible);

/* The names of the special tokens, by 0-based id. */
extern const char *const ee_special_names[4];

#ifdef __cplusplus
}
#endif
#endif
