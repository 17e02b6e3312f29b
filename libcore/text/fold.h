/* fold.h: the generated per-code-point table of the text rule (see
 * tools/gen_fold_table.js) and its lookup. Internal to libcore/text. */
#ifndef EE_TEXT_FOLD_H
#define EE_TEXT_FOLD_H

#include <stddef.h>
#include <stdint.h>

/* Code points lo..hi fold to the len characters at ee_fold_pool + off
 * (len 0: deleted, as combining marks are). Sorted by lo, disjoint. */
typedef struct {
    uint32_t lo, hi;
    uint16_t off;
    uint8_t len;
} EeFoldRange;

extern const char ee_fold_pool[];
extern const EeFoldRange ee_fold_ranges[];
extern const int ee_fold_nranges;
extern const char ee_fold_unicode_version[];

/* The index of the first byte of s[0..n) that does not start a valid
 * UTF-8 sequence (the tokenizer's strict decoding), n when all are valid
 * (tokenize.c; the vocabulary checks its words with it). */
size_t ee_text_utf8_bad(const char *s, size_t n);

#endif
