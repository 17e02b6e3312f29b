/* ee.h: the public interface of libcore, the C core of Empirical Explainers.
 *
 * Pure C, no Octave/MATLAB types. Objects are opaque and owned by libcore
 * (create with *_new, release with *_free). Every function that can fail
 * returns an EeStatus and leaves a message in a per-thread buffer
 * (ee_last_error()). Token ids are 0-based here (PAD = 0, UNK = 1,
 * CLS = 2, SEP = 3); the Octave gateways convert from 1-based ids. */
#ifndef EE_H
#define EE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ------------------------------------------------------------ */
typedef enum {
    EE_OK = 0,
    EE_ERR_INPUT,        /* ee:badInput */
    EE_ERR_MODEL,        /* ee:badModel */
    EE_ERR_NOMEM,        /* ee:outOfMemory */
    EE_ERR_NODEVICE,     /* ee:noDevice */
    EE_ERR_IO,           /* ee:ioError */
    EE_ERR_UNSUPPORTED,  /* ee:notSupported */
    EE_ERR_INTERRUPTED   /* ee:interrupted (user pressed Ctrl-C) */
} EeStatus;

const char *ee_last_error(void);
/* The Octave error id ("ee:badInput", ...) of a status. */
const char *ee_status_id(EeStatus st);
/* Sets the per-thread message and returns st, so callers can write
 * `return ee_fail(EE_ERR_INPUT, "...", ...);`. */
