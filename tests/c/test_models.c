/* test_models.c: the three model kinds against an independent
 * double-precision reference written here from MODELS.md and
 * ../shared/vectors/README.md. The reference reads the weights only through
 * the public exchange format (ee_param_get: column-major, documented
 * shapes) and shares no code with libcore.
 *
 * For the transformer (2 layers, 2 heads), its explainer heads 'flat' and
 * 'token', the cnn (widths [2 3], bias true and false) and the mlp (bias
 * true and false), on random weights with nontrivial biases / LayerNorm
 * parameters and inputs with padding at the end (and a masked hole):
 * - shapes and names of every exchange tensor;
 * - logits of ee_model_predict (in chunks) and of a run vs the reference,
 *   for ee_model_init weights and for the random weights;
 * - the embedding-layer output e vs the reference embedding module;
 * - run->de (ee_run_backward, need_de = 1) at the model's e and at a
 *   perturbed e, for the target logit and a random combination of the
 *   outputs, vs central differences of the double reference (h = 1e-5);
 * - every parameter gradient (run->g after ee_run_backward with
 *   param_grads = 1, ee_run_embed_backward, ee_run_drop_fixed_grads) of
 *   sum(w .* outputs) vs central differences of the reference (all
 *   entries, or a random subsample of large tensors); the PAD row of E_tok
 *   must be exactly zero;
 * - ReLU kinks and max-pool ties are avoided: the reference reports the
 *   smallest distance to one (and rows where fewer than 2 units of a layer
 *   are alive, which would pass little gradient) and the inputs (every 10
 *   tries also the weights) are redrawn until it is safe;
 * - the training path: with dropout (train = 1, fixed seed) the forward is
 *   reproducible, differs from inference, train = 0 ignores the dropout
 *   rate, and run->de matches central differences of the run itself;
 * - the cnn's explainers (token head; with features 'gradient_ends' and
 *   'gradient_vector', with zeroed special tokens, on the cnn with and
 *   without bias) through every check above against the reference's
 *   ref_cnn_explainer; the flat head, attend 'all' and inputs 'attention'
 *   refused on the cnn (ee:notSupported);
 * - also: an mlp without hidden layer, explainers copy the embedding module
 *   and encoder (convolutions) and drop the pooler/classifier;
 * - ee_train on small separable problems reaches high validation accuracy
 *   for transformer, cnn and mlp; early stopping keeps the weights of the
 *   best epoch (best_epoch = argmin valid_loss, the returned model
 *   reproduces that loss and accuracy, epochs_run = best + patience + 1
 *   after an early stop), and a run without validation keeps the last.
 *
 * Tolerances: outputs max|err| <= 1e-5 * max|ref|; gradients
 * max|err| <= 1e-4 * scale, the scale being the largest reference gradient
 * of the tensor, floored at 1e-2 of the largest gradient of the model (some
 * gradients, e.g. to the key bias, vanish in exact arithmetic). */
#include "check.h"
#include "gradcheck.h"
#include "ee.h"
#include "models/model_impl.h"

#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const EeBackend *be;
static EeRng rng;
static int quick;

#define OUT_RTOL 1e-5
#define GRAD_RTOL 1e-4
#define FD_H 1e-5
#define KINK_MARGIN 1e-3

#include "refmodel.h"

/* ===================================================================== */
/* Test cases                                                              */
/* ===================================================================== */
typedef struct {
    EeModel *m;
    int B, outs, width; /* rows, outputs per row, floats of e per row */
    int32_t *ids;       /* token models */
    uint8_t *mask;      /* the mask handed to libcore (NULL = id != PAD) */
    uint8_t *rmask;     /* the mask the reference uses */
    float *x;           /* mlp */
    float *feats;       /* explainers that read features: B x T x k */
    const char *name;
} Case;

static int token(const Case *k) { return ee_model_config(k->m)->kind != EE_KIND_MLP; }

/* Token rows: [CLS] tokens [SEP] PAD..., lengths from full to one token, a
 * repeated id, UNK as an ordinary token; optionally a masked hole. Row 0
 * fills all T positions, so a run over the whole batch keeps the full
 * length and its e / de rows are T x d (ee_model_predict in chunks of 2 rows
 * also sees batches of short rows). */
static void make_inputs(Case *k, int hole)
{
    const EeConfig *c = ee_model_config(k->m);
    int B = k->B;
    free(k->ids); free(k->mask); free(k->rmask); free(k->x);
    k->ids = NULL; k->mask = NULL; k->rmask = NULL; k->x = NULL;
    if (!token(k)) {
        k->x = gc_alloc(sizeof(float) * B * c->D);
        gc_fill_normal_f(&rng, k->x, (size_t)B * c->D, 0, 1);
        return;
    }
    int T = c->T, V = c->vocab;
    k->ids = gc_alloc(sizeof(int32_t) * B * T);
    k->mask = gc_alloc((size_t)B * T);
    k->rmask = gc_alloc((size_t)B * T);
    for (int b = 0; b < B; b++) {
        int32_t *row = k->ids + b * T;
        int n = b == 0 ? T - 2 : b == 1 ? 1 : 1 + (int)ee_rng_below(&rng, (uint64_t)(T - 2));
        row[0] = EE_CLS;
        for (int t = 1; t <= n; t++) {
            int id = 4 + (int)ee_rng_below(&rng, (uint64_t)(V - 3)); /* 4..V-1, or UNK */
            row[t] = id >= V ? EE_UNK : id;
        }
        if (b == 2 && n >= 3) row[3] = row[2]; /* repeated id */
        row[n + 1] = EE_SEP;
        for (int t = n + 2; t < T; t++) row[t] = EE_PAD;
        for (int t = 0; t < T; t++) k->mask[b * T + t] = row[t] != EE_PAD;
        if (hole && b == 0 && T > 4) k->mask[b * T + 2] = 0; /* a masked real token */
        for (int t = 0; t < T; t++)
            k->rmask[b * T + t] = c->head == EE_HEAD_CLASSIFIER ? k->mask[b * T + t]
                                  : c->attend_tokens ? row[t] != EE_PAD : 1;
    }
    /* explainer features: arbitrary values at every position (PAD too: an
     * explainer that attends everywhere reads them there) */
    int nf = ee_config_features(c);
    free(k->feats);
    k->feats = NULL;
    if (nf) {
        k->feats = gc_alloc(sizeof(float) * B * T * nf);
        gc_fill_normal_f(&rng, k->feats, (size_t)B * T * nf, 0, 1);
    }
}

/* Reference outputs of row b (at e = its embedding output, or at e_over). */
static void ref_row(Ref *r, const Case *k, int b, const double *e_over, double *out)
{
    const EeConfig *c = &r->c;
    if (!token(k)) {
        double x[4096];
        if (e_over) memcpy(x, e_over, sizeof(double) * c->D);
        else gc_f2d(k->x + (size_t)b * c->D, x, c->D);
        ref_net(r, x, NULL, out);
        return;
    }
    const double *e = e_over;
    if (!e) {
        ref_embed(r, k->ids + (size_t)b * c->T, r->s_e);
        e = r->s_e;
    }
    double *f = NULL;
    int nf = ee_config_features(c);
    if (nf && k->feats) {
        f = gc_alloc(sizeof(double) * c->T * nf);
        gc_f2d(k->feats + (size_t)b * c->T * nf, f, (size_t)c->T * nf);
    }
    r->row_feats = f;
    r->row_ids = k->ids + (size_t)b * c->T;
    ref_net(r, e, k->rmask + (size_t)b * c->T, out);
    r->row_feats = NULL;
    r->row_ids = NULL;
    free(f);
}

/* Sets every tensor to random values with nontrivial scale (as in the
 * reference vectors): matrices N(0, 0.4^2), embeddings N(0, 1) with a zero
 * PAD row, biases N(0, 0.2^2), LayerNorm gamma 1 + N(0, 0.2^2). */
static void randomize(EeModel *m, int only_head)
{
    for (int i = 0; i < ee_model_nparams(m); i++) {
        EeParamInfo info;
        ee_model_param_info(m, i, &info);
        const char *f = info.field;
        if (only_head && strncmp(f, "head_", 5) != 0) continue;
        float *v = gc_alloc(sizeof(float) * info.count);
        double mean = 0, sd = 0.4;
        size_t n = strlen(f);
        if (!strcmp(f, "feat_scale")) { mean = 1; sd = 0.2; } /* a divisor: away from 0 */
        else if (!strcmp(f, "E_tok") || !strcmp(f, "E_pos")) sd = 1.0;
        else if (!strncmp(f, "ln", 2) && f[n - 1] == 'g') { mean = 1; sd = 0.2; }
        else if (f[0] == 'b' || !strncmp(f, "ln", 2) || !strcmp(f, "head_b")) sd = 0.2;
        gc_fill_normal_f(&rng, v, info.count, mean, sd);
        if (!strcmp(f, "E_tok"))
            for (int c = 0; c < info.dims[1]; c++) v[(size_t)c * info.dims[0]] = 0.0f; /* PAD row */
        CHECK_OK(ee_param_set(m, i, v, info.count));
        free(v);
    }
}

