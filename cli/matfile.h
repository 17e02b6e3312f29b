/* matfile.h: .mat files for cli/ee, through matio. Reading: variables of
 * a file with their class, realness, size and data checked before use,
 * text as UTF-8, and any struct (or element of a struct array) as an
 * EeFieldSource for libcore's validating model loader. Writing: small
 * builders of the variables the gateways would return, and one writer
 * that goes through a temporary file and a rename, so that a reader never
 * sees a half-written file under the final name.
 *
 * Messages name the file and the variable or field ("d.mat: tokens"). */
#ifndef EE_CLI_MATFILE_H
#define EE_CLI_MATFILE_H

#include "ee.h"
#include "io/model_io.h"

#include <matio.h>

/* ---- reading ------------------------------------------------------------- */
typedef struct EeMatIn EeMatIn;

EeStatus ee_matin_open(const char *path, EeMatIn **out);
void ee_matin_close(EeMatIn *f);
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
/* A field of a scalar struct (element `index` of a struct array); NULL
 * when absent. */
matvar_t *ee_mv_field(matvar_t *s, const char *field, size_t index);

/* A field source over element `index` of a struct (array), for
 * ee_model_load. The source keeps converted strings in `keep` until
 * ee_mv_source_free. */
typedef struct EeMvSource EeMvSource;
EeStatus ee_mv_source(matvar_t *s, size_t index, EeFieldSource *src, EeMvSource **keep);
void ee_mv_source_free(EeMvSource *k);

/* ---- writing ---------------------------------------------------------------- */
/* Builders return a new variable (unnamed: the name is given when it is
 * set as a field or written); they exit the program with a one-line
 * message when memory runs out, as nothing useful can follow. */
matvar_t *ee_mv_char(const char *s);
matvar_t *ee_mv_scalar(double v);
matvar_t *ee_mv_logical(int v);
matvar_t *ee_mv_row(const double *v, int n);          /* 1 x n double */
matvar_t *ee_mv_col(const double *v, long n);         /* n x 1 double */
matvar_t *ee_mv_int32_col(const int32_t *v, long n);  /* n x 1 int32 */
/* rows x cols single from row-major floats (column-major in the file). */
matvar_t *ee_mv_single_rows(const float *rowmajor, long rows, long cols);
matvar_t *ee_mv_double_rows(const double *rowmajor, long rows, long cols);
matvar_t *ee_mv_struct(void);                         /* 1 x 1, no fields */
matvar_t *ee_mv_struct_array(int n);                  /* 1 x n, no fields */
matvar_t *ee_mv_cell_row(int n);                      /* 1 x n, empty cells */
void ee_mv_cell_set(matvar_t *cell, int i, matvar_t *v);
matvar_t *ee_mv_copy(const matvar_t *v);              /* deep copy */
/* Sets field `name` of element `index` (adding the field when new);
 * takes ownership of v. */
void ee_mv_set(matvar_t *s, const char *name, size_t index, matvar_t *v);

/* A model's kind, sizes and weights as a struct (ee_model_save). */
EeStatus ee_mv_model(const EeModel *m, matvar_t **out);

/* Whether path may receive a result: nothing there yet, or a regular
 * file (replaced by a rename). A device, FIFO, folder or symbolic link
 * is refused (ee:ioError): renaming over it would destroy it, or the
 * link, not the file it points to. */
EeStatus ee_mat_target_ok(const char *path);
/* Writes the variables (taking ownership of them) to path: to a
 * temporary file in the same folder first, then renamed over path, which
 * is checked again (ee_mat_target_ok) right before the rename. */
EeStatus ee_mat_write(const char *path, const char *const *names, matvar_t **vars, int n);
/* Removes the temporary file of a write in progress, if any: for a
 * signal handler (async-signal-safe). */
void ee_mat_abandon(void);

/* malloc that ends the program with a one-line message when it fails. */
void *ee_xmalloc(size_t n);
void *ee_xcalloc(size_t n, size_t size);

#endif
