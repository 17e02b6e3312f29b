/* ee_model_io.h (public): models to and from the exchange format (doc/MODEL_FORMAT.md),
 * independent of where the struct lives. A gateway reads an Octave struct
 * and a test reads a .mat file through matio; both hand libcore an
 * EeFieldSource, and one validating loader does the rest. */
#ifndef EE_MODEL_IO_PUBLIC_H
#define EE_MODEL_IO_PUBLIC_H

#include "ee.h"

typedef enum { EE_VAL_OTHER = 0, EE_VAL_CHAR, EE_VAL_DOUBLE, EE_VAL_SINGLE, EE_VAL_LOGICAL,
               EE_VAL_INT32 } EeValClass;

/* A read-only view of one array. Complex or sparse arrays are EE_VAL_OTHER. */
typedef struct {
    EeValClass cls;
    int ndims;
    size_t dims[8];
    size_t numel;
    const void *data;   /* column-major; char data as a NUL-free byte string */
} EeValue;

typedef struct {
    void *ctx;
    /* Field of the top-level struct (group == NULL) or of element `index`
     * of the struct array in field `group`. Returns 0 when missing. */
    int (*get)(void *ctx, const char *group, int index, const char *field, EeValue *out);
    /* Number of elements of the struct array in field `group`; -1 if the
     * field is missing or not a struct. */
    long (*group_len)(void *ctx, const char *group);
} EeFieldSource;

/* Builds and validates a model. `what` names the struct in messages
 * ("model"). Every failure is EE_ERR_MODEL with a message that names the
 * field, what was expected and what was given. */
EeStatus ee_model_load(const EeFieldSource *src, const char *what, EeModel **out);

/* ee_model_load for a front end that loads its models on every call: the
 * model is kept for the next acquire of a source with the same fields and
 * the same weights bit for bit, which gets it without a load and with its
 * fingerprint computed once (libcore/io/kept_models.c). It is shared: the
 * caller must not change it, and gives it back with ee_model_release, not
 * ee_model_free. The same checks and errors as ee_model_load. */
EeStatus ee_model_acquire(const EeFieldSource *src, const char *what, EeModel **out);
void ee_model_release(EeModel *m);
/* Frees the kept models that no one holds (a gateway being unloaded). */
void ee_kept_models_clear(void);

/* The configuration fields written for a model, in order, for writers. */
typedef struct {
    void *ctx;
    void (*put_char)(void *ctx, const char *field, const char *value);
    void (*put_scalar)(void *ctx, const char *field, double value);
    void (*put_logical)(void *ctx, const char *field, int value);
    void (*put_row)(void *ctx, const char *field, const double *v, int n);
    /* Declares a struct array field before its members are put. */
    void (*put_group)(void *ctx, const char *group, int len);
    /* Weights in exchange order (column-major) with their exchange dims. */
    void (*put_single)(void *ctx, const char *group, int index, const char *field,
                       int ndims, const int *dims, const float *data);
} EeFieldSink;

/* Writes the kind, sizes and weights (not the training metadata, which the
 * gateway adds). */
EeStatus ee_model_save(const EeModel *m, const EeFieldSink *sink);

/* The fingerprint of a model's weights (16 hex digits, FNV-1a over them in
 * exchange order): an explainer's explains.classifier names the
 * classifier it was trained on. */
EeStatus ee_model_fingerprint(const EeModel *m, char *out, size_t n);

/* .mat files: the reader is ee_mat.h (ee_matin_open checks a file's
 * structure before matio reads it). Helpers of the C tests on an open
 * file: a numeric variable (or element i of a cell variable) converted to
 * double and owned by the file, NULL when absent or not numeric; a scalar
 * struct variable as a field source; a model written as struct variable
 * `name` (MAT 5, through ee_mv_model). */
struct EeMatIn;   /* ee_mat.h (this header stays free of matio for the gateways) */
const double *ee_mat_double(struct EeMatIn *f, const char *name, size_t *rows, size_t *cols);
const double *ee_mat_cell_double(struct EeMatIn *f, const char *name, int i, size_t *rows, size_t *cols);
EeStatus ee_mat_struct_source(struct EeMatIn *f, const char *name, EeFieldSource *src);
EeStatus ee_mat_save_model(const char *path, const char *name, const EeModel *m);

#endif