/* A run with the case's input embedded and forwarded. */
static EeRun *run_forward(Case *k, int grads)
{
    EeRun *r = NULL;
    CHECK_OK(ee_run_new(k->m, be, k->B, 1, grads, &r));
    if (!r) return NULL;
    CHECK_OK(ee_run_set_input(r, k->ids, k->mask, k->x, k->B));
    if (k->feats) CHECK_OK(ee_run_set_features(r, k->feats, k->B));
    ee_run_embed(r, k->B);
    ee_run_forward(r, k->B, 0);
    return r;
}

/* Largest distance-to-kink margin is infinite for the transformer; cnn and
 * mlp inputs are redrawn until every row is at least KINK_MARGIN from a
 * ReLU kink or a max tie (here and at the perturbed e used below). */
static double case_margin(Ref *r, Case *k, const float *e_f)
{
    r->margin = INFINITY;
    r->weak = 0;
    double out[1024], e[4096];
    for (int b = 0; b < k->B; b++) {
        if (e_f) {
            gc_f2d(e_f + (size_t)b * k->width, e, k->width);
            ref_row(r, k, b, e, out);
        } else {
            ref_row(r, k, b, NULL, out);
        }
    }
    return r->weak ? 0.0 : r->margin; /* a weak row counts as no margin */
}

/* ---- outputs ------------------------------------------------------------------- */
static void check_outputs(Case *k, const char *what)
{
    Ref ref;
    ref_load(&ref, k->m);
    int B = k->B, O = k->outs;
    double *want = gc_alloc(sizeof(double) * B * O);
    for (int b = 0; b < B; b++) ref_row(&ref, k, b, NULL, want + (size_t)b * O);
    float *got = gc_alloc(sizeof(float) * B * O);
    EeInput in = {.n = B, .ids = k->ids, .mask = k->mask, .x = k->x, .feats = k->feats};
    CHECK_OK(ee_model_predict(k->m, &in, got, 2, EE_DEVICE_CPU)); /* chunks of 2 rows */
    char buf[160];
    snprintf(buf, sizeof buf, "%s: %s ee_model_predict", k->name, what);
    gc_check_close(buf, got, want, (size_t)B * O, OUT_RTOL, 0);
    /* the run used by the gradient checks, and its embedding output */
    EeRun *r = run_forward(k, 0);
    if (r) {
        snprintf(buf, sizeof buf, "%s: %s run outputs", k->name, what);
        gc_check_close(buf, r->out, want, (size_t)B * O, OUT_RTOL, 0);
        if (token(k)) {
            double *e = gc_alloc(sizeof(double) * B * k->width);
            for (int b = 0; b < B; b++) ref_embed(&ref, k->ids + (size_t)b * ref.c.T, e + (size_t)b * k->width);
            snprintf(buf, sizeof buf, "%s: %s embedding output e", k->name, what);
            gc_check_close(buf, r->e, e, (size_t)B * k->width, OUT_RTOL, 0);
            free(e);
        }
        ee_run_free(r);
    }
    free(want);
    free(got);
    ref_free(&ref);
}

/* ---- gradient with respect to e ------------------------------------------------------ */
typedef struct {
    Ref *r;
    Case *k;
    int b;
    double *e;
    const float *w; /* output weights of row b */
} EFun;

static double e_loss(void *p)
{
    EFun *f = p;
    double out[1024], s = 0;
    ref_row(f->r, f->k, f->b, f->e, out);
    for (int o = 0; o < f->k->outs; o++) s += (double)f->w[o] * out[o];
    return s;
}

/* dout kinds: 0 = one-hot at the target (argmax of the reference outputs,
 * ties to the lowest), 1 = random combination of all outputs */
static void check_grad_e(Case *k, const float *e_point, const char *where)
{
    Ref ref;
    ref_load(&ref, k->m);
    int B = k->B, O = k->outs, W = k->width;
    EeRun *r = run_forward(k, 0);
    if (!r) { ref_free(&ref); return; }
    if (e_point) { /* evaluate at another e */
        memcpy(r->e, e_point, sizeof(float) * B * W);
        ee_run_forward(r, B, 0);
    }
    float *e_f = gc_alloc(sizeof(float) * B * W);
    memcpy(e_f, r->e, sizeof(float) * B * W);
    double *e = gc_alloc(sizeof(double) * W), *fd = gc_alloc(sizeof(double) * B * W);
    double *out = gc_alloc(sizeof(double) * B * O);
    float *dout = gc_alloc(sizeof(float) * B * O);
    for (int b = 0; b < B; b++) {
        gc_f2d(e_f + (size_t)b * W, e, W);
        ref_row(&ref, k, b, e, out + (size_t)b * O);
    }
    char buf[160];
    snprintf(buf, sizeof buf, "%s: outputs at %s", k->name, where);
    gc_check_close(buf, r->out, out, (size_t)B * O, OUT_RTOL, 0);
    for (int kind = 0; kind < 2; kind++) {
        for (int b = 0; b < B; b++) {
            float *w = dout + (size_t)b * O;
            if (kind == 0) {
                int best = 0;
                for (int o = 1; o < O; o++) if (out[(size_t)b * O + o] > out[(size_t)b * O + best]) best = o;
                for (int o = 0; o < O; o++) w[o] = o == best ? 1.0f : 0.0f;
            } else {
                gc_fill_normal_f(&rng, w, O, 0, 1);
            }
        }
        ee_run_backward(r, B, dout, 1, 0);
        for (int b = 0; b < B; b++) {
            gc_f2d(e_f + (size_t)b * W, e, W);
            EFun f = {&ref, k, b, e, dout + (size_t)b * O};
            for (int i = 0; i < W; i++) fd[(size_t)b * W + i] = gc_fd1(e_loss, &f, &e[i], FD_H);
        }
        snprintf(buf, sizeof buf, "%s: d%s/de at %s", k->name, kind ? "(w.out)" : "(target logit)", where);
        gc_check_close(buf, r->de, fd, (size_t)B * W, GRAD_RTOL, 0);
    }
    ee_run_free(r);
    free(e_f); free(e); free(fd); free(out); free(dout);
    ref_free(&ref);
}

/* ---- gradients with respect to every parameter ---------------------------------------- */
typedef struct {
    Ref *r;
    Case *k;
    const float *w; /* B x outs */
} PFun;

static double p_loss(void *p)
{
    PFun *f = p;
    double out[1024], s = 0;
    for (int b = 0; b < f->k->B; b++) {
        ref_row(f->r, f->k, b, NULL, out);
        for (int o = 0; o < f->k->outs; o++) s += (double)f->w[(size_t)b * f->k->outs + o] * out[o];
    }
    return s;
}

static void check_param_grads(Case *k)
{
    Ref ref;
    ref_load(&ref, k->m);
    int B = k->B, O = k->outs;
    EeRun *r = run_forward(k, 1);
    if (!r) { ref_free(&ref); return; }
    float *w = gc_alloc(sizeof(float) * B * O);
    gc_fill_normal_f(&rng, w, (size_t)B * O, 0, 1);
    be->zero(r->g, sizeof(float) * ee_model_size(k->m));
    ee_run_backward(r, B, w, 1, 1);
    ee_run_embed_backward(r, B);
    ee_run_drop_fixed_grads(r);
    /* the gradient in exchange order: through a scratch model of the same
     * configuration (the layout map was checked by the forward) */
    EeModel *gm = NULL;
    CHECK_OK(ee_model_new(ee_model_config(k->m), &gm));
    if (!gm) { ee_run_free(r); free(w); ref_free(&ref); return; }
    memcpy(gm->w, r->g, sizeof(float) * ee_model_size(k->m));

    int np = ref.np;
    size_t cap = quick ? 12 : 160;
    size_t *idx = gc_alloc(sizeof(size_t) * (cap + 1));
    float **got = gc_alloc(sizeof(float *) * np);
    double **fd = gc_alloc(sizeof(double *) * np);
    size_t *ns = gc_alloc(sizeof(size_t) * np);
    double global = 0;
    PFun pf = {&ref, k, w};
    for (int i = 0; i < np; i++) {
        size_t n = ref.count[i];
        float *g = gc_alloc(sizeof(float) * n);
        CHECK_OK(ee_param_get(gm, i, g, n));
        got[i] = gc_alloc(sizeof(float) * (cap + 1));
        fd[i] = gc_alloc(sizeof(double) * (cap + 1));
        if (ref.pad_row[i]) {
            /* PAD row (column-major: elements 0, V, 2V, ...) exactly zero */
            int V = ee_model_config(k->m)->vocab, d = (int)(n / (size_t)V), nz = 0;
            for (int c = 0; c < d; c++) nz += g[(size_t)c * V] != 0.0f;
            CHECK(nz == 0, "%s: %s has %d nonzero gradients in the PAD row", k->name, ref.name[i], nz);
        }
        size_t m = gc_sample(&rng, n, cap, idx), kept = 0;
        if (!strcmp(ref.name[i], "feat_scale")) { /* frozen: never trained */
            int nz = 0;
            for (size_t j = 0; j < n; j++) nz += g[j] != 0.0f;
            CHECK(nz == 0, "%s: frozen feat_scale has %d nonzero gradients", k->name, nz);
            m = 0;
        }
        for (size_t s = 0; s < m; s++) {
            size_t j = idx[s];
            if (ref.pad_row[i] && j % (size_t)ee_model_config(k->m)->vocab == 0) continue; /* PAD row */
            got[i][kept] = g[j];
            fd[i][kept] = gc_fd1(p_loss, &pf, &ref.p[i][j], FD_H);
            global = fmax(global, fabs(fd[i][kept]));
            kept++;
        }
        ns[i] = kept;
        free(g);
    }
    double worst = 0;
    for (int i = 0; i < np; i++) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s: d(w.out)/d %s (%zu of %zu)", k->name, ref.name[i], ns[i], ref.count[i]);
        double rel = gc_check_close(buf, got[i], fd[i], ns[i], GRAD_RTOL, 1e-2 * global);
        worst = fmax(worst, rel);
        free(got[i]);
        free(fd[i]);
    }
    CHECK(global > 0, "%s: all parameter gradients vanish", k->name);
    printf("  %-26s %d tensors: worst parameter-gradient error %.2g of scale (bound %.0g)\n", k->name, np,
           worst, GRAD_RTOL);
    free(got); free(fd); free(ns); free(idx); free(w);
    ee_model_free(gm);
    ee_run_free(r);
    ref_free(&ref);
}

