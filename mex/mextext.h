/* mextext.h: what the text gateways (ee_tokenize, ee_vocab) and ee_train
 * share: texts as char rows or cells, vocabularies and class names as
 * cells of words, and the vocabulary a model carries (vocab_words). */
#ifndef EE_MEXTEXT_H
#define EE_MEXTEXT_H

#include "mexutils.h"
#include "ee_text.h"

/* The bytes (UTF-8) of a char row or empty char array; ee:badInput
 * otherwise. `what` names the argument. */
const char *ee_mx_text(const mxArray *a, const char *what, size_t *len);
/* Number of texts in a char row (1) or a cell of char rows (numel), and
 * text i of it (0-based). */
int ee_mx_text_count(const mxArray *a, const char *what);
const char *ee_mx_text_at(const mxArray *a, int i, const char *what, size_t *len);

/* A libcore vocabulary from a cell of words (released when the call
 * ends); errors carry `id` (ee:badInput for an argument, ee:badModel for
 * a model's field). */
EeVocab *ee_mx_vocab(const mxArray *cell, const char *what, const char *id);
/* The vocabulary cell of a vocabulary-or-model argument; *T_model is the
 * model's T (0 for a plain vocabulary). */
const mxArray *ee_mx_vocab_arg(const mxArray *a, const char *what, int *T_model);
/* Checks a cell of distinct non-empty char rows, at least `min` of them
 * (class names); ee:badInput. Returns the count. */
int ee_mx_names(const mxArray *cell, const char *what, int min);
/* A 1 x n copy of a cell of words (what models store). */
mxArray *ee_mx_words_row(const mxArray *cell);

#endif
