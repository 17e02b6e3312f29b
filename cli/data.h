/* data.h: the data file of a command (--data D.mat, --var NAME), in the
 * layout of doc/API.md: the rows to work on (--rows), token ids or dense
 * rows checked as the gateways check X, labels, and the variables that
 * options name (a mask, baseline ids, targets, permutations, words).
 * Rows are 1-based on the command line and in messages, 0-based here. */
#ifndef EE_CLI_DATA_H
#define EE_CLI_DATA_H

#include "matfile.h"

typedef struct {
    EeMatIn *file;
    const char *path;   /* as given */
    const char *var;    /* the variable of X (default "tokens") */
    matvar_t *X;
    long N;             /* its rows */
    long W;             /* its columns */
} EeData;

EeStatus ee_data_open(const char *path, const char *var, EeData *d);
void ee_data_close(EeData *d);

/* Rows of X from a spec: NULL or "all" (every row), "A:B", "A", lists of
 * those ("1:10,20"), or "train" / "valid" / "test" (the file's split).
 * `opt` names the option in messages. *rows is malloc'd. */
EeStatus ee_data_rows(EeData *d, const char *spec, const char *opt, long **rows, long *n);

/* Token ids of the rows, 0-based, row-major (malloc'd); T must be the
 * model's sequence length and every id in 1..V (1-based in the file). */
EeStatus ee_data_tokens(EeData *d, const long *rows, long n, int T, int V, int32_t **ids);
/* Dense rows of an mlp (N x D single/double, finite), row-major. */
EeStatus ee_data_dense(EeData *d, const long *rows, long n, int D, float **x);
/* Class labels of the rows from variable `var` (N x 1 or 1 x N, integers
 * in 1..C; C = 0 allows any up to 100000), 0-based; *maxlabel the largest
 * (1-based). */
EeStatus ee_data_labels(EeData *d, const char *var, const long *rows, long n, int C, int32_t **y,
                        int *maxlabel);
/* A logical/0-1 N x T variable (a mask), row-major bytes. */
EeStatus ee_data_mask(EeData *d, const char *var, const long *rows, long n, int T, uint8_t **mask);
/* Baseline ids (an N x T id variable), 0-based row-major. */
EeStatus ee_data_ids(EeData *d, const char *var, const char *what, const long *rows, long n, int T,
                     int V, int32_t **ids);
/* Targets: a class index for every row ("2"), or a variable with one
 * class index per row of X; 0-based. */
EeStatus ee_data_target(EeData *d, const char *spec, const long *rows, long n, int C, int32_t **target);
/* 'permutations': a 1 x N cell variable (one s x n_i matrix per row of X,
 * rows permutations of 1..n_i); *perms[i] holds steps x n_i 0-based
 * indices row-major (NULL for a row without real tokens). */
EeStatus ee_data_permutations(EeData *d, const char *var, const long *rows, long n,
                              const int32_t *ids, int T, int32_t ***perms, int *steps);
/* A cell of words (vocab, class names) variable: checked as the gateways
 * check them (distinct non-empty words; a vocabulary starts with the
 * special tokens); *count its length; *cell the variable. */
EeStatus ee_data_words(EeData *d, const char *var, int vocabulary, matvar_t **cell, int *count);

#endif