/* ---- the training path: dropout ------------------------------------------------------- */
/* With dropout (train = 1, a fixed dropout_seed) the forward is a fixed
 * function of e: the same seed gives the same outputs, the outputs differ
 * from the inference ones, train = 0 ignores r->dropout, and run->de
 * matches central differences of that function, taken in float on the run
 * itself (h = 3e-3; elements where the two one-sided differences disagree
 * straddle a ReLU kink or a max switch and are left out, at most 10%). */
static double run_loss(EeRun *r, int B, const float *w, int n)
{
    ee_run_forward(r, B, 1);
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)w[i] * r->out[i];
    return s;
}

static void check_dropout(Case *k, float p)
{
    int B = k->B, O = k->outs, W = k->width;
    size_t nout = (size_t)B * O, ne = (size_t)B * W;
    EeRun *r = run_forward(k, 0);
    if (!r) return;
    float *plain = gc_alloc(sizeof(float) * nout), *o1 = gc_alloc(sizeof(float) * nout);
    float *w = gc_alloc(sizeof(float) * nout), *de = gc_alloc(sizeof(float) * ne);
    memcpy(plain, r->out, sizeof(float) * nout);
    r->dropout = p;
    r->dropout_seed = 0xABCDEF;
    ee_run_forward(r, B, 1);
    memcpy(o1, r->out, sizeof(float) * nout);
    ee_run_forward(r, B, 1);
    char buf[160];
    snprintf(buf, sizeof buf, "%s: dropout forward, same seed twice", k->name);
    gc_check_equal_f(buf, r->out, o1, nout);
    int differ = 0;
    for (size_t i = 0; i < nout; i++) differ += o1[i] != plain[i];
    const EeConfig *c = ee_model_config(k->m);
    if (!(c->kind == EE_KIND_MLP && c->nhidden == 0)) /* a linear mlp has no dropout site */
        CHECK(differ > 0, "%s: dropout %.2f changed no output", k->name, p);
    ee_run_forward(r, B, 0);
    snprintf(buf, sizeof buf, "%s: train = 0 ignores dropout", k->name);
    gc_check_equal_f(buf, r->out, plain, nout);

    gc_fill_normal_f(&rng, w, nout, 0, 1);
    ee_run_forward(r, B, 1);
    ee_run_backward(r, B, w, 1, 0);
    memcpy(de, r->de, sizeof(float) * ne);
    size_t cap = quick ? 30 : 120;
    size_t *idx = gc_alloc(sizeof(size_t) * cap);
    size_t m = gc_sample(&rng, ne, cap, idx), used = 0, kinks = 0;
    float *got = gc_alloc(sizeof(float) * m);
    double *fd = gc_alloc(sizeof(double) * m), *fwd = gc_alloc(sizeof(double) * m), *bwd = gc_alloc(sizeof(double) * m);
    const double h = 3e-3;
    /* hundreds of tiny forwards: one thread, so that a busy machine does not
     * make OpenMP's spinning barriers dominate (the mask does not depend on
     * the thread count; the backward above ran on the full team) */
#ifdef _OPENMP
    int team = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    double L0 = run_loss(r, B, w, (int)nout), scale = 0;
    for (size_t s = 0; s < m; s++) {
        float *x = &r->e[idx[s]], v = *x;
        *x = v + (float)h;
        double hp = (double)*x - v;
        double Lp = run_loss(r, B, w, (int)nout);
        *x = v - (float)h;
        double hm = v - (double)*x;
        double Lm = run_loss(r, B, w, (int)nout);
        *x = v;
        fwd[s] = (Lp - L0) / hp;
        bwd[s] = (L0 - Lm) / hm;
        fd[s] = (Lp - Lm) / (hp + hm);
        scale = fmax(scale, fabs(fd[s]));
    }
#ifdef _OPENMP
    omp_set_num_threads(team);
#endif
    for (size_t s = 0; s < m; s++) {
        if (fabs(fwd[s] - bwd[s]) > 2e-2 * scale) { kinks++; continue; }
        got[used] = de[idx[s]];
        fd[used++] = fd[s];
    }
    CHECK(kinks * 10 <= m, "%s: %zu of %zu differences straddle a kink", k->name, kinks, m);
    snprintf(buf, sizeof buf, "%s: dropout %.2f d(w.out)/de vs float differences (%zu)", k->name, p, used);
    gc_check_close(buf, got, fd, used, 1e-2, 0);
    r->dropout = 0;
    ee_run_free(r);
    free(plain); free(o1); free(w); free(de); free(idx); free(got); free(fd); free(fwd); free(bwd);
}

/* Draws inputs (and, for cnn/mlp, checks the kink margin at e and at the
 * perturbed point ep that check_grad_e will use), then runs every check. */
static void full_check(Case *k, int hole)
{
    const EeConfig *c = ee_model_config(k->m);
    k->outs = ee_config_outputs(c);
    k->width = token(k) ? c->T * c->d : c->D;
    int B = k->B, W = k->width;
    float *ep = gc_alloc(sizeof(float) * B * W);
    Ref ref;
    ref_load(&ref, k->m);
    double margin = 0;
    int tries = 0;
    for (; tries < 60; tries++) {
        if (tries && tries % 10 == 0 && c->head == EE_HEAD_CLASSIFIER) {
            /* these weights leave too many kinks / dead units: new ones */
            randomize(k->m, 0);
            ref_free(&ref);
            ref_load(&ref, k->m);
        }
        make_inputs(k, hole);
        EeRun *r = run_forward(k, 0);
        if (!r) break;
        /* perturbed point: 0.8 e + 0.5 N(0, 1) at every position (as an IG
         * node would be, but off the straight path) */
        for (size_t i = 0; i < (size_t)B * W; i++)
            ep[i] = (float)(0.8 * r->e[i] + 0.5 * ee_rng_normal(&rng));
        ee_run_free(r);
        margin = fmin(case_margin(&ref, k, NULL), case_margin(&ref, k, ep));
        if (margin >= KINK_MARGIN) break;
    }
    CHECK(margin >= KINK_MARGIN, "%s: no input away from ReLU kinks / max ties (or with live units) after %d tries",
          k->name, tries);
    if (gc_verbose()) printf("  %s: kink margin %.3g after %d redraws\n", k->name, margin, tries);
    ref_free(&ref);
    check_outputs(k, "random weights");
    check_grad_e(k, NULL, "e(x)");
    check_grad_e(k, ep, "a perturbed e");
    check_param_grads(k);
    check_dropout(k, 0.3f);
    free(ep);
}

static void case_free(Case *k)
{
    free(k->ids); free(k->mask); free(k->rmask); free(k->x); free(k->feats);
    ee_model_free(k->m);
    memset(k, 0, sizeof *k);
}

static EeModel *new_model(const EeConfig *cfg, uint64_t seed)
{
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(cfg, &m));
    if (m) ee_model_init(m, seed);
    return m;
}

/* init weights first (the documented initialisation), then random ones */
static void model_tests(const EeConfig *cfg, const char *name, int B)
{
    Case k = {.m = new_model(cfg, 11), .B = B, .name = name};
    if (!k.m) return;
    k.outs = ee_config_outputs(cfg);
    k.width = cfg->kind != EE_KIND_MLP ? cfg->T * cfg->d : cfg->D;
    make_inputs(&k, 1);
    check_outputs(&k, "init weights");
    randomize(k.m, 0);
    full_check(&k, 1);
    case_free(&k);
}

