/* model_impl.h: what the model kinds, the trainer and the samplers share
 * inside libcore (not part of the public API).
 *
 * A model keeps every weight in one flat host buffer, in its internal
 * layout: row-major over the exchange dimensions (the exchange format is
 * Octave's column-major order over the same dimensions, so conversion is a
 * reversal of axes). A run (EeRun) binds a model to a backend with a
 * workspace for up to Bmax rows: device copies of the weights and their
 * gradients, the inputs, and every activation the backward pass needs. */
#ifndef EE_MODEL_IMPL_H
#define EE_MODEL_IMPL_H

#include "../ee.h"
#include "../backend/backend.h"
#include "../core/core.h"

/* Tensors of the largest model ee_config_check accepts: a transformer of
 * 64 layers (16 each) with 4 embedding and 4 head tensors. */
#define EE_MAX_PARAMS (8 + 16 * 64)
#define EE_NAME_LEN 16

typedef struct {
    char group[EE_NAME_LEN]; /* "" for top level */
    int index;
    char field[EE_NAME_LEN];
    int ndims, dims[3];      /* exchange dims */
    int nl, ldims[3];        /* logical dims for the layout conversion */
    size_t count, offset;    /* offset into the flat buffer */
    int pad_row;             /* token embedding: row 0 (PAD) is fixed at 0 */
    int fan_in;              /* for initialisation; 0 = bias / LayerNorm */
    int init;                /* EE_INIT_* */
    int frozen;              /* not trained (its gradient is dropped) */
} EeParam;

enum { EE_INIT_NORMAL = 0, EE_INIT_ZERO, EE_INIT_ONE, EE_INIT_UNIFORM_FANIN };

struct EeModel {
    EeConfig cfg;
    int np;
    int overflow;            /* a tensor did not fit in p[] (ee_model_new refuses) */
    EeParam p[EE_MAX_PARAMS];
    size_t total;
    float *w; /* host weights, internal layout */
    /* a model kept between calls (io/kept_models.c), whose weights nothing
     * writes: its fingerprint is computed once (fp_known, fp) */
    int frozen, fp_known;
    uint64_t fp;
};

/* Registration (used by each kind's *_register). */
int ee_param_add(EeModel *m, const char *group, int index, const char *field, int init,
                 int fan_in, int ndims, int d0, int d1, int d2);
/* Same, with logical dims differing from the exchange dims (flat head). */
int ee_param_add_logical(EeModel *m, const char *group, int index, const char *field,
                         int init, int fan_in, int d0, int d1, int l0, int l1, int l2);

typedef struct EeRun EeRun;

/* Per-kind implementation. */
typedef struct {
    /* register parameters in a fixed order */
    void (*register_params)(EeModel *m);
    /* allocate the kind's activations for Bmax rows (train: keep for backward) */
    EeStatus (*alloc)(EeRun *r);
    void (*release)(EeRun *r);
    /* e = embedding-module output of r->ids */
    void (*embed)(EeRun *r, int B);
    /* out = network(e) under r->mask */
    void (*forward)(EeRun *r, int B, int train);
    /* from dout: r->de (if need_de) and parameter gradients (if param_grads) */
    void (*backward)(EeRun *r, int B, const float *dout, int need_de, int param_grads);
    /* from r->de: gradients of the embedding module's parameters */
    void (*embed_backward)(EeRun *r, int B);
    /* The attribution prior (train/prior.c): replace the activations kept
     * by the last training forward pass with those of the network
     * linearised there (its activation pattern fixed, no biases: the
     * derivative's path) applied to the input now in r->e, so that the next
     * backward computes the parameter gradient of <r->e, grad_e out . dout>.
     * NULL where a kind has no prior (only the mlp has one). */
    void (*linearized_forward)(EeRun *r, int B);
    /* DeepLIFT (doc/MODELS.md): after a forward pass of 2B rows, the
     * inputs in rows [0, B) and their references in [B, 2B), r->de of
     * rows [0, B) := the multipliers of the inputs' e from dout (B x
     * outputs), the backward pass with each ReLU's (and the cnn's max
     * pooling's) rescale rule. NULL where a kind has none (transformer). */
    EeStatus (*deeplift_backward)(EeRun *r, int B, const float *dout);
} EeKindOps;

const EeKindOps *ee_kind_ops(EeKind k);
extern const EeKindOps ee_transformer_ops, ee_cnn_ops, ee_mlp_ops;