EeStatus ee_fail(EeStatus st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- special tokens (0-based) ------------------------------------------ */
enum { EE_PAD = 0, EE_UNK = 1, EE_CLS = 2, EE_SEP = 3 };
#define EE_IS_SPECIAL(id) ((id) == EE_PAD || (id) == EE_CLS || (id) == EE_SEP)

/* ---- devices ------------------------------------------------------------ */
typedef enum { EE_DEVICE_AUTO = 0, EE_DEVICE_CPU, EE_DEVICE_GPU } EeDevice;
/* Name <-> enum tables: the names of an enum in enum order, as the model
 * struct, the gateways' options and the command-line tool spell them, and
 * their number. The front ends take them from here (never a copy). */
#define EE_DEVICE_COUNT 3
extern const char *const ee_device_names[EE_DEVICE_COUNT]; /* auto cpu gpu */
/* 1 when the build has CUDA and a GPU is visible. */
int ee_gpu_available(void);
/* Resolves AUTO and checks availability; EE_ERR_NODEVICE for GPU without one. */
EeStatus ee_device_resolve(EeDevice want, EeDevice *got);

/* Precision of the matrix products (GEMMs, the attention products, the
 * convolution): fp32 (the default, every result as documented), or the
 * tensor cores of a GPU, fed tf32 (10-bit mantissa) or bf16 (7-bit) inputs
 * with FP32 accumulation. Everything else stays FP32 whatever the
 * precision: activations in memory, LayerNorm statistics, softmax sums, the
 * IG accumulation, losses and the optimiser (doc/GPU.md has the errors). */
typedef enum { EE_PRECISION_FP32 = 0, EE_PRECISION_TF32, EE_PRECISION_BF16 } EePrecision;
#define EE_PRECISION_COUNT 3
extern const char *const ee_precision_names[EE_PRECISION_COUNT]; /* fp32 tf32 bf16 */
/* EE_OK when a resolved device computes at precision p; EE_ERR_UNSUPPORTED
 * for tf32/bf16 on the CPU (no tensor cores: fp32 only). */
EeStatus ee_precision_check(EeDevice dev, EePrecision p);

/* The GPU of this process: index modulo the number of visible devices (a
 * launcher gives each rank the GPU of its local rank); call it before
 * anything else touches the GPU. Returns the device chosen, or -1 when
 * there is none (always without CUDA). */
int ee_device_select(int index);
/* One line about the GPU in use ("NVIDIA H100 80GB HBM3, sm_90, ...") or
 * why there is none. */
const char *ee_device_describe(void);
/* Releases the GPU's process-wide state (library handles, workspace,
 * timing events; nothing without CUDA). Front ends call it at exit; a
 * later call recreates what it needs. */
void ee_shutdown(void);

/* ---- model configuration ------------------------------------------------ */
typedef enum { EE_KIND_TRANSFORMER = 0, EE_KIND_CNN, EE_KIND_MLP } EeKind;
/* What sits on top of the encoder: a classifier (pooler for the transformer,
 * max-over-time for the cnn) or an Empirical Explainer head. */
typedef enum { EE_HEAD_CLASSIFIER = 0, EE_HEAD_FLAT, EE_HEAD_TOKEN } EeHead;
#define EE_KIND_COUNT 3
extern const char *const ee_kind_names[EE_KIND_COUNT]; /* transformer cnn mlp */
#define EE_HEAD_COUNT 3
extern const char *const ee_head_names[EE_HEAD_COUNT]; /* classifier flat token */
int ee_head_from_name(const char *name, EeHead *h);
/* EeConfig.attend_tokens 0, 1 by name (an explainer's 'attend'). */
#define EE_ATTEND_COUNT 2
extern const char *const ee_attend_names[EE_ATTEND_COUNT]; /* all tokens */
/* What an Empirical Explainer reads besides the token ids: nothing (the
 * paper's design), or per-token features from one gradient of the
 * classifier it explains (ee_explainer_features): the gradient x input
 * score of each token (1 feature), that score and its d terms (1 + d), or
 * that score and the same with the gradient taken at the pad baseline (2:
 * both ends of the IG path; the baseline's gradient is shared by every row
 * of one length and target class, so it costs a pass per such pair), or
 * those two and the occlusion scores of each token (4: leave-one-out and
 * add-one, the marginal contributions of the token when it comes last and
 * first in a Shapley permutation; 2 n + 2 forward passes more for n real
 * tokens), or the two ends and the same score with the gradient at each of
 * the EE_PATH_NODES Gauss-Legendre nodes inside the path (2 + EE_PATH_NODES:
 * the integrand of IG sampled where its quadrature samples it; a forward
 * and a backward pass per node), or, for a transformer classifier, the two
 * ends, the [CLS] query's attention to the token in each of the H heads of
 * the last layer, and the token's value-path score in each head of each of
 * the L layers (its value times the target logit's gradient at it: what the
 * token adds through that head, linearised where the classifier is; 2 + H +
 * L H, read from the passes of the two ends, so at their cost), or, for a
 * transformer classifier, what the classifier's forward pass and a backward
 * pass through its last layer's [CLS] row alone give (no full backward
 * pass: about a quarter of the call less on the glosses): the score at the
 * baseline end (its gradient kept across calls), the last layer's [CLS]
 * attention and the last layer's value-path scores (1 + 2 H). */
typedef enum {
    EE_INPUTS_TOKENS = 0, EE_INPUTS_GRADIENT, EE_INPUTS_GRADIENT_VECTOR, EE_INPUTS_GRADIENT_ENDS,
    EE_INPUTS_OCCLUSION, EE_INPUTS_PATH, EE_INPUTS_ATTENTION, EE_INPUTS_ATTENTION_TOP
} EeInputs;

/* Interior path nodes of EE_INPUTS_PATH (doc/FIGURE5_LOG.md: 1, 2, 3 and 4
 * measured on the IG wordnet panel). */
#define EE_PATH_NODES 3

#define EE_MAX_WIDTHS 8
#define EE_MAX_HIDDEN 16

typedef struct {
    EeKind kind;
    EeHead head;
    int bias;                 /* cnn, mlp: 0 removes every bias */
    int vocab;                /* V (token models) */
    int T;                    /* sequence length (token models) */
    int d;                    /* embedding / hidden width */
    int classes;              /* C */
    /* transformer */
    int heads, layers, ffn;
    /* cnn */
    int filters, nwidths, widths[EE_MAX_WIDTHS];
    /* mlp */
    int D, nhidden, hidden[EE_MAX_HIDDEN];
    /* Empirical Explainers (head != EE_HEAD_CLASSIFIER) */
    EeInputs inputs;          /* extra per-token features (see EeInputs) */
    int attend_tokens;        /* 1: attend to non-PAD positions only and run at the
                                 active length, like the classifier; 0: every
                                 position (the paper) */
    int zero_special;         /* 1: the output is 0 at [CLS], [SEP] and PAD (where
                                 pad-baseline attributions are 0 by definition) */
    int efficiency;           /* 1: ee_explain shifts the real tokens' scores so that
                                 they sum to f(x) - f(pad baseline), as the targets
                                 do (needs features and zero_special) */
    int margin;               /* 1 (binary classifiers): the explainer learns one map
                                 for both classes, the explained class's map signed
                                 toward the second class (as the margin z_2 - z_1 is
                                 explained); ee_explain signs it for the class the
                                 classifier predicts (ee_explain says how it knows) */
} EeConfig;

/* Fills the documented defaults for a kind (sizes that are 0 stay to be set
 * from data: vocab, T, classes, D). */
void ee_config_defaults(EeConfig *cfg, EeKind kind);
/* Checks every size for range and consistency. */
EeStatus ee_config_check(const EeConfig *cfg);
const char *ee_kind_name(EeKind k);
int ee_kind_from_name(const char *name, EeKind *k);
const char *ee_head_name(EeHead h);
int ee_is_token_model(const EeConfig *cfg);
/* Number of outputs per row: classes, or T for an explainer. */
int ee_config_outputs(const EeConfig *cfg);
/* Nonnegatively homogeneous in e (bias-free ReLU cnn/mlp classifier). */
int ee_config_homogeneous(const EeConfig *cfg);
/* Per-token input features of an explainer (0 for EE_INPUTS_TOKENS). */
int ee_config_features(const EeConfig *cfg);
/* 1 for an explainer that needs its classifier at ee_explain: one that
 * reads features of it, or a margin explainer (the baseline's margin). */
int ee_config_reads_classifier(const EeConfig *cfg);
/* The names of EeInputs in enum order, as the model struct and the front
 * ends' 'inputs' option spell them. */
#define EE_INPUTS_COUNT 8
extern const char *const ee_inputs_names[EE_INPUTS_COUNT];
/* The names of EeTrainOptions.freeze_embeddings 0, 1, 2 ('freeze'). */
#define EE_FREEZE_COUNT 3
extern const char *const ee_freeze_names[EE_FREEZE_COUNT];
const char *ee_inputs_name(EeInputs i);
int ee_inputs_from_name(const char *name, EeInputs *i);

/* ---- models --------------------------------------------------------------- */
typedef struct EeModel EeModel;

/* Parameters are exposed as a flat list of named tensors. A tensor belongs
 * to an optional group (a struct array in the exchange format, e.g.
 * "encoder", "conv", "fc") at a 0-based index, under a field name.
 * `dims` are the exchange (Octave) dimensions; the data is handed over in
 * Octave's column-major order by ee_param_get/ee_param_set. */
typedef struct {
    const char *group;   /* NULL for top-level fields */
    int index;           /* position in the group (0-based) */
    const char *field;   /* e.g. "Wq", "E_tok", "W" */
    int ndims;
    int dims[3];         /* exchange dims; ndims = 2 or 3 */
    size_t count;
} EeParamInfo;

/* A model with all weights zero (use ee_model_init or ee_param_set). */
EeStatus ee_model_new(const EeConfig *cfg, EeModel **out);
void ee_model_free(EeModel *m);
const EeConfig *ee_model_config(const EeModel *m);
int ee_model_nparams(const EeModel *m);
void ee_model_param_info(const EeModel *m, int i, EeParamInfo *info);
/* Index of a parameter by (group, index, field); -1 if absent. */
int ee_model_find_param(const EeModel *m, const char *group, int index, const char *field);
/* Copy one tensor in/out in exchange (column-major) order. ee_param_set
 * rejects NaN/Inf and a nonzero PAD row of a token embedding. */
EeStatus ee_param_set(EeModel *m, int i, const float *colmajor, size_t count);
EeStatus ee_param_get(const EeModel *m, int i, float *colmajor, size_t count);
/* Random initialisation from a seed (documented in doc/MODEL_FORMAT.md). */
void ee_model_init(EeModel *m, uint64_t seed);
/* Total number of trainable scalars. */
size_t ee_model_size(const EeModel *m);
/* ---- Empirical Explainers (libcore/explainer/: the design and its
 * defaults, construction, features and ee_explain) ---- */
/* An Empirical Explainer's design (see EeConfig). */
typedef struct {
    EeHead head;
    EeInputs inputs;
    int attend_tokens, zero_special, efficiency;
    /* a transformer's explainer: its encoder is the first `layers` of the
     * classifier's (0: all of them; fewer cost less per explanation) */
    int layers;
    int margin; /* EeConfig.margin */
} EeExplainerSpec;
/* The paper's design: flat head, tokens only, every position. */
void ee_explainer_spec_paper(EeExplainerSpec *s);
/* This project's default (doc/FIGURE5_LOG.md: the measurements behind it). */
void ee_explainer_spec_default(EeExplainerSpec *s);
/* The design's inputs for its target maps: when the caller did not name the
 * inputs (inputs_given 0) and the maps are Shapley values computed by the
 * front end (shapley 1), a design that reads the gradient at both ends
 * (EE_INPUTS_GRADIENT_ENDS, the default) reads the occlusion scores
 * instead (half the error on the SV panels, doc/FIGURE5_LOG.md).
 * ee_explainer_design applies it. */
void ee_explainer_spec_for_maps(EeExplainerSpec *s, int shapley, int inputs_given);
/* The designs ('design', ee_design_names) and the explainer's outputs
 * ('outputs', ee_outputs_names: 'auto' decides from the training maps,
 * 'tokens' is 0 at [CLS], [SEP] and PAD, 'all' predicts every position). */
typedef enum { EE_DESIGN_DEFAULT = 0, EE_DESIGN_PAPER } EeDesign;
#define EE_DESIGN_COUNT 2
extern const char *const ee_design_names[EE_DESIGN_COUNT]; /* default paper */
typedef enum { EE_OUTPUTS_AUTO = 0, EE_OUTPUTS_TOKENS, EE_OUTPUTS_ALL } EeOutputs;
#define EE_OUTPUTS_COUNT 3
extern const char *const ee_outputs_names[EE_OUTPUTS_COUNT]; /* auto tokens all */
/* What the caller of a front end named of an explainer's design: the
 * design, and each option it gave (-1: not given, the design decides):
 * head (EE_HEAD_FLAT or EE_HEAD_TOKEN), inputs (EeInputs), attend (0 all,
 * 1 tokens), outputs (EeOutputs), efficiency (0, 1); layers (0: not
 * given, all of the classifier's; else how many of its encoder layers the
 * explainer keeps, a transformer's only); and margin (0, 1). */
typedef struct {
    EeDesign design;
    int head, inputs, attend, outputs, efficiency;
    int layers;
    int margin;
} EeExplainerChoices;
/* The default design, nothing named. */
void ee_explainer_choices_init(EeExplainerChoices *c);
/* Where the training maps come from: given by the caller, or computed by
 * the front end with IG or Shapley Value Sampling (or Shapley coalition
 * values, the kernel loss, where there are no maps). */
typedef enum { EE_MAPS_GIVEN = 0, EE_MAPS_IG, EE_MAPS_SV } EeMapsSource;
/* The explainer's spec from the caller's choices and its training maps
 * (A: n x T row-major for the rows ids, or NULL: none): the design, then
 * each named option (a flat head attends everywhere), the inputs for the
 * maps (ee_explainer_spec_for_maps), the outputs ('auto': 'tokens' when
 * the maps are 0 at every special token or there are none, else 'all'; a
 * design without zeroed special tokens defaults to 'all'), efficiency
 * (by default where it applies: features and zeroed special tokens). The
 * one place the front ends' explainer defaults are decided. */
EeStatus ee_explainer_design(const EeExplainerChoices *c, EeMapsSource maps, const int32_t *ids, const float *A,
                             long n, int T, EeExplainerSpec *s);
/* Whether clf can have an explainer of the caller's choices, asked before
 * the training maps are known (the front ends ask before they compute
 * them): the design ee_explainer_design makes without maps, checked as
 * ee_explainer_new checks it (e.g. the cnn's explainer has the token head
 * only: EE_ERR_UNSUPPORTED). What depends on the maps ('outputs' 'auto')
 * is taken at its most permissive; ee_explainer_new decides it. */
EeStatus ee_explainer_check_choices(const EeModel *clf, const EeExplainerChoices *c, EeMapsSource maps);
/* Explainer built from a classifier: copies the embedding module and the
 * encoder, adds a fresh head (and the feature weights, zero) initialised
 * from seed. */
EeStatus ee_explainer_new(const EeModel *clf, const EeExplainerSpec *spec, uint64_t seed,
                          EeModel **out);
/* The same with the paper's design and the given head. */
EeStatus ee_model_make_explainer(const EeModel *clf, EeHead head, uint64_t seed, EeModel **out);

/* An Empirical Explainer of a function of feature vectors (any model given
 * as a function, ee_sv_fn and its kin): an mlp with head 'flat', D inputs
 * (the features of a row), nhidden ReLU layers of the given widths (0: a
 * linear map) and P outputs, one attribution per player (held in
 * EeConfig.classes). ee_train fits it to N x P maps by MSE; ee_model_predict
 * gives its N x P maps. Random initialisation from seed. */
EeStatus ee_feature_explainer_new(int D, int P, int nhidden, const int *hidden, uint64_t seed, EeModel **out);
/* 1 for such an explainer (kind mlp, head not classifier). */
int ee_is_feature_explainer(const EeConfig *cfg);
/* The scaling of such an explainer's inputs (libcore/train/input_scale.c):
 * per column of the n x F row-major training rows, center = the median and
 * scale = the interquartile range / 1.349 (the standard deviation where
 * that is 0, 1 for a constant column), squash = EE_INPUT_SQUASH for a
 * heavy-tailed column (a training value more than EE_INPUT_HEAVY scales
 * from the median), else Inf; NaN or Inf in x is EE_ERR_INPUT. A value x
 * becomes z = (x - center) / scale, and where |z| > squash
 * sign(z) (squash + log(1 + |z| - squash)). */
#define EE_INPUT_SQUASH 3.0
#define EE_INPUT_HEAVY 6.0
EeStatus ee_input_scale_fit(const float *x, long n, int F, double *center, double *scale, double *squash);
double ee_input_scale_value(double x, double center, double scale, double squash);
void ee_input_scale_apply(const double *center, const double *scale, const double *squash, const float *x, long n,
                          int F, float *out);

/* ---- inputs ---------------------------------------------------------------- */
/* A batch of N rows. Token models: ids (N x T, row-major, 0-based) and an
 * optional mask (N x T, 1 = attended; NULL means id != PAD). Dense models:
 * x (N x D, row-major). */
typedef struct {
    int n;
    const int32_t *ids;
    const uint8_t *mask;
    const float *x;
    /* Explainers that read features: N x T x k (row-major, k =
     * ee_config_features), e.g. from ee_explainer_features. */
    const float *feats;
} EeInput;

/* Validates ids range, mask rows (at least one attended position, and
 * position 0 attended for the transformer classifier). */
EeStatus ee_input_check(const EeModel *m, const EeInput *in);

/* Forward pass: out is N x outputs (row-major): logits of a classifier,
 * T scores of an explainer. batch = rows per pass (0 = automatic). */
EeStatus ee_model_predict(EeModel *m, const EeInput *in, float *out, int batch, EeDevice dev);
/* The same at a given precision of the matrix products (see EePrecision). */
EeStatus ee_model_predict_precision(EeModel *m, const EeInput *in, float *out, int batch,
                                    EeDevice dev, EePrecision precision);
/* The class a row of n logits predicts: the largest, ties to the lowest
 * index (the one argmax of libcore and its front ends; the double version
 * for logits summed in double). */
int ee_argmax(const float *z, int n);
int ee_argmax_double(const double *z, int n);

/* ---- training ---------------------------------------------------------- */
typedef enum { EE_SCHEDULE_CONSTANT = 0, EE_SCHEDULE_COSINE } EeSchedule;
#define EE_SCHEDULE_COUNT 2
extern const char *const ee_schedule_names[EE_SCHEDULE_COUNT]; /* constant cosine */

typedef struct {
    int epochs, batch, patience;
    float lr, dropout, weight_decay;
    /* learning rate over the run: constant, or a linear warm-up over the
     * first 5 % of the steps and a cosine decay to lr/20 at the last */
    EeSchedule schedule;
    /* explainers: train on the maps divided by their RMS over the predicted
     * positions and fold the factor back into the head at the end, so the
     * optimiser sees unit-scale targets whatever the attribution scale */
    int standardize;
    /* keep parts of the model as they are: 0 nothing, 1 the token and
     * position embeddings (and their LayerNorm), 2 those and every encoder
     * layer but the last (an explainer then tunes its last layer, head and
     * feature weights) */
    int freeze_embeddings;
    uint64_t seed;
    int verbose;
    EeDevice device;
    EePrecision precision; /* of the matrix products (fp32 default) */
    /* Called once per epoch and every progress tick; return nonzero to stop
     * (e.g. Ctrl-C in Octave). May be NULL. */
    int (*interrupt)(void *ctx);
    void *interrupt_ctx;
    /* Progress printer; NULL prints to stderr. */
    void (*print)(void *ctx, const char *line);
    void *print_ctx;
    /* Attribution prior: adds prior_weight * ||prior_mask .* A(x)||^2 per
     * row to the loss, A the X-Gradient of the row's label logit (D floats;
     * NULL = no prior). Bias-free mlp classifiers without dropout only
     * (EE_ERR_UNSUPPORTED otherwise); its gradient is exact with the
     * activation pattern held fixed (libcore/train/prior.c). */
    const float *prior_mask;
    float prior_weight;
    /* 1: every step runs its rows as one batch, at its longest row's
     * length. 0 (the default): an explainer's step on the CPU without
     * dropout or prior runs its rows in groups of similar length and adds
     * their gradients, the same gradient for less padding (train.c) */
    int whole_batches;
} EeTrainOptions;

void ee_train_options_defaults(EeTrainOptions *o, EeKind kind, EeHead head);

/* Per-epoch record. */
typedef struct {
    int epochs_run, best_epoch;
    float *train_loss, *valid_loss, *valid_metric; /* length epochs_run */
    float *prior_penalty; /* the prior's mean penalty per epoch (NULL without a prior);
                             train_loss is the task loss alone */
    double seconds;
    int stopped_early;
    long passes; /* forward and backward passes of the training steps: one per
                    step, or one per group of a step split by length */
} EeHistory;
void ee_history_free(EeHistory *h);

/* The targets of target-free Shapley training (ee_kernel_values, below):
 * per row, K coalitions of its real tokens (bit j of a coalition's words
 * = the row's j-th real token, in position order, is present), their
 * values b(S) = v(S) - v(empty), optional weights and the row's
 * v(N) - v(empty). Arrays row-major, allocated by the caller. */
typedef struct {
    int K;            /* coalitions per row */
    int words;        /* uint64 words per coalition (ee_kernel_words) */
    uint64_t *coal;   /* N x K x words */
    float *value;     /* N x K: b(S_k) */
    float *weight;    /* N x K: w_k; NULL: 1/K each (sampled coalitions) */
    float *total;     /* N: v(N) - v(empty) */
    long passes;      /* classifier passes ee_kernel_values took */
    double seconds;
} EeKernelTargets;

/* Training targets: class labels (classifier, 0-based, length n) or
 * attribution maps (explainer, n x T row-major), or, for an explainer
 * trained without maps, coalition values (kernel; maps NULL): the loss is
 * then ee_kernel_loss of each row (doc/MODELS.md, "Target-free training";
 * validation rows keep their maps and MSE). */
typedef struct {
    EeInput in;
    const int32_t *labels;
    const float *maps;
    const EeKernelTargets *kernel;
} EeDataset;

/* Trains in place; keeps the weights of the best validation epoch when a
 * validation set is given (valid may have n = 0). */
EeStatus ee_train(EeModel *m, const EeDataset *train, const EeDataset *valid,
                  const EeTrainOptions *opt, EeHistory *hist);

/* ---- attribution ---------------------------------------------------------- */
typedef enum {
    EE_IG_GAUSSLEGENDRE = 0, EE_IG_RIEMANN_RIGHT, EE_IG_RIEMANN_LEFT, EE_IG_RIEMANN_MIDDLE,
    EE_IG_RIEMANN_TRAPEZOID, EE_IG_XGRAD,
    /* Input x Gradient: e .* grad f(e), one gradient, any model; the same
     * numbers as xgrad, without its check that the network is bias-free
     * (where it is not, this is not IG: the X-DNN comparison needs it) */
    EE_IG_GRADXINPUT
} EeIgMethod;
#define EE_IG_METHOD_COUNT 7
/* gausslegendre riemann_right riemann_left riemann_middle riemann_trapezoid
 * xgrad gradxinput */
extern const char *const ee_ig_method_names[EE_IG_METHOD_COUNT];
typedef enum { EE_BASELINE_PAD = 0, EE_BASELINE_ZERO, EE_BASELINE_IDS } EeBaseline;
/* The baselines given by name (pad zero); EE_BASELINE_IDS comes as ids. */
#define EE_BASELINE_NAMED 2
extern const char *const ee_baseline_names[EE_BASELINE_NAMED];

typedef struct {
    int steps;                    /* s (IG) or samples (SV) */
    EeIgMethod method;            /* IG only */
    EeBaseline baseline;
    const int32_t *baseline_ids;  /* N x T, 0-based, for EE_BASELINE_IDS */
    const int32_t *target;        /* N, 0-based; NULL = argmax */
    /* SV: explicit permutations: perms[i] holds steps x n_i 0-based feature
     * indices, row-major (NULL = draw from seed) */
    const int32_t *const *perms;
    uint64_t seed;
    /* Row index of in->ids[0] in the caller's full data: the SV streams are
     * keyed by it, so a run split by row ranges equals the unsplit run. */
    long row_offset;
    int batch;                    /* rows per model pass (0 = automatic) */
    /* SV: evaluate every perturbed copy with a full model pass instead of
     * the incremental cnn path (for tests that compare the two) */
    int full_passes;
    EeDevice device;
    EePrecision precision;        /* of the matrix products (fp32 default) */
    int verbose;
    void (*print)(void *ctx, const char *line);
    void *print_ctx;
} EeAttrOptions;

void ee_attr_options_defaults(EeAttrOptions *o);

/* Per-row results (arrays of length N, allocated by the caller; any may be
 * NULL) and totals. */
typedef struct {
    int32_t *target;   /* 0-based */
    float *fx, *fbaseline, *delta;
    long forward, backward;
    double seconds;
    /* SV (optional, N x T): the sample variance over the permutations of
     * each feature's marginal contribution, i.e. the variance of a
     * one-permutation estimate (0 for s = 1); its mean over positions / s
     * is the expected squared error of the s-sample estimate */
    float *variance;
    /* of forward + backward, the passes at baselines that were read from
     * what the process kept from an earlier call instead of run again
     * (ee_explainer_features): forward and backward count every pass a
     * call needs, so they do not depend on what ran before (last, so that
     * positional initialisers of the fields above stay valid) */
    long kept;
} EeAttrInfo;

/* Integrated Gradients / X-Gradient: A is N x T (token models) or N x D
 * (mlp), row-major. */
EeStatus ee_ig_attribute(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                         EeAttrInfo *info);
/* Shapley Value Sampling (token models): A is N x T. */
EeStatus ee_sv_attribute(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                         EeAttrInfo *info);
/* Exact Shapley values by enumerating all 2^n coalitions of the n real
 * tokens (n <= 12), same features, baseline and mask as ee_sv. */
EeStatus ee_shapley_exact(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *A,
                          EeAttrInfo *info);
/* Features of an explainer with inputs != EE_INPUTS_TOKENS, from one
 * forward and one backward pass of the classifier per row: at each
 * position t, with e_x the embedding-layer output, e_b that of the pad
 * baseline, g the gradient of the target logit at e_x and g_b at e_b,
 *   F[t][0] = sum_d (e_x - e_b)[t][d] g[t][d]   (gradient x input)
 *   F[t][1 + d] = (e_x - e_b)[t][d] g[t][d]     (EE_INPUTS_GRADIENT_VECTOR)
 *   F[t][1] = sum_d (e_x - e_b)[t][d] g_b[t][d] (EE_INPUTS_GRADIENT_ENDS and
 *             _OCCLUSION; one forward and backward per distinct baseline
 *             and target)
 *   F[t][2] = f(x) - f(x with token t replaced by the baseline's)
 *   F[t][3] = f(baseline with token t of x) - f(baseline)
 *             (EE_INPUTS_OCCLUSION; ee_sv's baseline and mask; 0 at the
 *             special tokens; 2 n + 2 forward passes per row)
 *   F[t][2 + p] = sum_d (e_x - e_b)[t][d] g_p[t][d], g_p the gradient at
 *             e_b + a_p (e_x - e_b), a_p the p-th node of the EE_PATH_NODES-
 *             point Gauss-Legendre rule (EE_INPUTS_PATH; a forward and a
 *             backward pass per node and row)
 * F is N x T x k (k = ee_config_features of the explainer). Targets: o->target
 * or the argmax; o->batch and o->device apply; info gets target, fx and the
 * passes. The gradient and logit at a baseline (the inputs with both
 * ends) depend only on the classifier, the baseline row, its mask and the
 * target: the process keeps them (up to 64 MB, under the classifier's
 * weight fingerprint, the device and the precision) and a later call
 * reads them instead of running those passes again; it counts them all
 * the same, and info->kept says how many it read. */
EeStatus ee_explainer_features(EeModel *clf, EeInputs inputs, const EeInput *in,
                               const EeAttrOptions *o, float *F, EeAttrInfo *info);
/* The features for training an explainer with configuration ecfg: for every
 * row of the training set and of the validation set (valid NULL or empty:
 * none), ee_explainer_features of the classifier clf with the training
 * options' device, precision, progress and printer, into buffers this
 * allocates and sets as each set's in.feats. feats[0] (training) and
 * feats[1] (validation) get them, NULL for an empty set or an explainer
 * that reads no features; the caller frees them (free) after training. On
 * failure they are freed and NULL. info (optional, zeroed by the caller)
 * sums the passes and seconds of both sets. */
EeStatus ee_explainer_train_features(EeModel *clf, const EeConfig *ecfg, EeDataset *train,
                                     EeDataset *valid, const EeTrainOptions *topt, float *feats[2],
                                     EeAttrInfo *info);
/* A margin explainer's training maps (EeConfig.margin): a copy of set's
 * maps (N x T, each of the class the binary classifier clf predicts for
 * its row, ee_ig's and ee_sv's default target) with the rows of the first
 * class negated, so that every map is signed toward the second class.
 * *out is malloc'd (NULL for an empty set or on failure); topt gives the
 * device and precision of the classifier's pass. info (may be NULL) adds
 * that pass's cost: forward (one per row) and seconds. */
EeStatus ee_explainer_margin_maps(EeModel *clf, const EeDataset *set, const EeTrainOptions *topt, float **out,
                                  EeAttrInfo *info);
/* Attribution maps of an explainer, or the mean of an ensemble of K
 * explainers that share T, vocab, inputs and efficiency (N x T): computes
 * the features with the classifier once when the explainers read them (clf
 * may be NULL otherwise), then one pass of each explainer, then (efficiency)
 * shifts each row's real-token scores to sum to f(x) - f(pad baseline),
 * with one classifier pass per distinct baseline. A margin explainer's map
 * is negated for the rows explained for the first class: o->target where
 * given, else the argmax of the features' classifier pass, else (no
 * features) the class the map's sum and the classifier's margin at the
 * row's pad baseline say the classifier predicts (margin.c; one forward
 * pass per distinct baseline, kept across calls). info (optional) counts
 * every pass and gets each row's class; o gives batch, device and the
 * target. */
EeStatus ee_explain(EeModel *const *expl, int K, EeModel *clf, const EeInput *in,
                    const EeAttrOptions *o, float *A, EeAttrInfo *info);
/* Frees the baselines' gradients and logits that ee_explainer_features
 * keeps across calls (the next call runs their passes again). */
void ee_baseline_cache_clear(void);
/* ---- faithfulness of maps, gradient maps and the noise tunnel (issue 20) -- */
/* Faithfulness (attr/faithfulness.c). */
/* How well a map (N x T for token models, N x D for an mlp) ranks the
 * players of each row for the model it explains (doc/MODELS.md,
 * "Faithfulness"). The players are the real tokens (the D features of an
 * mlp), ordered by the map, largest first, ties to the lower position; a
 * removed player takes o's baseline (ee_sv's: pad or ids, under the
 * input's mask; 0 for an mlp, whose o->baseline must be EE_BASELINE_ZERO).
 * s(.) is the score of the target class (o->target or the argmax at x):
 * its softmax probability, or its logit. With n players, D_j is s of x
 * without its top j players, I_j s of the baseline with only them:
 *   comprehensiveness = mean over the bins k of s(x) - D_{m_k},
 *   sufficiency       = mean over the bins k of s(x) - I_{m_k},
 *     m_k = ceil(k n / 100), k in ee_faith_bins (%);
 *   deletion_auc, insertion_auc: trapezoids of D_j, I_j over j / n at
 *     j = round(q n / steps), q = 0..steps (steps = 0: every j = 0..n);
 *   log_odds_drop = L(x) - L(x without its top m players), m =
 *     ceil(logodds_percent n / 100), L = log(p / (1 - p)) of the target;
 *   infidelity = (1/m) sum_k (sum_{t in S_k} A_t - (z(x) - z(x without
 *     S_k)))^2, z the target logit, S_k each player with probability 1/2
 *     from the stream (o->seed, o->row_offset + i, 3 * 2^32 + k), one
 *     uniform per player in order of position (Yeh et al.'s infidelity
 *     with subset-removal perturbations; 0 for an exact additive map);
 *   infidelity_normalized: the same with A scaled by the beta that fits
 *     the drops best in least squares (Captum's normalize = True).
 * Rows without players get NaN. One forward pass per distinct copy,
 * batched across rows (o->batch, o->device, o->precision, o->verbose). */
#define EE_FAITH_BINS 5
extern const int ee_faith_bins[EE_FAITH_BINS]; /* 1 5 10 20 50 */
typedef enum { EE_FAITH_PROBABILITY = 0, EE_FAITH_LOGIT } EeFaithScore;
#define EE_FAITH_SCORE_COUNT 2
extern const char *const ee_faith_score_names[EE_FAITH_SCORE_COUNT]; /* probability logit */
typedef struct {
    int steps;            /* curve points 0..steps (0: every count), default 20 */
    int logodds_percent;  /* 1..100, default 20 */
    EeFaithScore score;   /* default probability */
    int infidelity_samples; /* m subsets per row for the infidelity (0: none) */
} EeFaithOptions;
void ee_faith_options_defaults(EeFaithOptions *f);
/* Per-row results, arrays of the caller (any may be NULL), and totals. */
typedef struct {
    double *comprehensiveness, *sufficiency, *deletion_auc, *insertion_auc, *log_odds_drop; /* N */
    double *comp_bins, *suff_bins;             /* N x EE_FAITH_BINS, row-major */
    double *deletion_curve, *insertion_curve;  /* N x (steps + 1), steps > 0 only */
    int32_t *target, *nreal;                   /* N: 0-based target, players */
    double *fx, *fbaseline;                    /* N: s(x), s(baseline) */
    double *infidelity;                        /* N (NaN without subsets) */
    double *infidelity_normalized;             /* N: the same with A scaled by the best beta */
    long forward;
    double seconds;
} EeFaithResult;
EeStatus ee_faithfulness(EeModel *m, const EeInput *in, const float *A, const EeAttrOptions *o,
                         const EeFaithOptions *f, EeFaithResult *res);
/* Host bytes it allocates (for the memory budget). */
double ee_faithfulness_bytes(const EeModel *m, const EeInput *in, const EeAttrOptions *o,
                             const EeFaithOptions *f);

/* Gradient maps of a classifier's target logit (attr/gradient.c), at the
 * embedding-layer output e (T x d; x for an mlp), one score per token,
 * g = grad f(e~) (doc/MODELS.md, "Gradient maps and the noise tunnel"):
 *   saliency      sum_d g          saliency_abs  sum_d |g|
 *   saliency_l2   sqrt(sum_d g^2)  gradxinput    sum_d e~ g
 *   ig            IG from o's baseline to e~ (o->method's nodes, o->steps)
 *   gradientshap  sum_d (e~ - e_b) g(e_b + a (e~ - e_b)), e_b the embedding
 *                 of x with its real tokens replaced by those of a
 *                 background row b drawn uniformly (an mlp: the row),
 *                 a ~ U[0, 1), the mean over the n samples (noise
 *                 optional: stdev >= 0)
 *   deeplift      sum_d (e~ - e_b) m, m the multipliers of DeepLIFT's
 *                 rescale rule from the reference e_b (o's baseline, as
 *                 ig's); mlp and cnn, CPU only (EE_ERR_UNSUPPORTED on a
 *                 transformer or a GPU; the device AUTO is the CPU); a
 *                 pass of the row and its reference (2 forward, 1 backward)
 * with e~ = e, or, in a noise tunnel, e + z_k for samples k = 1..n, z_k
 * Gaussian of std stdev on every attended position (every feature of an
 * mlp), drawn from the stream (o->seed, o->row_offset + i, 2^32 + k) (then,
 * for gradientshap, b = below(K) and a = uniform from the same stream); the
 * map is the mean of the n maps a_k (smoothgrad), the mean of a_k^2
 * (smoothgrad_sq) or their population variance (vargrad). deeplift sets
 * info->fbaseline (f(e_b)) and info->delta (the sum of the map less
 * f(e~) - f(e_b), the mean f(e~_k) in a smoothgrad tunnel; NaN under
 * smoothgrad_sq and vargrad), where given. */
typedef enum {
    EE_GRAD_SALIENCY = 0, EE_GRAD_SALIENCY_ABS, EE_GRAD_SALIENCY_L2, EE_GRAD_GRADXINPUT, EE_GRAD_IG,
    EE_GRAD_GRADIENTSHAP, EE_GRAD_DEEPLIFT
} EeGradMethod;
#define EE_GRAD_METHOD_COUNT 7
extern const char *const ee_grad_method_names[EE_GRAD_METHOD_COUNT];
typedef enum { EE_NOISE_NONE = 0, EE_NOISE_SMOOTHGRAD, EE_NOISE_SMOOTHGRAD_SQ, EE_NOISE_VARGRAD } EeNoiseKind;
#define EE_NOISE_COUNT 4
extern const char *const ee_noise_names[EE_NOISE_COUNT]; /* none smoothgrad smoothgrad_sq vargrad */
typedef struct {
    EeGradMethod method;
    EeNoiseKind noise;
    int samples;          /* n: 1 without noise */
    double stdev;         /* of the noise, >= 0 */
    const float *given;   /* N x n x W (W = T d or D) noise to add instead of drawing it */
    float *drawn;         /* N x n x W: receives the noise added (NULL: not wanted) */
    /* gradientshap: K background rows (ids K x T, 0-based, whose real-token
     * positions replace x's; or dense K x D), and what was drawn per (row, sample):
     * the background row (0-based) and a (N x n each; NULL: not wanted) */
    const int32_t *background_ids;
    const float *background_x;
    int K;
    int32_t *drawn_baseline;
    float *drawn_alpha;
} EeGradOptions;
void ee_grad_options_defaults(EeGradOptions *g);
/* A is N x T (N x D); info gets target, fx and the passes: N forward for
 * the targets, N n s forward and backward (s = 1 but for ig). */
EeStatus ee_gradient_attribute(EeModel *m, const EeInput *in, const EeGradOptions *g, const EeAttrOptions *o,
                               float *A, EeAttrInfo *info);
double ee_gradient_bytes(const EeModel *m, int n, const EeGradOptions *g, const EeAttrOptions *o);
/* Captum's sensitivity-max of the gradient map g (attr/sensitivity.c;
 * doc/MODELS.md, "Sensitivity-max"): per row, the largest over n
 * perturbations z_k of ||A(e + z_k) - A(e)|| / ||A(e)|| (Frobenius norms
 * of the N x T map rows; divided by 1 where A(e) = 0), A the map of
 * g->method at the embedding-layer output e (x for an mlp), the target
 * that of x for every perturbation, z_k uniform in [-radius, radius] on
 * every attended element, drawn from the stream (o->seed, o->row_offset
 * + i, 2^32 0x534D + k), one uniform per element in order whatever is
 * used (given: N x n x W perturbations instead; drawn: receives them).
 * g without noise, not gradientshap. info: target, fx and the passes of
 * A(e) and of the N n perturbed maps. */
EeStatus ee_sensitivity_max(EeModel *m, const EeInput *in, const EeGradOptions *g, const EeAttrOptions *o,
                            int samples, double radius, const float *given, float *drawn, double *sens,
                            EeAttrInfo *info);
double ee_sensitivity_bytes(const EeModel *m, int n, const EeGradOptions *g, const EeAttrOptions *o, int samples);

/* ---- any model, given as a function (attr/sv_fn.c) ------------------------ */
/* The model as a callback: the scores of M rows of F values. rows holds
 * the M x F matrix row-major (row j at rows + j F), as it is generated;
 * a front end whose matrices are column-major transposes it while it
 * copies it into its own array, which it has to do anyway. The callee
 * sets *scores to M x C doubles, column-major (row j, score c at
 * scores[j + c * M]: an Octave matrix's own data can be handed back as it
 * is), that it owns and keeps valid until its next call, and *C (>= 1).
 * call counts the calls from 1 (for messages). It returns EE_OK or a
 * status with its message set by ee_fail; the samplers stop at once and
 * return that status and message as they are. Called only on the thread
 * that called the sampler, one call at a time. */
typedef struct {
    EeStatus (*eval)(void *ctx, const double *rows, int M, int F, long call, const double **scores, int *C);
    void *ctx;
    /* Optional (NULL: not offered). The front end's own M x F array for
     * the next call, column-major (row j, column f at [j + f M]): the SV
     * and coalition samplers then generate the rows straight into it and
     * call eval with rows NULL and the same M and F, which spares the
     * row-major buffer and the transposing copy (the callback overhead of
     * issue 21). It ends the validity of the previous call's scores.
     * NULL return: out of memory (the sampler fails with EE_ERR_NOMEM).
     * The IG samplers do not use it. */
    double *(*columns)(void *ctx, int M, int F);
} EeScoreFn;

/* Who the players are and what "absent" means. */
typedef struct {
    int F;                    /* columns of a row */
    /* F player ids (integers >= 0): the columns with one id form one
     * player; the players are the distinct positive ids in ascending
     * order; id 0 = not a player (the column always keeps x's value).
     * NULL: every column is its own player. */
    const int32_t *groups;
    /* K x F row-major: an absent player's columns take the values of
     * background row k, and a coalition's value is the mean of f over the
     * K rows (K = 1: a baseline row). NULL: one row of zeros. */
    const double *background;
    int K;
} EeFnPlayers;

/* Results per row (arrays allocated by the caller; any may be NULL) and
 * totals. */
typedef struct {
    int32_t *target;      /* N, 0-based */
    double *fx;           /* N: f(x) at the target */
    double *fempty;       /* N: v(empty coalition), the mean over the background */
    double *delta;        /* N: sum of the player values - (fx - fempty) */
    double *players;      /* N x P row-major: the player values */
    double *variance;     /* N x P (sampling): sample variance over the
                             permutations of each player's marginal */
    long rows, calls;     /* rows f evaluated, calls of f */
    double seconds;       /* the whole call */
    double seconds_eval;  /* inside the callback */
} EeFnInfo;

/* Number of players of a grouping (groups as in EeFnPlayers; NULL: F), or
 * -1 when an id is negative. */
int ee_fn_players(const int32_t *groups, int F);

/* Shapley values of f at the N rows of X (N x F row-major) for the
 * players pl: Shapley Value Sampling with o->steps permutations per row,
 * drawn exactly as ee_sv_attribute draws them for a row of n real tokens
 * (stream (o->seed, o->row_offset + i, k), P players in the place of n),
 * or, exact != 0, from all 2^P coalitions (P <= EE_FN_EXACT_MAX). The
 * full coalition's value is f(x) itself (not evaluated again), so
 * efficiency holds for every permutation up to rounding. A is N x F
 * row-major: a player's value spread equally over its columns (so a
 * row's sum is the players' sum, f(x) - v(empty)), 0 at id-0 columns.
 * Targets: o->target (checked against C) or the argmax of f(x). f gets
 * at most o->batch rows per call (0: 1024), never one call per row.
 * Results depend on each row alone (not on the batch or row split) when
 * f's value of a row does. */
#define EE_FN_EXACT_MAX 20
EeStatus ee_sv_fn(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl,
                  const EeAttrOptions *o, int exact, double *A, EeFnInfo *info);
/* Host bytes ee_sv_fn allocates (for the memory budget). */
double ee_sv_fn_bytes(int N, int F, int P, int K, const EeAttrOptions *o, int exact);

/* ---- coalition methods: KernelSHAP, LIME, occlusion (attr/coalition.c) --- */
/* A coalition method explains a row from the values v(S) of coalitions S
 * of its P players (doc/MODELS.md, "Coalition methods"): it draws the
 * coalitions a row needs (ee_coalition_draw), someone evaluates them, and
 * it solves for the P values (ee_coalition_solve). The two halves are
 * independent of who evaluates v: ee_coalition_fn does it for a function. */
typedef enum {
    EE_COAL_KERNELSHAP = 0, /* Shapley-kernel weighted least squares, efficiency exact */
    EE_COAL_LIME,           /* LIME: exponential kernel, linear fit with intercept */
    EE_COAL_OCCLUSION,      /* leave-one-out: phi_p = v(all) - v(all but p) */
    EE_COAL_COUNT
} EeCoalitionKind;
typedef struct {
    EeCoalitionKind kind;
    /* KernelSHAP, LIME: coalitions drawn per row; KernelSHAP takes all
     * 2^P - 2 proper coalitions with kernel weights once samples reaches
     * that (the exact Shapley values) */
    int samples;
    int paired;              /* KernelSHAP: coalition 2m + 1 is the complement of 2m */
    /* instead of drawing: n coalitions, n x P row-major (1 = present),
     * the same for every row; weights: their n regression weights (NULL:
     * the method's kernel of each coalition) */
    const uint8_t *coalitions;
    long n;
    const double *weights;
    double width;            /* LIME: the kernel width (<= 0: 1) */
    double ridge;            /* LIME: penalty on the coefficients, not the intercept (>= 0) */
} EeCoalitionOptions;
/* Coalitions per row (the empty one not counted), or -1 for bad options. */
long ee_coalition_count(const EeCoalitionOptions *m, int P);
/* The coalitions of row `row` (its index in the caller's full data, for
 * the stream (seed, row, ...)): Z count x P bytes, w count weights. */
EeStatus ee_coalition_draw(const EeCoalitionOptions *m, uint64_t seed, long row, int P, uint8_t *Z, double *w);
/* The P values from the n coalition values v, v0 = v(empty), v1 = v(all).
 * EE_ERR_INPUT when the coalitions do not determine them. */
EeStatus ee_coalition_solve(const EeCoalitionOptions *m, int P, long n, const uint8_t *Z, const double *w,
                            const double *v, double v0, double v1, double *phi);
/* A coalition method over any evaluator of v: for each of N rows, draws
 * its coalitions, asks `values` for v of each (v[j] of row j of Z, count
 * x P bytes) and for v0 = v(empty), v1 = v(all), and solves. row i uses
 * the stream of row row_offset + i. phi: N x P row-major; delta (N, may
 * be NULL): sum phi - (v1 - v0). One row at a time: an evaluator that
 * batches across rows uses ee_coalition_draw / _solve itself, as
 * ee_coalition_fn does. */
typedef struct {
    EeStatus (*values)(void *ctx, long row, int P, long count, const uint8_t *Z, double *v, double *v0, double *v1);
    void *ctx;
} EeCoalitionValueFn;
EeStatus ee_coalition_rows(const EeCoalitionOptions *m, const EeCoalitionValueFn *vf, int N, int P, uint64_t seed,
                           long row_offset, double *phi, double *delta);
/* A coalition method on f at the N rows of X: players, absent values,
 * targets, seeds (o->seed, o->row_offset), batches (o->batch) and A, info
 * as for ee_sv_fn (info->delta = sum of the values - (f(x) - v(empty)):
 * zero up to rounding for KernelSHAP, not for LIME and occlusion; no
 * variance). v(all) is f(x), not evaluated again. */
EeStatus ee_coalition_fn(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl, const EeAttrOptions *o,
                         const EeCoalitionOptions *m, double *A, EeFnInfo *info);
/* Host bytes ee_coalition_fn allocates. */
double ee_coalition_fn_bytes(int N, int F, int P, int K, const EeAttrOptions *o, const EeCoalitionOptions *m);
/* The faithfulness of maps of f at the N rows of X (attr/faith_fn.c;
 * doc/MODELS.md, "Faithfulness of a map"): ee_faithfulness's measures with
 * the players of pl (columns or groups; ee_sv_fn's), an absent player
 * taking the background's values (the mean of f over its K rows; one row:
 * a baseline), and s the target's score as f returns it (no softmax:
 * fo->score and fo->logodds_percent do not apply; log_odds_drop is NaN).
 * A is N x Acols row-major, one score per column (a player's score is the
 * sum over its columns) or per player (Acols = P). Targets, seeds (the
 * infidelity's subsets: the stream of faithfulness.c, one uniform per
 * player in order of player), batches as for ee_sv_fn; res->fbaseline =
 * v(empty), nreal = P; res->forward the rows f evaluated; info (may be
 * NULL) the calls and the time inside f. */
EeStatus ee_faithfulness_fn(const EeScoreFn *f, const double *X, int N, const EeFnPlayers *pl, const double *A,
                            int Acols, const EeAttrOptions *o, const EeFaithOptions *fo, EeFaithResult *res,
                            EeFnInfo *info);
double ee_faithfulness_fn_bytes(int N, int F, int P, int K, const EeAttrOptions *o, const EeFaithOptions *fo);

/* The coalition methods on a built-in classifier (attr/coalition_model.c,
 * doc/MODELS.md "Coalition methods on the built-in models"): the players
 * of row i are its n_i real tokens in position order (transformer, cnn)
 * or the D features (mlp); a coalition's value is the target's logit with
 * the players outside it absent exactly as ee_sv makes them absent (the
 * baseline id under the row's own mask; an mlp's feature 0). kind
 * EE_COAL_OCCLUSION: windows of `window` consecutive players every
 * `stride` (Captum's Occlusion on the player sequence, the last window
 * cut at the end; window = stride = 1: feature ablation, leave-one-out);
 * a player's value is the mean over the windows that cover it of
 * v(all) - v(all but the window). KERNELSHAP, LIME: as ee_coalition_rows
 * with P = n_i (samples <= 0: 2 n_i + 2048 per row), or the caller's
 * coalitions of each row. */
typedef struct {
    EeCoalitionOptions m;     /* kind, samples, paired, width, ridge (m.coalitions, m.weights unused) */
    int window, stride;       /* occlusion (0: 1) */
    /* explicit coalitions: row i's count[i] x n_i bytes (1 = present) and
     * optional weights (NULL, or a row's NULL: the method's kernel) */
    const uint8_t *const *coalitions;
    const long *count;
    const double *const *weights;
} EeCoalitionModelOptions;
/* A: N x T (N x D), 0 at special positions; info: target, fx, fbaseline
 * (v of the empty coalition), delta (sum A - (fx - fbaseline)), forward
 * passes (one per row for f(x), one for v(empty), one per non-empty
 * coalition), seconds. */
EeStatus ee_coalition_attribute(EeModel *m, const EeInput *in, const EeAttrOptions *o,
                                const EeCoalitionModelOptions *c, float *A, EeAttrInfo *info);
/* Players of row i of in: its real tokens, or an mlp's D features. */
int ee_coalition_players(const EeModel *m, const EeInput *in, int i);
/* Coalitions of a row with n players (-1: bad options). */
long ee_coalition_model_count(const EeCoalitionModelOptions *c, int n);
/* Host bytes ee_coalition_attribute allocates (for the memory budget). */
double ee_coalition_attribute_bytes(const EeModel *m, const EeInput *in, const EeAttrOptions *o,
                                    const EeCoalitionModelOptions *c);

/* The model with its gradient: as EeScoreFn, and *grads set to the
 * M x F x C gradients of the scores, column-major (row j, column f,
 * score c at grads[j + f M + c M F]), owned by the callee like the
 * scores. */
typedef struct {
    EeStatus (*eval)(void *ctx, const double *rows, int M, int F, long call, const double **scores,
                     const double **grads, int *C);
    void *ctx;
} EeGradFn;

/* Integrated Gradients of f at the N rows of X (N x F row-major) from
 * the baseline row b (F values; NULL = zeros), per column:
 * A_f = (x_f - b_f) sum_k w_k d f_t / d x_f (b + a_k (x - b)), the nodes
 * a_k and weights w_k of o->method with o->steps (ee_ig_nodes;
 * EE_IG_GRADXINPUT: the gradient at x alone, baseline zeros). The
 * gradient of the target score f_t comes from g, or, g = NULL, from
 * central differences of f with step h in every column:
 * (f_t(z + h e_f) - f_t(z - h e_f)) / (2 h), 2 F rows per node (error
 * O(h^2) times f's third derivative, plus rounding O(eps |f| / h)).
 * Targets, batches and info as for ee_sv_fn (info->fempty = f_t(b),
 * delta = sum A - (f_t(x) - f_t(b)): completeness, zero up to the
 * quadrature's and the differences' errors; no players or variance). */
EeStatus ee_ig_fn(const EeScoreFn *f, const EeGradFn *g, const double *X, int N, int F, const double *b,
                  const EeAttrOptions *o, double h, double *A, EeFnInfo *info);
/* Expected gradients (Erion et al. 2021) with the quadrature of o->method:
 * IG of row i averaged over baselines taken from the K x F background bg
 * (row-major): every row of bg in order (m = 0), or m rows drawn
 * uniformly with replacement (ee_rng_below (K), m draws from the stream
 * (o->seed, o->row_offset + i, 0x4547 << 32), doc/RANDOM.md). A_f = mean
 * over the row's baselines b of IG_f(x; b); info->fempty = the mean of
 * f_t(b) over them, so delta = sum A - (f_t(x) - mean f_t(b)) is again
 * completeness. ee_ig_fn is the case of one baseline row (bg = b, K = 1).
 * f evaluates the K background rows once, with the rows of X. */
EeStatus ee_eg_fn(const EeScoreFn *f, const EeGradFn *g, const double *X, int N, int F, const double *bg, int K,
                  int m, const EeAttrOptions *o, double h, double *A, EeFnInfo *info);

/* ---- target-free Shapley training (doc/MODELS.md): the coalitions and
 * their values attr/kernel_values.c, the loss train/kernel.c ------------ */
/* The Shapley kernel's distribution of coalition sizes for n players:
 * p[m] proportional to (n - 1) / (m (n - m)) for m = 1..n-1, summing to 1;
 * p[0] = p[n] = 0 (p has n + 1 entries). */
void ee_kernel_size_probs(int n, double *p);
/* Words of coalition bits for rows of up to n real tokens (inline: the
 * sampler in attr/ and the loss's checks in train/ both need it). */
static inline int ee_kernel_words(int n) { return n > 64 ? (n + 63) / 64 : 1; }
/* K coalitions of a row of n real tokens from the stream (seed, row, a
 * fixed key): even k: a size m from ee_kernel_size_probs, then m tokens
 * uniformly; odd k: the complement of coalition k - 1 (antithetic pairs).
 * n < 2: every coalition empty. coal: K x words. */
void ee_kernel_draw(uint64_t seed, long row, int n, int K, int words, uint64_t *coal);
/* Every proper non-empty coalition of n <= 20 players (S = 1..2^n - 2 as
 * bit patterns, in that order) with the normalised kernel weight
 * p(|S|) / C(n, |S|) (summing to 1); coal / weight may be NULL. Returns
 * their number, 2^n - 2 (0 for n < 2 or n > 20). */
long ee_kernel_all(int n, int words, uint64_t *coal, float *weight);
/* The loss of one row of n real tokens and its gradient with respect to
 * phi_hat (n values; grad may be NULL):
 *   phi = phi_hat + (total - sum phi_hat) / n                (projection)
 *   L = sum_k w_k (b_k - sum_{j in S_k} phi_j)^2 + sum_j (phi_hat_j - phi_j)^2
 * w_k = weight[k] or 1/K. With the weights of ee_kernel_all its minimiser is
 * the Shapley value of the game b (the second term pins phi_hat to the
 * efficiency plane, where an explainer without classifier passes must be). */
double ee_kernel_loss(int n, const double *phi_hat, double total, int K, int words, const uint64_t *coal,
                      const float *value, const float *weight, double *grad);
/* The values of kt's coalitions for the rows of in (draw != 0: drawn here
 * first, ee_kernel_draw with o->seed and row o->row_offset + i): v(S) = the
 * classifier's score for the explained class (o->target or the argmax at
 * x, as ee_sv) with the real tokens outside S absent as ee_sv makes them
 * absent (o->baseline, the row's mask). kt->value, total, passes and
 * seconds are written: one pass for f(x), one for v(empty) and one per
 * non-empty coalition of each row, batched (o->batch) at the active
 * length. */
EeStatus ee_kernel_values(EeModel *clf, const EeInput *in, const EeAttrOptions *o, EeKernelTargets *kt, int draw);

/* Number of real (non-special) tokens of a row. */
int ee_count_real(const int32_t *ids, int T);
/* Gauss-Legendre / Riemann nodes and weights (alpha, w of length s). */
EeStatus ee_ig_nodes(EeIgMethod method, int s, double *alpha, double *w);

/* ---- random numbers ------------------------------------------------------ */
/* splitmix64-seeded xoshiro256** (see doc/RANDOM.md). */
typedef struct { uint64_t s[4]; } EeRng;
void ee_rng_seed(EeRng *r, uint64_t seed);
/* Independent stream for (seed, a, b): used so that results do not depend on
 * batching or thread count. */
void ee_rng_stream(EeRng *r, uint64_t seed, uint64_t a, uint64_t b);
uint64_t ee_rng_next(EeRng *r);
double ee_rng_uniform(EeRng *r);            /* [0, 1) with 53 bits */
double ee_rng_normal(EeRng *r);             /* Box-Muller */
uint64_t ee_rng_below(EeRng *r, uint64_t n); /* unbiased, [0, n) */
void ee_rng_permutation(EeRng *r, int n, int *perm); /* Fisher-Yates */

/* ---- memory budget ------------------------------------------------------- */
/* Bytes of host memory a call may allocate: MemAvailable of /proc/meminfo,
 * or EE_MEMORY_MB (environment, read on every call) when smaller. */
double ee_memory_available(void);
/* EE_OK when `bytes` fit; else EE_ERR_NOMEM naming `what`, the estimate
 * and what is available. */
EeStatus ee_memory_check(double bytes, const char *what);
/* Estimates of the host bytes a call allocates besides its inputs and
 * outputs (the weights of m exist already): activations, optimiser
 * state, copies, scratch. Device memory is not counted (a GPU batch that
 * does not fit is split, see doc/DESIGN_NOTES.md). */
double ee_model_bytes(const EeConfig *cfg);   /* the weights of a model */
double ee_predict_bytes(const EeModel *m, int n, int batch, EeDevice dev);
double ee_train_bytes(const EeModel *m, int n_train, int n_valid, const EeTrainOptions *o);
double ee_ig_bytes(const EeModel *m, int n, const EeAttrOptions *o);
/* SV needs the rows (real tokens per row); exact = ee_shapley_exact */
double ee_sv_bytes(const EeModel *m, const EeInput *in, const EeAttrOptions *o, int exact);

/* ---- an explainer's training maps, by method name (explainer/maps.c) ---- */
/* The maps an explainer trains on, computed by a method's name with that
 * method's defaults: the one table behind ee_train (clf, X, METHOD) and
 * `ee train-explainer --targets METHOD`. ig: Gauss-Legendre IG, o->steps
 * steps; sv: Shapley Value Sampling, o->steps permutations, o->seed; the
 * methods of ee_gradient with its defaults (the noise tunnels over the
 * signed saliency, 10 samples of stdev 0.15); occlusion: feature ablation
 * (window and stride 1); kernelshap, lime: o->seed, 2 n + 2048
 * coalitions per row of n players. The rest of o (baseline, target,
 * batch, device) as given. samples > 0 replaces o->steps (ig, sv) or the
 * coalitions per row (kernelshap, lime) and is refused for the other
 * methods (ee_map_method_max_samples 0). */
typedef enum {
    EE_MAP_IG = 0, EE_MAP_SV, EE_MAP_SALIENCY, EE_MAP_SALIENCY_ABS, EE_MAP_SALIENCY_L2, EE_MAP_GRADXINPUT,
    EE_MAP_DEEPLIFT, EE_MAP_SMOOTHGRAD, EE_MAP_SMOOTHGRAD_SQ, EE_MAP_VARGRAD, EE_MAP_OCCLUSION, EE_MAP_KERNELSHAP,
    EE_MAP_LIME
} EeMapMethod;
#define EE_MAP_METHOD_COUNT 13
extern const char *const ee_map_method_names[EE_MAP_METHOD_COUNT];
/* The method's index in ee_map_method_names, -1 for none. */
int ee_map_method_find(const char *name);
/* The largest `samples` the method takes (0: it takes none). */
long ee_map_method_max_samples(int method);
/* How ee_explainer_design reads the method's maps (coalition methods as SV). */
EeMapsSource ee_map_method_source(int method);
/* 1 when the maps sum to f(x) - f(baseline) (ig, sv, deeplift,
 * kernelshap): the explainer's efficiency applies by default to these only. */
int ee_map_method_complete(int method);
/* 1 when the maps are linear in the explained logit, so that the map of
 * one class of a binary classifier is about minus the other's: every
 * method but the magnitudes (saliency_abs, saliency_l2, smoothgrad_sq,
 * vargrad). A margin explainer (EeConfig.margin) trains on these only. */
int ee_map_method_signed(int method);
/* A: in->n x T (N x D); info as the method's own call fills it. */
EeStatus ee_map_method_maps(EeModel *clf, int method, const EeInput *in, const EeAttrOptions *o, long samples,
                            float *A, EeAttrInfo *info);
/* Host bytes of that call (0 for bad arguments). */
double ee_map_method_bytes(const EeModel *clf, int method, const EeInput *in, const EeAttrOptions *o, long samples);
/* What defines the maps beyond the name, as the front ends record it in an
 * explainer's `explains` (names[i] = values[i], at most 4, in order; with
 * the defaults of ee_attr_options_defaults): returns their count. */
int ee_map_method_settings(int method, long samples, const char **names, double *values);

/* ---- interrupts ------------------------------------------------------------ */
/* A long call (ee_train, ee_model_predict, the samplers) asks fn, on the
 * thread that made the call, whether to stop: between model passes, at
 * least every 0.1 s of work (sooner when passes are short). When fn
 * returns nonzero the call frees what it allocated and returns
 * EE_ERR_INTERRUPTED. One hook per thread; NULL removes it. It may be
 * called from no other thread and must not longjmp. */
void ee_set_interrupt(int (*fn)(void *ctx), void *ctx);
/* Nonzero once the hook said stop (sticky until ee_set_interrupt). */
int ee_interrupted(void);

/* ---- threads ------------------------------------------------------------- */
/* libcore runs OpenBLAS single-threaded and parallelises with OpenMP itself.
 * ee_threads_enter saves the caller's OpenBLAS thread count and sets 1;
 * ee_threads_leave restores it (the gateways wrap every call). */
void ee_threads_enter(void);
void ee_threads_leave(void);
int ee_threads_count(void);

/* ---- timing -------------------------------------------------------------- */
double ee_now(void); /* monotonic seconds */

#ifdef __cplusplus
}
#endif
#endif