static void test_transformer(void)
{
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_TRANSFORMER);
    /* T != d: a transposed layout of the flat head (T*d x T) would go unnoticed with T = d */
    cfg.vocab = 20; cfg.T = 7; cfg.d = 8; cfg.heads = 2; cfg.layers = 2; cfg.ffn = 12; cfg.classes = 3;
    model_tests(&cfg, "transformer", 4);

    /* explainers built from a trained-like classifier */
    EeModel *clf = new_model(&cfg, 5);
    if (!clf) return;
    randomize(clf, 0);
    /* the paper's design with either head, this project's default, and
     * designs that read gradient features, attend to tokens only (active
     * length) and fix the outputs at special tokens */
    struct { EeExplainerSpec s; const char *name; } designs[] = {
        {{EE_HEAD_FLAT, EE_INPUTS_TOKENS, 0, 0, 0, 0, 0}, "transformer flat head"},
        {{EE_HEAD_TOKEN, EE_INPUTS_TOKENS, 0, 0, 0, 0, 0}, "transformer token head"},
        {{EE_HEAD_TOKEN, EE_INPUTS_TOKENS, 1, 1, 0, 0, 0}, "token head, attend tokens"},
        {{EE_HEAD_TOKEN, EE_INPUTS_GRADIENT_VECTOR, 1, 1, 1, 0, 0}, "token head, gradient vector"},
        {{EE_HEAD_TOKEN, EE_INPUTS_GRADIENT, 0, 1, 1, 0, 0}, "token head, gradient, all"},
        {{EE_HEAD_FLAT, EE_INPUTS_GRADIENT, 0, 1, 0, 0, 0}, "flat head, gradient, zero special"},
        /* the first of the classifier's two layers only */
        {{EE_HEAD_TOKEN, EE_INPUTS_GRADIENT_VECTOR, 1, 1, 1, 1, 0}, "token head, gradient vector, 1 of 2 layers"},
        {{EE_HEAD_FLAT, EE_INPUTS_TOKENS, 0, 0, 0, 1, 0}, "flat head, 1 of 2 layers"},
    };
    /* 'layers': at least 1, at most the classifier's */
    EeExplainerSpec deeper = {EE_HEAD_TOKEN, EE_INPUTS_TOKENS, 1, 1, 0, 3, 0}, negative = deeper;
    negative.layers = -1;
    EeModel *refused = (EeModel *)1;
    CHECK(ee_explainer_new(clf, &deeper, 1, &refused) == EE_ERR_INPUT && refused == NULL,
          "3 layers of a 2-layer classifier refused");
    refused = (EeModel *)1;
    CHECK(ee_explainer_new(clf, &negative, 1, &refused) == EE_ERR_INPUT && refused == NULL, "layers -1 refused");
    EeExplainerChoices deep_choice;
    ee_explainer_choices_init(&deep_choice);
    deep_choice.layers = 3;
    CHECK(ee_explainer_check_choices(clf, &deep_choice, EE_MAPS_GIVEN) == EE_ERR_INPUT, "choices: 3 layers refused");
    deep_choice.layers = 2;
    CHECK_OK(ee_explainer_check_choices(clf, &deep_choice, EE_MAPS_GIVEN));
    EeModel *bad = (EeModel *)1;
    EeExplainerSpec flat_tokens = {EE_HEAD_FLAT, EE_INPUTS_TOKENS, 1, 0, 0, 0, 0};
    CHECK(ee_explainer_new(clf, &flat_tokens, 1, &bad) == EE_ERR_MODEL && bad == NULL,
          "a flat head that attends to tokens only is refused (it reads every position)");
    for (size_t h = 0; h < sizeof designs / sizeof *designs; h++) {
        const char *name = designs[h].name;
        EeModel *ex = NULL;
        CHECK_OK(ee_explainer_new(clf, &designs[h].s, 99, &ex));
        if (!ex) continue;
        const EeConfig *ec = ee_model_config(ex);
        int nf = ee_config_features(ec);
        CHECK(ec->head == designs[h].s.head && ee_config_outputs(ec) == cfg.T && ec->inputs == designs[h].s.inputs &&
              ec->attend_tokens == designs[h].s.attend_tokens && ec->zero_special == designs[h].s.zero_special &&
              ec->efficiency == designs[h].s.efficiency,
              "%s: explainer config", name);
        CHECK(nf == (designs[h].s.inputs == EE_INPUTS_GRADIENT ? 1 : designs[h].s.inputs ? 1 + cfg.d : 0),
              "%s: %d features", name, nf);
        int layers = designs[h].s.layers ? designs[h].s.layers : cfg.layers, dropped = 0;
        CHECK(ec->layers == layers, "%s: %d layers, want %d", name, ec->layers, layers);
        int kept_deeper = 0; /* the classifier's tensors of the layers left out: none in the explainer */
        for (int i = 0; i < ee_model_nparams(clf); i++) {
            EeParamInfo info;
            ee_model_param_info(clf, i, &info);
            if (!info.group || info.index < layers) continue;
            dropped++;
            kept_deeper += ee_model_find_param(ex, info.group, info.index, info.field) >= 0;
        }
        CHECK(!kept_deeper && (dropped > 0) == (layers < cfg.layers), "%s: %d tensors of the layers left out, %d kept",
              name, dropped, kept_deeper);
        CHECK(ee_model_nparams(ex) == ee_model_nparams(clf) - 2 + (nf ? 3 : 0) - dropped,
              "%s: %d tensors, classifier %d", name, ee_model_nparams(ex), ee_model_nparams(clf));
        /* embedding module and encoder copied, head and feature weights fresh */
        int copied = 1, heads_found = 0;
        for (int i = 0; i < ee_model_nparams(ex); i++) {
            EeParamInfo info;
            ee_model_param_info(ex, i, &info);
            int j = ee_model_find_param(clf, info.group, info.index, info.field);
            if (!strncmp(info.field, "head_", 5)) { heads_found++; continue; }
            if (!strncmp(info.field, "feat_", 5)) continue;
            CHECK(j >= 0, "explainer tensor %s not in the classifier", info.field);
            if (j < 0) continue;
            float *a = gc_alloc(info.count * 4), *b = gc_alloc(info.count * 4);
            ee_param_get(ex, i, a, info.count);
            ee_param_get(clf, j, b, info.count);
            copied &= memcmp(a, b, info.count * 4) == 0;
            free(a);
            free(b);
        }
        CHECK(copied, "%s: embedding/encoder not copied from the classifier", name);
        CHECK(heads_found == 2, "%s: head_W/head_b missing", name);
        CHECK(ee_model_find_param(ex, NULL, 0, "Wp") < 0 && ee_model_find_param(ex, NULL, 0, "Wc") < 0,
              "%s: pooler/classifier not dropped", name);
        Case k = {.m = ex, .B = 3, .name = name};
        k.outs = cfg.T;
        k.width = cfg.T * cfg.d;
        make_inputs(&k, 1); /* the hole must be ignored: explainers set their own masks */
        check_outputs(&k, "init head");
        randomize(ex, 0);   /* every tensor, the feature weights and head bias too */
        full_check(&k, 1);
        case_free(&k);
    }
    ee_model_free(clf);

}

/* The cnn's explainers (token head): copied embedding and convolutions,
 * fresh head, with and without features, zeroed special tokens; every
 * check of full_check against the reference's ref_cnn_explainer. The flat
 * head, attend 'all' and the attention inputs are refused. */