struct EeRun {
    EeModel *m;
    const EeBackend *be;
    int Bmax;
    int keep;            /* activations kept for backward (EeRunKeep; with
                            EE_KEEP_TOP a transformer classifier's backward
                            stops after the last layer's [CLS] row and its
                            value_path scores, de not computed) */
    float dropout;       /* training only */
    float dropout_on;    /* the rate the last forward pass applied (0 unless
                            it trained): its backward pass must match it */
    uint64_t dropout_seed;
    float *w, *g;        /* device weights and gradients (g may be NULL) */
    int embed_frozen;    /* training with the embedding module frozen: its
                            backward leaves the embedding tables' and their
                            LayerNorm's gradients alone (they stay zero) */
    int w_shared;        /* w is the backend's resident copy (weights_acquire):
                            read only, given back with weights_release */
    int32_t *ids;        /* device [Bmax][T] */
    uint8_t *mask;       /* device [Bmax][T] */
    float *e;            /* device embedding output [Bmax][T][d] or [Bmax][D] */
    float *de;           /* device gradient to e */
    float *out;          /* device [Bmax][outputs] */
    float *feats;        /* explainers with features: device [Bmax][T][k], scaled
                            by feat_scale, at the active length */
    uint8_t *omask;      /* explainers: device [Bmax][T], 1 where the output is
                            predicted (NULL when it is everywhere) */
    uint8_t *real_host;  /* cnn explainers with features: host [Bmax][T], 1 at the
                            non-PAD positions of the current input (active length):
                            ee_run_set_features gives the PAD ones zero features */
    int in_width;        /* T*d or D: floats per row of e, at the full T */
    int qkv0_given;      /* transformer: the next forward finds layer 0's
                            q, k, v already in place (ee_tf_layer0_qkv) */
    int ctx0_given;      /* transformer classifier of 2 or more layers, no
                            dropout: the next forward finds layer 0's
                            attention output in place (ee_tf_layer0_ctx)
                            and starts at its out projection */
    float *value_path;   /* transformer classifier, host [B][T][H + L H] or NULL:
                            when set, the next backward writes there, per row and
                            position (at the active length T), the last layer's
                            [CLS] attention P per head and the value-path score
                            v . dv of every layer and head (EE_INPUTS_ATTENTION) */
    int T;               /* active sequence length of the current input (<= cfg.T):
                            positions past it are never read by a classifier, so
                            the pass runs on [B][T] rows (set by ee_run_set_input) */
    void *kind;          /* per-kind activations */
};

/* ee_run_new's keep: no backward; the activations of a full backward;
 * those of a transformer classifier's backward through the last layer's
 * [CLS] row only (every backward of the run is top_only, and the
 * gradient buffers of every position, which it never writes, are not
 * allocated: zeroing them was a fixed cost of each explainer call with
 * EE_INPUTS_ATTENTION_TOP). */
typedef enum { EE_KEEP_NONE = 0, EE_KEEP_FULL = 1, EE_KEEP_TOP = 2 } EeRunKeep;
/* Creates a run. with_grads: allocate parameter gradients; keep
 * (EeRunKeep): store activations for the backward pass. */
EeStatus ee_run_new(EeModel *m, const EeBackend *be, int Bmax, int keep, int with_grads,
                    EeRun **out);
void ee_run_free(EeRun *r);
/* Upload inputs of B rows (ids/mask for token models, x for dense); a NULL
 * mask means id != PAD; an explainer attends to every position. */
EeStatus ee_run_set_input(EeRun *r, const int32_t *ids, const uint8_t *mask, const float *x,
                          int B);
/* Same with an explicit active length L (>= the needed length of every row,
 * <= cfg.T), so that several inputs share one layout. */
EeStatus ee_run_set_input_len(EeRun *r, const int32_t *ids, const uint8_t *mask, const float *x,
                              int B, int L);
/* Shortest active length that gives the same outputs for these rows (host
 * arrays with stride cfg.T; mask NULL = id != PAD): the transformer never
 * reads positions past the last attended one, the cnn's windows past the
 * last non-PAD token see zeros. Explainers use the full T. */
int ee_run_needed_len(const EeRun *r, const int32_t *ids, const uint8_t *mask, int B);
/* Floats per row of e and de in the current layout. */
static inline int ee_run_width(const EeRun *r)
{
    return ee_is_token_model(&r->m->cfg) ? r->T * r->m->cfg.d : r->in_width;
}
void ee_run_embed(EeRun *r, int B);
void ee_run_forward(EeRun *r, int B, int train);
void ee_run_backward(EeRun *r, int B, const float *dout, int need_de, int param_grads);
void ee_run_embed_backward(EeRun *r, int B);
/* The kind's deeplift_backward; EE_ERR_UNSUPPORTED where the kind or the
 * run's backend has no DeepLIFT. */
EeStatus ee_run_deeplift_backward(EeRun *r, int B, const float *dout);

/* Weights: run -> host. */
void ee_run_pull_weights(EeRun *r);
/* Device pointer of parameter i's weights / gradients in the run. */
static inline float *ee_run_w(EeRun *r, int i) { return r->w + r->m->p[i].offset; }
static inline float *ee_run_g(EeRun *r, int i) { return r->g ? r->g + r->m->p[i].offset : NULL; }

