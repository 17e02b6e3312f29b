/* matfile.h: .mat files for cli/ee, through matio. Reading is libcore's
 * one reader (ee_mat.h: every file's structure checked before matio sees
 * it, every variable checked before use). Writing, here: small builders
 * of the variables the gateways would return, and one writer that goes
 * through a temporary file and a rename, so that a reader never sees a
 * half-written file under the final name. */
#ifndef EE_CLI_MATFILE_H
#define EE_CLI_MATFILE_H

#include "ee.h"
#include "ee_mat.h"
#include "ee_model_io.h"   /* ee_model_fingerprint, the field sources */

#include <matio.h>

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