static void cnn_explainer_tests(const EeConfig *cfg, const char *kn)
{
    EeModel *clf = new_model(cfg, 5);
    if (!clf) return;
    randomize(clf, 0);
    struct { EeExplainerSpec s; const char *name; } designs[] = {
        {{EE_HEAD_TOKEN, EE_INPUTS_TOKENS, 1, 0, 0, 0, 0}, "token head"},
        {{EE_HEAD_TOKEN, EE_INPUTS_TOKENS, 1, 1, 0, 0, 0}, "token head, zero special"},
        {{EE_HEAD_TOKEN, EE_INPUTS_GRADIENT_ENDS, 1, 1, 1, 0, 0}, "token head, gradient ends"},
        {{EE_HEAD_TOKEN, EE_INPUTS_GRADIENT_VECTOR, 1, 0, 0, 0, 0}, "token head, gradient vector"},
    };
    for (size_t h = 0; h < sizeof designs / sizeof *designs; h++) {
        char name[96];
        snprintf(name, sizeof name, "%s %s", kn, designs[h].name);
        EeModel *ex = NULL;
        CHECK_OK(ee_explainer_new(clf, &designs[h].s, 99, &ex));
        if (!ex) continue;
        const EeConfig *ec = ee_model_config(ex);
        int nf = ee_config_features(ec), copied = 1, fresh = 0;
        CHECK(ee_model_nparams(ex) == ee_model_nparams(clf) + (cfg->bias ? 0 : 1) + (nf ? 3 : 0),
              "%s: %d tensors, classifier %d", name, ee_model_nparams(ex), ee_model_nparams(clf));
        for (int i = 0; i < ee_model_nparams(ex); i++) {
            EeParamInfo info;
            ee_model_param_info(ex, i, &info);
            if (!strncmp(info.field, "head_", 5) || !strncmp(info.field, "feat_", 5)) { fresh++; continue; }
            int j = ee_model_find_param(clf, info.group, info.index, info.field);
            CHECK(j >= 0, "%s: explainer tensor %s not in the classifier", name, info.field);
            if (j < 0) continue;
            float *a = gc_alloc(info.count * 4), *b = gc_alloc(info.count * 4);
            ee_param_get(ex, i, a, info.count);
            ee_param_get(clf, j, b, info.count);
            copied &= memcmp(a, b, info.count * 4) == 0;
            free(a);
            free(b);
        }
        CHECK(copied && fresh == 2 + (nf ? 3 : 0), "%s: embedding/convolutions copied, head fresh", name);
        CHECK(ee_model_find_param(ex, NULL, 0, "Wc") < 0, "%s: classifier not dropped", name);
        Case k = {.m = ex, .B = 3, .name = name};
        k.outs = cfg->T;
        k.width = cfg->T * cfg->d;
        make_inputs(&k, 1); /* the hole must be ignored: explainers set their own masks */
        check_outputs(&k, "init head");
        randomize(ex, 0);
        full_check(&k, 1);
        case_free(&k);
    }
    /* refused: the flat head (and with it the paper's design), attend 'all',
     * the transformer's attention inputs */
    EeExplainerSpec flat = {EE_HEAD_FLAT, EE_INPUTS_TOKENS, 0, 0, 0, 0, 0};
    EeExplainerSpec all = {EE_HEAD_TOKEN, EE_INPUTS_TOKENS, 0, 0, 0, 0, 0};
    EeExplainerSpec att = {EE_HEAD_TOKEN, EE_INPUTS_ATTENTION, 1, 1, 0, 0, 0};
    EeModel *ex = (EeModel *)1;
    CHECK(ee_explainer_new(clf, &flat, 1, &ex) == EE_ERR_UNSUPPORTED && ex == NULL, "%s: flat head refused", kn);
    ex = (EeModel *)1;
    CHECK(ee_model_make_explainer(clf, EE_HEAD_FLAT, 1, &ex) == EE_ERR_UNSUPPORTED && ex == NULL,
          "%s: the paper's design refused", kn);
    ex = (EeModel *)1;
    CHECK(ee_explainer_new(clf, &all, 1, &ex) == EE_ERR_UNSUPPORTED && ex == NULL, "%s: attend 'all' refused", kn);
    ex = (EeModel *)1;
    CHECK(ee_explainer_new(clf, &att, 1, &ex) == EE_ERR_UNSUPPORTED && ex == NULL,
          "%s: inputs 'attention' refused", kn);
    EeExplainerSpec top = {EE_HEAD_TOKEN, EE_INPUTS_ATTENTION_TOP, 1, 1, 0, 0, 0};
    ex = (EeModel *)1;
    CHECK(ee_explainer_new(clf, &top, 1, &ex) == EE_ERR_UNSUPPORTED && ex == NULL,
          "%s: inputs 'attention_top' refused", kn);
    /* the front ends' check before the maps: the same answers from the
     * caller's choices */
    EeExplainerChoices ch;
    ee_explainer_choices_init(&ch);
    CHECK_OK(ee_explainer_check_choices(clf, &ch, EE_MAPS_SV));
    ch.inputs = EE_INPUTS_PATH;
    CHECK_OK(ee_explainer_check_choices(clf, &ch, EE_MAPS_GIVEN));
    ee_explainer_choices_init(&ch);
    ch.design = EE_DESIGN_PAPER;
    CHECK(ee_explainer_check_choices(clf, &ch, EE_MAPS_GIVEN) == EE_ERR_UNSUPPORTED, "%s: choices: paper", kn);
    ch.head = EE_HEAD_TOKEN;
    ch.attend = 1;
    CHECK_OK(ee_explainer_check_choices(clf, &ch, EE_MAPS_GIVEN)); /* the paper's but the head and attend */
    ee_explainer_choices_init(&ch);
    ch.attend = 0;
    CHECK(ee_explainer_check_choices(clf, &ch, EE_MAPS_IG) == EE_ERR_UNSUPPORTED, "%s: choices: attend all", kn);
    ee_explainer_choices_init(&ch);
    ch.head = EE_HEAD_FLAT;
    CHECK(ee_explainer_check_choices(clf, &ch, EE_MAPS_GIVEN) == EE_ERR_UNSUPPORTED, "%s: choices: flat", kn);
    ee_explainer_choices_init(&ch);
    ch.inputs = EE_INPUTS_ATTENTION;
    CHECK(ee_explainer_check_choices(clf, &ch, EE_MAPS_GIVEN) == EE_ERR_UNSUPPORTED, "%s: choices: attention", kn);
    ee_explainer_choices_init(&ch);
    ch.layers = 1;   /* a transformer's encoder layers */
    CHECK(ee_explainer_check_choices(clf, &ch, EE_MAPS_GIVEN) == EE_ERR_UNSUPPORTED, "%s: choices: layers", kn);
    ee_model_free(clf);
}

static void test_cnn(void)
{
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_CNN);
    cfg.vocab = 20; cfg.T = 9; cfg.d = 4; cfg.filters = 3; cfg.nwidths = 2;
    cfg.widths[0] = 2; cfg.widths[1] = 3; cfg.classes = 3;
    cfg.bias = 1;
    model_tests(&cfg, "cnn bias", 5);
    cnn_explainer_tests(&cfg, "cnn bias");
    cfg.bias = 0;
    model_tests(&cfg, "cnn nobias", 5);
    cnn_explainer_tests(&cfg, "cnn nobias");
}

static void test_mlp(void)
{
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_MLP);
    /* wide enough that random rows keep two live units per layer (see full_check) */
    cfg.D = 6; cfg.nhidden = 2; cfg.hidden[0] = 8; cfg.hidden[1] = 6; cfg.classes = 3;
    cfg.bias = 1;
    model_tests(&cfg, "mlp bias", 6);
    cfg.bias = 0;
    model_tests(&cfg, "mlp nobias", 6);
    /* no hidden layer: a linear model */
    cfg.nhidden = 0;
    cfg.bias = 1;
    model_tests(&cfg, "mlp linear", 4);
}

/* ===================================================================== */
/* Training                                                                 */
/* ===================================================================== */
/* class = whether token 5 appears; balanced */
static void make_token_data(int n, int T, int V, int32_t *ids, int32_t *labels)
{
    for (int i = 0; i < n; i++) {
        int32_t *row = ids + (size_t)i * T;
        int len = 2 + (int)ee_rng_below(&rng, (uint64_t)(T - 3));
        int y = (int)ee_rng_below(&rng, 2);
        row[0] = EE_CLS;
        for (int t = 1; t <= len; t++) {
            int id;
            do id = 4 + (int)ee_rng_below(&rng, (uint64_t)(V - 4)); while (id == 5);
            row[t] = id;
        }
        if (y) row[1 + (int)ee_rng_below(&rng, (uint64_t)len)] = 5;
        row[len + 1] = EE_SEP;
        for (int t = len + 2; t < T; t++) row[t] = EE_PAD;
        labels[i] = y;
    }
}

/* mean cross-entropy (double) and accuracy of a model on a dataset */
static void evaluate(EeModel *m, const EeDataset *ds, double *loss, double *acc)
{
    int C = ee_model_config(m)->classes, n = ds->in.n;
    float *out = gc_alloc(sizeof(float) * n * C);
    CHECK_OK(ee_model_predict(m, &ds->in, out, 0, EE_DEVICE_CPU));
    double tot = 0;
    int correct = 0;
    for (int i = 0; i < n; i++) {
        const float *z = out + (size_t)i * C;
        double mx = z[0], s = 0;
        int best = 0;
        for (int c = 1; c < C; c++) {
            if (z[c] > z[best]) best = c;
            mx = fmax(mx, z[c]);
        }
        for (int c = 0; c < C; c++) s += exp(z[c] - mx);
        tot += mx + log(s) - z[ds->labels[i]];
        correct += best == ds->labels[i];
    }
    *loss = tot / n;
    *acc = (double)correct / n;
    free(out);
}

/* best_epoch is the first minimum of valid_loss; the returned weights give
 * that loss and accuracy; the epoch count matches the stopping rule. */
static void check_history(const char *name, EeModel *m, const EeDataset *valid, const EeTrainOptions *o,
                          const EeHistory *h)
{
    CHECK(h->epochs_run >= 1 && h->epochs_run <= o->epochs, "%s: epochs_run %d", name, h->epochs_run);
    int arg = 0;
    for (int e = 1; e < h->epochs_run; e++)
        if (h->valid_loss[e] < h->valid_loss[arg]) arg = e;
    CHECK(h->best_epoch == arg + 1, "%s: best_epoch %d but the valid_loss minimum is at epoch %d", name,
          h->best_epoch, arg + 1);
    if (h->stopped_early)
        CHECK(h->epochs_run == h->best_epoch + o->patience + 1, "%s: stopped at epoch %d, best %d, patience %d",
              name, h->epochs_run, h->best_epoch, o->patience);
    else
        CHECK(h->epochs_run == o->epochs, "%s: ran %d of %d epochs without stopping early", name,
              h->epochs_run, o->epochs);
    double loss, acc;
    evaluate(m, valid, &loss, &acc);
    double want = h->valid_loss[h->best_epoch - 1];
    CHECK(fabs(loss - want) <= 1e-5 * fmax(1, fabs(want)),
          "%s: returned weights give valid loss %.7g, history best %.7g (epoch %d)", name, loss, want,
          h->best_epoch);
    CHECK(fabs(acc - h->valid_metric[h->best_epoch - 1]) < 1e-6, "%s: valid accuracy %.4f vs history %.4f",
          name, acc, (double)h->valid_metric[h->best_epoch - 1]);
}