/* Transformer: the run's buffers for layer 0's q, k, v ([Bmax*T][d] each,
 * laid out at the active length). A caller that fills them (and r->e) and
 * sets r->qkv0_given skips those projections in the next forward (SV reuses
 * the projections of unchanged positions). */
void ee_tf_layer0_qkv(EeRun *r, float **q, float **k, float **v);
/* Its buffer for layer 0's attention output ([Bmax*T][d], heads side by
 * side, at the active length). A caller that fills it (and r->e) and sets
 * r->ctx0_given skips layer 0's projections and attention in the next
 * forward (occlusion computes it from the row's, attr/tf_incremental.c).
 * Only for a classifier of 2 or more layers without dropout: layer 0 is
 * then not the [CLS]-only last layer, and nothing else reads its q, k,
 * v or P. */
float *ee_tf_layer0_ctx(EeRun *r);

/* Explainer features of B rows (host [B][cfg.T][k], the layout of
 * EeInput.feats) for the input set last; divided by the model's feat_scale. */
EeStatus ee_run_set_features(EeRun *r, const float *feats, int B);

/* Zero the gradients that training must not apply: row 0 (PAD) of every
 * token embedding and every frozen tensor. */
void ee_run_drop_fixed_grads(EeRun *r);

/* Shared allocation helper for kinds and callers of a run: memory of the
 * run's backend, zero-filled; sets *fail when it cannot be had. */
static inline void *ee_run_alloc(EeRun *r, size_t bytes, int *fail)
{
    void *p = r->be->alloc(bytes);
    if (!p) *fail = 1;
    return p;
}
/* Same, not zero-filled where the backend has alloc_scratch: for a
 * buffer that every pass writes before it reads it. */
static inline void *ee_run_alloc_scratch(EeRun *r, size_t bytes, int *fail)
{
    void *p = r->be->alloc_scratch ? r->be->alloc_scratch(bytes) : r->be->alloc(bytes);
    if (!p) *fail = 1;
    return p;
}

/* ---- views: the weights that code outside a kind reads (the samplers'
 * incremental paths), as checked pointers into w (m->w, or a run's r->w)
 * that the kind exports; nothing outside models/ reads p[].offset ---- */
/* Tensor i of m within w, after checking that it is group[index].field;
 * NULL (and *fail set) when it is not. */
const float *ee_param_view(const EeModel *m, const float *w, int i, const char *group, int index,
                           const char *field, int *fail);
/* A cnn classifier (cnn.c). */
typedef struct {
    int K, F, d, C;                /* widths, filters, embedding width, classes */
    const int *widths;             /* [K] */
    const float *E;                /* token embeddings [V][d] */
    const float *W[EE_MAX_WIDTHS]; /* convolution k: [w_k * d][F], row j*d + c */
    const float *b[EE_MAX_WIDTHS]; /* its bias [F]; NULL without biases */
    const float *Wc, *bc;          /* classifier [K*F][C]; bias [C] or NULL */
} EeCnnView;
/* EE_ERR_MODEL unless m is a cnn classifier with its tensors in place. */
EeStatus ee_cnn_view(const EeModel *m, const float *w, EeCnnView *v);
/* The transformer's layer-0 projections q, k, v (transformer.c): W[0..2]
 * = Wq, Wk, Wv [d][d], b[0..2] = bq, bk, bv [d]. */
typedef struct {
    const float *W[3], *b[3];
} EeTfQkvView;
/* EE_ERR_MODEL unless m is a transformer with at least one layer. */
EeStatus ee_tf_qkv0_view(const EeModel *m, const float *w, EeTfQkvView *v);

/* ---- prediction (predict.c, above run.c) ---- */
/* Default rows per model pass of a kind on a device. */
int ee_default_batch(const EeConfig *c, EeDevice dev);
/* Runs fn(ctx, B) with B = batch (or the device's default when batch <= 0)
 * and, on the GPU, halves B while fn runs out of memory: a batch that does
 * not fit is split, not refused. */
typedef EeStatus (*EeBatchFn)(void *ctx, int B);
EeStatus ee_fit_batch(EeDevice dev, const EeConfig *c, int batch, EeBatchFn fn, void *ctx);
/* Forward pass of rows i0 .. i0+nb-1 of an input (nb <= Bmax) into out
 * (host, nb x outputs): ids and mask (NULL: id != PAD) and explainer
 * features, or dense x. */
EeStatus ee_run_predict(EeRun *r, const EeInput *in, int i0, int nb, float *out);
/* order[0..N-1]: the rows by their last attended position (the mask's, or
 * the last non-PAD id's when mask is NULL), shortest first, ties by index;
 * the passes that take rows in this order run at similar active lengths.
 * lengths[0..N-1], when not NULL, receives each row's position (by row
 * index). */
void ee_rows_by_length(const int32_t *ids, const uint8_t *mask, int N, int T, int *order, int *lengths);

#endif
