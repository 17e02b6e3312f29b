/* ee_mat.h: reading .mat files that come from outside (the one reader of
 * the project: cli/ee, the C tests and the fuzzer use it; the gateways
 * get their arrays from Octave and read no file).
 *
 * A file is opened only after a structural check of the whole file
 * (ee_mat5_check): every element lies inside its parent, every array
 * holds the values its dimensions announce, every compressed (-v7)
 * variable inflates completely with a valid checksum, and the classes are
 * ones this reader uses. Only then does matio see it: matio trusts the
 * sizes written in a file. Variables are read through matio and nothing
 * in a matvar_t is used before its class, size and data have been
 * checked again. Errors are EE_ERR_IO (a damaged or unreadable file),
 * EE_ERR_INPUT (a variable of the wrong kind) or EE_ERR_MODEL, with one
 * line that names the file and the variable or field ("d.mat: tokens"). */
#ifndef EE_MAT_H
#define EE_MAT_H

#include "ee.h"

#include <matio.h>

/* matio prints its problems to stderr: after ee_mat_quiet (called by
 * ee_matin_open, and by a writer before it starts) they are kept instead,
 * and ee_mat_message gives the last one ("" since ee_mat_quiet). */
void ee_mat_quiet(void);
const char *ee_mat_message(void);

/* The structure check alone: EE_OK, or EE_ERR_IO saying what is wrong. */
EeStatus ee_mat5_check(const char *path);

typedef struct EeMatIn EeMatIn;

/* Opens a little-endian MAT 5 file (Octave's -v6 and -v7) whose structure
 * checks out; anything else is EE_ERR_IO. */
EeStatus ee_matin_open(const char *path, EeMatIn **out);
void ee_matin_close(EeMatIn *f);
const char *ee_matin_path(const EeMatIn *f);
/* A variable, read once and owned by the file; an EE_ERR_IO message that
 * lists the file's variables when it is absent. */
EeStatus ee_matin_var(EeMatIn *f, const char *name, matvar_t **out);
int ee_matin_has(EeMatIn *f, const char *name);
/* The file's only struct or cell variable (a model file holds one, under
 * any name); *name gets its name. */
EeStatus ee_matin_only_model(EeMatIn *f, matvar_t **out, const char **name);

/* Checks of one array: real, full, numeric or logical, its data all
 * there. `what` names it in messages. */
EeStatus ee_mv_numeric(const matvar_t *v, const char *what);
size_t ee_mv_numel(const matvar_t *v);
size_t ee_mv_rows(const matvar_t *v);
size_t ee_mv_cols(const matvar_t *v);   /* numel / rows */
/* Element i (column-major) of a checked numeric array, as double. */
double ee_mv_at(const matvar_t *v, size_t i);
const char *ee_mv_class_name(const matvar_t *v);
/* A char array as a malloc'd UTF-8 string (UTF-16 files converted),
 * *len its bytes; EE_ERR_INPUT when v is not a char row. */
EeStatus ee_mv_text(const matvar_t *v, const char *what, char **utf8, size_t *len);
/* Field `field` of element `index` of a struct (array); NULL when absent
 * or when the struct was not read completely. */
matvar_t *ee_mv_field(matvar_t *s, const char *field, size_t index);
/* Element i of a cell array; NULL when absent or not read completely. */
matvar_t *ee_mv_cell(matvar_t *c, size_t i);

/* Builds and validates the model in element `index` of struct (array) s
 * (libcore's loader, doc/MODEL_FORMAT.md); `what` names it in messages. */
EeStatus ee_mv_load_model(matvar_t *s, size_t index, const char *what, EeModel **out);

/* A model's kind, sizes and weights as a new 1 x 1 struct, in the order
 * the gateways add the fields (the caller adds training metadata). */
EeStatus ee_mv_model(const EeModel *m, matvar_t **out);

#endif