static void train_case(const char *name, const EeConfig *cfg, EeTrainOptions *o, const EeDataset *tr,
                       const EeDataset *va, double min_acc)
{
    double t0 = ee_now();
    EeModel *m = new_model(cfg, 3);
    if (!m) return;
    EeHistory h;
    EeStatus st = ee_train(m, tr, va, o, &h);
    CHECK(st == EE_OK, "%s: ee_train: %s", name, ee_last_error());
    if (st == EE_OK) {
        double loss, acc;
        evaluate(m, va, &loss, &acc);
        CHECK(acc >= min_acc, "%s: validation accuracy %.3f < %.2f after %d epochs", name, acc, min_acc,
              h.epochs_run);
        check_history(name, m, va, o, &h);
        printf("  %-22s valid acc %.3f  loss %.4f  epochs %d  best %d%s  %.2f s\n", name, acc, loss,
               h.epochs_run, h.best_epoch, h.stopped_early ? " (early stop)" : "", ee_now() - t0);
        ee_history_free(&h);
    }
    ee_model_free(m);
}

/* An explainer that reads features starts from the least-squares map of
 * its features to the maps: with maps = 3 F + 0.5 on the predicted
 * positions (0 on [CLS], [SEP], PAD) and a learning rate too small to move
 * anything, its outputs are that map; the stored explainer predicts raw
 * maps (the standardisation folded back); feat_scale is the features' RMS
 * over the non-PAD positions and stays frozen. */
static void test_explainer_start(const int32_t *ids, int n, int T, int V)
{
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_TRANSFORMER);
    cfg.vocab = V; cfg.T = T; cfg.d = 8; cfg.heads = 2; cfg.layers = 1; cfg.ffn = 16; cfg.classes = 2;
    EeModel *clf = new_model(&cfg, 3), *ex = NULL;
    if (!clf) return;
    EeExplainerSpec spec;
    ee_explainer_spec_default(&spec);
    spec.inputs = EE_INPUTS_GRADIENT;
    CHECK_OK(ee_explainer_new(clf, &spec, 5, &ex));
    float *F = gc_alloc(sizeof(float) * n * T), *A = gc_alloc(sizeof(float) * n * T);
    float *P = gc_alloc(sizeof(float) * n * T);
    gc_fill_normal_f(&rng, F, (size_t)n * T, 0, 2);
    double ss = 0;
    int cnt = 0;
    for (int q = 0; q < n * T; q++) {
        if (ids[q] == EE_PAD) F[q] = 0; /* as the classifier's features are */
        ss += (double)F[q] * F[q];
        cnt += ids[q] != EE_PAD;
        A[q] = EE_IS_SPECIAL(ids[q]) ? 0.0f : 3.0f * F[q] + 0.5f;
    }
    EeDataset tr = {.in = {.n = n, .ids = ids, .feats = F}, .maps = A};
    EeTrainOptions o;
    ee_train_options_defaults(&o, EE_KIND_TRANSFORMER, EE_HEAD_TOKEN);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.epochs = 1; o.lr = 1e-12f;
    EeHistory h;
    if (ex && ee_train(ex, &tr, NULL, &o, &h) == EE_OK) {
        ee_history_free(&h);
        EeInput in = {.n = n, .ids = ids, .feats = F};
        CHECK_OK(ee_model_predict(ex, &in, P, 64, EE_DEVICE_CPU));
        CheckCmp ls = CMP_INIT;
        cmp_add_ff(&ls, P, A, (size_t)n * T);
        CHECK_CMP(ls, 1e-3, "explainer start: the least-squares map of the features (max err %.3g)", ls.err);
        float sc;
        int si = ee_model_find_param(ex, NULL, 0, "feat_scale");
        CHECK_OK(ee_param_get(ex, si, &sc, 1));
        CHECK(fabs(sc - sqrt(ss / cnt)) < 1e-5 * sc, "feat_scale %.6g, the features' RMS %.6g", sc, sqrt(ss / cnt));
    } else {
        CHECK(0, "explainer start: %s", ee_last_error());
    }
    free(F); free(A); free(P);
    ee_model_free(ex);
    ee_model_free(clf);
}

/* Frozen parameters (EeTrainOptions.freeze_embeddings): at level 1 the
 * embedding module (E_tok, E_pos and its LayerNorm; a cnn's E_tok), at
 * level 2 also every encoder layer but the last, keep every bit of their
 * start; every other tensor that trains moves, and the loss falls. The
 * explainers read features (their feat_W trains through the gradient at
 * e), as the presets' do; training skips the frozen prefix of the weights
 * (Adam and the gradients' zeroing) and the embedding tables' backward. */
static int frozen_in(const EeModel *m, const EeParam *p, int level)
{
    static const char *const emb[] = {"E_tok", "E_pos", "ln_emb_g", "ln_emb_b"};
    if (!p->group[0]) {
        for (int k = 0; k < 4; k++)
            if (!strcmp(p->field, emb[k])) return level >= 1;
        return 0;
    }
    return level >= 2 && !strcmp(p->group, "encoder") && p->index < m->cfg.layers - 1;
}

/* Random features F (0 at PAD) and training maps A that depend on them
 * and on the token (0 at the special tokens): something an explainer can
 * learn, for the training cases below. */
static void learnable_maps(const int32_t *ids, int n, int T, float *F, float *A)
{
    gc_fill_normal_f(&rng, F, (size_t)n * T, 0, 1);
    for (int q = 0; q < n * T; q++) {
        if (ids[q] == EE_PAD) F[q] = 0;
        A[q] = EE_IS_SPECIAL(ids[q]) ? 0.0f : (float)(sin(3.0 * F[q]) + 0.1 * (ids[q] % 5));
    }
}

static void freeze_case(EeModel *clf, EeInputs inputs, int level, const int32_t *ids, int n, int T)
{
    EeExplainerSpec spec;
    ee_explainer_spec_default(&spec);
    spec.inputs = inputs;
    spec.efficiency = inputs != EE_INPUTS_TOKENS; /* (it needs the classifier's features) */
    EeModel *ex = NULL;
    CHECK_OK(ee_explainer_new(clf, &spec, 7, &ex));
    if (!ex) return;
    const char *kind = ee_kind_name(clf->cfg.kind);
    float *w0 = gc_alloc(sizeof(float) * ex->total), *F = gc_alloc(sizeof(float) * n * T);
    float *A = gc_alloc(sizeof(float) * n * T);
    memcpy(w0, ex->w, sizeof(float) * ex->total);
    learnable_maps(ids, n, T, F, A);
    EeDataset tr = {.in = {.n = n, .ids = ids, .feats = F}, .maps = A};
    EeTrainOptions o;
    ee_train_options_defaults(&o, clf->cfg.kind, EE_HEAD_TOKEN);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.epochs = 4; o.lr = 3e-3f; o.batch = 16;
    o.freeze_embeddings = level;
    EeHistory h;
    EeStatus st = ee_train(ex, &tr, NULL, &o, &h);
    CHECK(st == EE_OK, "%s explainer, freeze level %d: %s", kind, level, st ? ee_last_error() : "");
    if (st == EE_OK) {
        int kept = 1, moved = 1, nfrozen = 0, ntrained = 0;
        for (int i = 0; i < ex->np; i++) {
            const EeParam *p = &ex->p[i];
            size_t diff = 0;
            for (size_t q = 0; q < p->count; q++)
                diff += memcmp(&ex->w[p->offset + q], &w0[p->offset + q], sizeof(float)) != 0;
            if (frozen_in(ex, p, level)) {
                nfrozen++;
                if (diff) { kept = 0; printf("  %s %s[%d]: %zu of %zu weights moved\n", p->field, p->group, p->index, diff, p->count); }
            } else if (!p->frozen && p->count > 1) { /* (feat_scale, a constant, is p->frozen) */
                ntrained++;
                if (!diff) { moved = 0; printf("  %s %s[%d] did not train\n", p->field, p->group, p->index); }
            }
        }
        CHECK(kept && nfrozen >= (clf->cfg.kind == EE_KIND_CNN ? 1 : 4),
              "%s explainer, freeze level %d: the %d frozen tensors keep every bit", kind, level, nfrozen);
        CHECK(moved && ntrained > 0, "%s explainer, freeze level %d: the %d other tensors train", kind, level,
              ntrained);
        CHECK(h.train_loss[h.epochs_run - 1] < h.train_loss[0], "%s explainer, freeze level %d: loss %.4g -> %.4g",
              kind, level, h.train_loss[0], h.train_loss[h.epochs_run - 1]);
        ee_history_free(&h);
    }
    free(w0); free(F); free(A);
    ee_model_free(ex);
}

static void test_explainer_freeze(const int32_t *ids, int n, int T, int V)
{
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_TRANSFORMER);
    cfg.vocab = V; cfg.T = T; cfg.d = 8; cfg.heads = 2; cfg.layers = 2; cfg.ffn = 16; cfg.classes = 2;
    EeModel *clf = new_model(&cfg, 3);
    if (clf) {
        freeze_case(clf, EE_INPUTS_GRADIENT, 1, ids, n, T);
        freeze_case(clf, EE_INPUTS_GRADIENT, 2, ids, n, T);
        freeze_case(clf, EE_INPUTS_TOKENS, 1, ids, n, T);
    }
    ee_model_free(clf);
    ee_config_defaults(&cfg, EE_KIND_CNN);
    cfg.vocab = V; cfg.T = T; cfg.d = 8; cfg.filters = 4; cfg.nwidths = 2; cfg.widths[0] = 2; cfg.widths[1] = 3;
    cfg.classes = 2;
    if ((clf = new_model(&cfg, 4))) freeze_case(clf, EE_INPUTS_GRADIENT, 1, ids, n, T);
    ee_model_free(clf);
}

/* A step's rows in groups of similar length (train.c): an explainer
 * trained so must end with the weights of one trained with whole-batch
 * steps (the same gradients; only the order of the floating-point sums
 * differs), and the split must really have run (more passes than steps).
 * Rows of 4 to 48 tokens in T = 48, as glosses of 3 to 32 in their T = 32. */
static void split_case(EeModel *clf, const int32_t *ids, int n, int T)
{
    EeExplainerSpec spec;
    ee_explainer_spec_default(&spec);
    spec.inputs = EE_INPUTS_GRADIENT;
    EeModel *ex[2] = {NULL, NULL};
    CHECK_OK(ee_explainer_new(clf, &spec, 5, &ex[0]));
    CHECK_OK(ee_explainer_new(clf, &spec, 5, &ex[1]));
    const char *kind = ee_kind_name(clf->cfg.kind);
    if (!ex[0] || !ex[1]) goto done;
    CHECK(ex[0]->total == ex[1]->total && !memcmp(ex[0]->w, ex[1]->w, sizeof(float) * ex[0]->total),
          "%s: two explainers of one seed start alike", kind);
    float *w0 = gc_alloc(sizeof(float) * ex[0]->total), *F = gc_alloc(sizeof(float) * n * T);
    float *A = gc_alloc(sizeof(float) * n * T);
    memcpy(w0, ex[0]->w, sizeof(float) * ex[0]->total);
    learnable_maps(ids, n, T, F, A);
    EeDataset tr = {.in = {.n = n, .ids = ids, .feats = F}, .maps = A};
    EeTrainOptions o;
    ee_train_options_defaults(&o, clf->cfg.kind, EE_HEAD_TOKEN);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.epochs = 3; o.lr = 3e-3f; o.batch = 32;
    long steps = (long)o.epochs * ((n + o.batch - 1) / o.batch);
    EeHistory h[2];
    EeStatus st[2];
    for (int k = 0; k < 2; k++) {
        o.whole_batches = k == 0;
        st[k] = ee_train(ex[k], &tr, NULL, &o, &h[k]);
        CHECK(st[k] == EE_OK, "%s explainer, %s: %s", kind, k ? "split steps" : "whole batches",
              st[k] ? ee_last_error() : "");
    }
    if (st[0] == EE_OK && st[1] == EE_OK) {
        CHECK(h[0].passes == steps && h[1].passes > steps, "%s: %ld steps ran %ld passes whole, %ld split",
              kind, steps, h[0].passes, h[1].passes);
        double moved = 0, diff = 0;
        for (size_t q = 0; q < ex[0]->total; q++) {
            moved = fmax(moved, fabs((double)ex[0]->w[q] - w0[q]));
            diff = fmax(diff, fabs((double)ex[1]->w[q] - ex[0]->w[q]));
        }
        CHECK(moved > 1e-2 && diff <= 1e-3 * moved,
              "%s explainer: split steps train the weights of whole batches (largest change %.3g, "
              "largest difference %.3g)", kind, moved, diff);
        CHECK(fabs((double)h[1].train_loss[2] - h[0].train_loss[2]) <= 1e-4 * fabs((double)h[0].train_loss[2]),
              "%s explainer: the same training loss split and whole (%.7g, %.7g)", kind, h[1].train_loss[2],
              h[0].train_loss[2]);
    }
    for (int k = 0; k < 2; k++)
        if (st[k] == EE_OK) ee_history_free(&h[k]);
    free(w0); free(F); free(A);
done:
    ee_model_free(ex[0]);
    ee_model_free(ex[1]);
}

static void test_split_by_length(void)
{
    int n = 96, T = 48, V = 16;
    int32_t *ids = gc_alloc(sizeof(int32_t) * n * T), *lab = gc_alloc(sizeof(int32_t) * n);
    make_token_data(n, T, V, ids, lab);
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_TRANSFORMER);
    cfg.vocab = V; cfg.T = T; cfg.d = 8; cfg.heads = 2; cfg.layers = 2; cfg.ffn = 16; cfg.classes = 2;
    EeModel *clf = new_model(&cfg, 6);
    if (clf) split_case(clf, ids, n, T);
    ee_model_free(clf);
    ee_config_defaults(&cfg, EE_KIND_CNN);
    cfg.vocab = V; cfg.T = T; cfg.d = 8; cfg.filters = 4; cfg.nwidths = 2; cfg.widths[0] = 2; cfg.widths[1] = 3;
    cfg.classes = 2;
    if ((clf = new_model(&cfg, 7))) split_case(clf, ids, n, T);
    ee_model_free(clf);
    free(ids); free(lab);
}

static void test_training(void)
{
    /* Training makes thousands of tiny OpenMP regions; on a machine busy
     * with other work their barriers wait for descheduled threads (0.2 s
     * idle became 20 s at load 5 on 2 cores). The result does not depend on
     * the team size and the multi-threaded ops and backward passes are
     * checked above, so this part runs on one thread. */
#ifdef _OPENMP
    int team = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    int ntr = quick ? 192 : 600, nva = quick ? 96 : 200;
    /* token data: V = 16, T = 10 */
    int T = 10, V = 16;
    int32_t *ids = gc_alloc(sizeof(int32_t) * (ntr + nva) * T), *lab = gc_alloc(sizeof(int32_t) * (ntr + nva));
    make_token_data(ntr + nva, T, V, ids, lab);
    EeDataset tr = {.in = {.n = ntr, .ids = ids}, .labels = lab};
    EeDataset va = {.in = {.n = nva, .ids = ids + (size_t)ntr * T}, .labels = lab + ntr};

    EeConfig cfg;
    EeTrainOptions o;
    ee_config_defaults(&cfg, EE_KIND_TRANSFORMER);
    cfg.vocab = V; cfg.T = T; cfg.d = 16; cfg.heads = 2; cfg.layers = 1; cfg.ffn = 32; cfg.classes = 2;
    ee_train_options_defaults(&o, EE_KIND_TRANSFORMER, EE_HEAD_CLASSIFIER);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.epochs = quick ? 6 : 15; o.batch = 32; o.lr = 3e-3f;
    o.patience = 4; o.seed = 7;
    train_case("transformer", &cfg, &o, &tr, &va, quick ? 0.85 : 0.95);

    ee_config_defaults(&cfg, EE_KIND_CNN);
    cfg.vocab = V; cfg.T = T; cfg.d = 8; cfg.filters = 8; cfg.nwidths = 2; cfg.widths[0] = 1;
    cfg.widths[1] = 2; cfg.classes = 2;
    ee_train_options_defaults(&o, EE_KIND_CNN, EE_HEAD_CLASSIFIER);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.epochs = quick ? 10 : 20; o.batch = 32; o.lr = 1e-2f;
    o.dropout = 0.2f; o.patience = 4; o.seed = 8;
    train_case("cnn", &cfg, &o, &tr, &va, quick ? 0.85 : 0.95);

    /* dense data: label = [x . u > 0] */
    int D = 10;
    float *x = gc_alloc(sizeof(float) * (ntr + nva) * D), u[10];
    int32_t *lx = gc_alloc(sizeof(int32_t) * (ntr + nva));
    gc_fill_normal_f(&rng, u, D, 0, 1);
    gc_fill_normal_f(&rng, x, (size_t)(ntr + nva) * D, 0, 1);
    for (int i = 0; i < ntr + nva; i++) {
        double s = 0;
        for (int j = 0; j < D; j++) s += x[(size_t)i * D + j] * u[j];
        lx[i] = s > 0;
    }
    EeDataset trx = {.in = {.n = ntr, .x = x}, .labels = lx};
    EeDataset vax = {.in = {.n = nva, .x = x + (size_t)ntr * D}, .labels = lx + ntr};
    ee_config_defaults(&cfg, EE_KIND_MLP);
    cfg.D = D; cfg.nhidden = 1; cfg.hidden[0] = 16; cfg.classes = 2;
    ee_train_options_defaults(&o, EE_KIND_MLP, EE_HEAD_CLASSIFIER);
    o.verbose = 0; o.device = EE_DEVICE_CPU; o.epochs = quick ? 15 : 30; o.batch = 32; o.lr = 1e-2f;
    o.patience = 5; o.seed = 9; o.dropout = 0.1f;
    train_case("mlp", &cfg, &o, &trx, &vax, 0.9);

    /* Early stopping: random labels, a large learning rate: the validation
     * loss soon rises; the best epoch's weights must come back. */
    int nn = 64;
    int32_t *noise = gc_alloc(sizeof(int32_t) * 2 * nn);
    for (int i = 0; i < 2 * nn; i++) noise[i] = (int32_t)ee_rng_below(&rng, 2);
    EeDataset trn = {.in = {.n = nn, .x = x}, .labels = noise};
    EeDataset van = {.in = {.n = nn, .x = x + (size_t)nn * D}, .labels = noise + nn};
    cfg.hidden[0] = 32;
    o.epochs = 60; o.lr = 3e-2f; o.patience = 2; o.dropout = 0; o.batch = 16;
    EeModel *m = new_model(&cfg, 4);
    if (m) {
        EeHistory h;
        EeStatus st = ee_train(m, &trn, &van, &o, &h);
        CHECK(st == EE_OK, "early-stop case: %s", ee_last_error());
        if (st == EE_OK) {
            CHECK(h.stopped_early, "random labels: training did not stop early (%d epochs)", h.epochs_run);
            check_history("mlp early stop", m, &van, &o, &h);
            printf("  %-22s epochs %d  best %d  stopped early %d\n", "mlp early stop", h.epochs_run,
                   h.best_epoch, h.stopped_early);
            ee_history_free(&h);
        }
        /* without validation: every epoch runs, the last weights stay */
        EeModel *m2 = new_model(&cfg, 4);
        o.epochs = 3;
        st = ee_train(m2, &trn, NULL, &o, &h);
        CHECK(st == EE_OK && h.epochs_run == 3 && h.best_epoch == 3 && !h.stopped_early,
              "no validation: epochs_run %d best %d", h.epochs_run, h.best_epoch);
        if (st == EE_OK) ee_history_free(&h);
        ee_model_free(m2);
        ee_model_free(m);
    }
    free(noise);
    test_explainer_start(ids, ntr, T, V);
    test_explainer_freeze(ids, ntr, T, V);
    test_split_by_length();
    free(ids); free(lab); free(x); free(lx);
#ifdef _OPENMP
    omp_set_num_threads(team);
#endif
}

/* The views that the samplers read the weights through (ee_cnn_view,
 * ee_tf_qkv0_view): the tensors each kind registered, checked by name;
 * a model of another kind, or a tensor not where its name says, is an
 * error, never an offset read from a -1 index. Also the name tables and
 * argmax of ee.h. */
static void test_views(void)
{
    EeConfig cc, tc;
    ee_config_defaults(&cc, EE_KIND_CNN);
    cc.vocab = 20; cc.T = 8; cc.classes = 3; cc.d = 4; cc.filters = 3; cc.nwidths = 2;
    cc.widths[0] = 2; cc.widths[1] = 3;
    ee_config_defaults(&tc, EE_KIND_TRANSFORMER);
    tc.vocab = 20; tc.T = 8; tc.classes = 3; tc.d = 4; tc.heads = 2; tc.layers = 1; tc.ffn = 8;
    for (int bias = 1; bias >= 0; bias--) {
        cc.bias = bias;
        EeModel *m;
        CHECK_OK(ee_model_new(&cc, &m));
        EeCnnView v;
        CHECK_OK(ee_cnn_view(m, m->w, &v));
        int e = ee_model_find_param(m, NULL, 0, "E_tok"), wc = ee_model_find_param(m, NULL, 0, "Wc");
        int bc = ee_model_find_param(m, NULL, 0, "bc");
        CHECK(v.E == m->w + m->p[e].offset && v.Wc == m->w + m->p[wc].offset, "cnn view: E_tok or Wc misplaced");
        CHECK(bias ? bc >= 0 && v.bc == m->w + m->p[bc].offset : bc < 0 && v.bc == NULL, "cnn view: bc (bias %d)", bias);
        for (int k = 0; k < 2; k++) {
            int wi = ee_model_find_param(m, "conv", k, "W"), bi = ee_model_find_param(m, "conv", k, "b");
            CHECK(v.W[k] == m->w + m->p[wi].offset, "cnn view: conv(%d).W misplaced", k + 1);
            CHECK(bias ? v.b[k] == m->w + m->p[bi].offset : v.b[k] == NULL, "cnn view: conv(%d).b (bias %d)", k + 1, bias);
        }
        CHECK(v.K == 2 && v.F == 3 && v.d == 4 && v.C == 3 && v.widths[1] == 3, "cnn view: sizes");
        EeTfQkvView q;
        CHECK(ee_tf_qkv0_view(m, m->w, &q) == EE_ERR_MODEL && !q.W[0], "a cnn has no layer-0 projections");
        int fail = 0;
        CHECK(ee_param_view(m, m->w, e, NULL, 0, "Wc", &fail) == NULL && fail, "a tensor viewed under another name");
        fail = 0;
        CHECK(ee_param_view(m, m->w, -1, NULL, 0, "E_tok", &fail) == NULL && fail, "index -1 viewed");
        ee_model_free(m);
    }
    for (int layers = 1; layers >= 0; layers--) {
        tc.layers = layers;
        EeModel *m;
        CHECK_OK(ee_model_new(&tc, &m));
        EeTfQkvView q;
        EeStatus st = ee_tf_qkv0_view(m, m->w, &q);
        if (layers) {
            CHECK_OK(st);
            static const char *const wn[3] = {"Wq", "Wk", "Wv"}, *const bn[3] = {"bq", "bk", "bv"};
            for (int k = 0; k < 3; k++)
                CHECK(q.W[k] == m->w + m->p[ee_model_find_param(m, "encoder", 0, wn[k])].offset &&
                      q.b[k] == m->w + m->p[ee_model_find_param(m, "encoder", 0, bn[k])].offset,
                      "transformer view: %s/%s misplaced", wn[k], bn[k]);
        } else
            CHECK(st == EE_ERR_MODEL, "a transformer without layers has no layer-0 projections");
        EeCnnView v;
        CHECK(ee_cnn_view(m, m->w, &v) == EE_ERR_MODEL && !v.E, "a transformer viewed as a cnn");
        ee_model_free(m);
    }
    /* the name tables follow their enums */
    EeKind k;
    CHECK(ee_kind_from_name(ee_kind_names[EE_KIND_MLP], &k) && k == EE_KIND_MLP, "kind names");
    CHECK(!strcmp(ee_head_names[EE_HEAD_TOKEN], "token") && !strcmp(ee_device_names[EE_DEVICE_GPU], "gpu") &&
          !strcmp(ee_schedule_names[EE_SCHEDULE_COSINE], "cosine") &&
          !strcmp(ee_ig_method_names[EE_IG_GRADXINPUT], "gradxinput") &&
          !strcmp(ee_ig_method_names[EE_IG_XGRAD], "xgrad") &&
          !strcmp(ee_baseline_names[EE_BASELINE_ZERO], "zero") && !strcmp(ee_freeze_names[2], "encoder"),
          "a name table out of its enum's order");
    /* argmax: the largest, ties to the lowest index */
    float z[5] = {0.5f, 2.0f, -1.0f, 2.0f, 1.0f};
    double zd[3] = {1.0, 1.0 + 1e-12, 1.0};
    CHECK(ee_argmax(z, 5) == 1 && ee_argmax(z, 1) == 0 && ee_argmax_double(zd, 3) == 1, "argmax");
}

int main(void)
{
    ee_threads_enter();
    quick = gc_quick();
    be = ee_backend_cpu();
    ee_rng_seed(&rng, 0x5EEDULL);
    double t0 = ee_now();
    struct { const char *name; void (*fn)(void); } tests[] = {
        {"transformer", test_transformer}, {"cnn", test_cnn}, {"mlp", test_mlp}, {"training", test_training},
        {"views", test_views},
    };
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        double t = ee_now();
        int f0 = check_failed;
        /* each group draws from its own stream: adding checks to one group
         * does not change the random cases of the others */
        ee_rng_stream(&rng, 0x5EEDULL, i, 0);
        tests[i].fn();
        printf("%-12s %s  %.2f s\n", tests[i].name, check_failed == f0 ? "ok  " : "FAIL", ee_now() - t);
    }
    printf("test_models: %.2f s%s\n", ee_now() - t0, quick ? " (quick)" : "");
    ee_threads_leave();
    return check_finish("test_models");
}
