/* test_prior.c: the attribution prior of ee_train (libcore/train/prior.c)
 * against a double-precision reference written here: a bias-free ReLU mlp
 * read through the public exchange format (ee_param_get: fc i W is
 * in x out, column-major), its input gradient of each row's label logit by
 * the chain rule, and the penalty
 *     P = w/B sum_b || m .* x_b .* grad_x f_{y_b}(x_b) ||^2.
 * Checks:
 * - the penalty of ee_prior_step equals the reference's;
 * - the gradient it adds to the run equals central differences of the
 *   reference penalty with respect to every weight (the activation pattern
 *   does not change under the small steps: inputs are redrawn until every
 *   pre-activation is KINK_MARGIN from 0). The second-order terms are
 *   the whole gradient here (P depends on the weights only through g), so
 *   a first-order shortcut fails this check;
 * - ee_train refuses a prior for an mlp with biases and with dropout
 *   (EE_ERR_UNSUPPORTED) and a mask with NaN (EE_ERR_INPUT); weight 0
 *   trains to the same bits as no prior; a positive weight lowers the
 *   penalty of the trained model (the training loop applies the gradient).
 */
#include "check.h"
#include "gradcheck.h"
#include "ee.h"
#include "train/prior.h"

#include <string.h>

#define ND 7
#define NH1 9
#define NH2 6
#define NC 4
#define NB 5
#define KINK_MARGIN 1e-3
#define FD_H 1e-6
#define GRAD_RTOL 1e-4

static EeRng rng;

typedef struct {
    double *W[3];             /* exchange layout, fc0..fc2 */
    int in[3], out[3];
    const double *x;          /* NB x ND, row-major */
    const int32_t *y;
    const double *m;          /* ND */
    double w;
    double min_abs_z;         /* smallest |pre-activation| seen by the last call */
} Ref;

/* Forward with the pattern, backward of e_y to x, the penalty. */
static double ref_penalty(void *ctx)
{
    Ref *r = ctx;
    double P = 0;
    r->min_abs_z = INFINITY;
    for (int b = 0; b < NB; b++) {
        double h0[ND], z1[NH1], h1[NH1], z2[NH2], h2[NH2];
        memcpy(h0, r->x + (size_t)b * ND, sizeof h0);
        for (int j = 0; j < NH1; j++) {
            z1[j] = 0;
            for (int i = 0; i < ND; i++) z1[j] += h0[i] * r->W[0][i + ND * j];
            h1[j] = z1[j] > 0 ? z1[j] : 0;
            r->min_abs_z = fmin(r->min_abs_z, fabs(z1[j]));
        }
        for (int j = 0; j < NH2; j++) {
            z2[j] = 0;
            for (int i = 0; i < NH1; i++) z2[j] += h1[i] * r->W[1][i + NH1 * j];
            h2[j] = z2[j] > 0 ? z2[j] : 0;
            r->min_abs_z = fmin(r->min_abs_z, fabs(z2[j]));
        }
        (void)h2;
        /* d f_y / d h2 = W2[:, y]; through the ReLUs back to x */
        double d2[NH2], d1[NH1], g[ND];
        for (int i = 0; i < NH2; i++) d2[i] = z2[i] > 0 ? r->W[2][i + NH2 * r->y[b]] : 0;
        for (int i = 0; i < NH1; i++) {
            double s = 0;
            for (int j = 0; j < NH2; j++) s += r->W[1][i + NH1 * j] * d2[j];
            d1[i] = z1[i] > 0 ? s : 0;
        }
        for (int i = 0; i < ND; i++) {
            double s = 0;
            for (int j = 0; j < NH1; j++) s += r->W[0][i + ND * j] * d1[j];
            g[i] = s;
            double a = r->m[i] * h0[i] * g[i];
            P += a * a;
        }
    }
    return r->w * P / NB;
}

static EeModel *make_model(int bias, uint64_t seed)
{
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_MLP);
    cfg.D = ND; cfg.nhidden = 2; cfg.hidden[0] = NH1; cfg.hidden[1] = NH2; cfg.classes = NC;
    cfg.bias = bias;
    EeModel *m = NULL;
    CHECK_OK(ee_model_new(&cfg, &m));
    if (m) ee_model_init(m, seed);
    return m;
}

static void test_gradient(void)
{
    EeModel *m = make_model(0, 7);
    if (!m) return;
    const EeBackend *be = ee_backend_cpu();
    float xf[NB * ND], mf[ND];
    double xd[NB * ND], md[ND];
    int32_t y[NB];
    Ref ref = {.x = xd, .y = y, .m = md, .w = 0.7};
    int sizes[4] = {ND, NH1, NH2, NC};
    for (int k = 0; k < 3; k++) {
        ref.in[k] = sizes[k];
        ref.out[k] = sizes[k + 1];
        ref.W[k] = gc_alloc(sizeof(double) * sizes[k] * sizes[k + 1]);
        float *wf = gc_alloc(sizeof(float) * sizes[k] * sizes[k + 1]);
        CHECK_OK(ee_param_get(m, k, wf, (size_t)sizes[k] * sizes[k + 1]));
        gc_f2d(wf, ref.W[k], (size_t)sizes[k] * sizes[k + 1]);
        free(wf);
    }
    for (int b = 0; b < NB; b++) y[b] = (int32_t)ee_rng_below(&rng, NC);
    gc_fill_f(&rng, mf, ND, 0, 1);
    mf[1] = 0; /* a masked-out pixel */
    gc_f2d(mf, md, ND);
    /* inputs: nonnegative like pixels, redrawn until no unit is near its kink */
    int tries = 0;
    do {
        gc_fill_f(&rng, xf, NB * ND, 0, 1);
        gc_f2d(xf, xd, NB * ND);
        ref_penalty(&ref);
    } while (ref.min_abs_z < KINK_MARGIN && ++tries < 1000);
    CHECK(ref.min_abs_z >= KINK_MARGIN, "no input away from the kinks after %d tries", tries);
    double Pref = ref_penalty(&ref);

    EeRun *r = NULL;
    CHECK_OK(ee_run_new(m, be, NB, 1, 1, &r));
    EePrior *p = NULL;
    if (r) CHECK_OK(ee_prior_new(r, mf, (float)ref.w, &p));
    if (!r || !p) { ee_run_free(r); ee_model_free(m); return; }
    CHECK_OK(ee_run_set_input(r, NULL, NULL, xf, NB));
    ee_run_forward(r, NB, 1);
    be->zero(r->g, sizeof(float) * ee_model_size(m));
    double pen = 0;
    CHECK_OK(ee_prior_step(p, xf, y, NB, &pen));
    CHECK(fabs(pen - Pref) <= 1e-5 * fabs(Pref) && Pref > 0, "penalty %.9g, reference %.9g", pen, Pref);

    EeModel *gm = NULL;
    CHECK_OK(ee_model_new(ee_model_config(m), &gm));
    if (gm) {
        memcpy(gm->w, r->g, sizeof(float) * ee_model_size(m));
        double global = 0;
        float *got[3];
        double *fd[3];
        for (int k = 0; k < 3; k++) {
            size_t n = (size_t)ref.in[k] * ref.out[k];
            got[k] = gc_alloc(sizeof(float) * n);
            fd[k] = gc_alloc(sizeof(double) * n);
            CHECK_OK(ee_param_get(gm, k, got[k], n));
            for (size_t i = 0; i < n; i++) fd[k][i] = gc_fd1(ref_penalty, &ref, &ref.W[k][i], FD_H);
            global = fmax(global, gc_maxabs_d(fd[k], n));
        }
        CHECK(global > 0, "the penalty's gradient vanishes: nothing is tested");
        static const char *names[3] = {"prior dP/dW fc0", "prior dP/dW fc1", "prior dP/dW fc2"};
        for (int k = 0; k < 3; k++)
            gc_check_close(names[k], got[k], fd[k], (size_t)ref.in[k] * ref.out[k], GRAD_RTOL, 1e-2 * global);
        for (int k = 0; k < 3; k++) { free(got[k]); free(fd[k]); }
        ee_model_free(gm);
    }
    ee_prior_free(p);
    ee_run_free(r);
    for (int k = 0; k < 3; k++) free(ref.W[k]);
    ee_model_free(m);
}

/* Rows whose class is decided by pixel 0 (a "decoy" with its own class cue
 * elsewhere is not needed: this checks the plumbing of ee_train). */
static void test_training(void)
{
    enum { N = 256 };
    float *x = gc_alloc(sizeof(float) * N * ND), mask[ND];
    int32_t *y = gc_alloc(sizeof(int32_t) * N);
    for (int i = 0; i < N; i++) {
        y[i] = (int32_t)(i % NC);
        for (int j = 0; j < ND; j++) x[(size_t)i * ND + j] = (float)ee_rng_uniform(&rng);
        x[(size_t)i * ND] = (float)(y[i] + 1) / NC; /* pixel 0 encodes the class */
    }
    for (int j = 0; j < ND; j++) mask[j] = j == 0;
    EeDataset tr = {.in = {.n = N, .x = x}, .labels = y};
    EeTrainOptions o;
    ee_train_options_defaults(&o, EE_KIND_MLP, EE_HEAD_CLASSIFIER);
    o.epochs = 30; o.batch = 32; o.lr = 1e-2f; o.verbose = 0; o.device = EE_DEVICE_CPU;
    o.prior_mask = mask;
    EeHistory h;

    EeModel *mb = make_model(1, 3);
    if (mb) {
        o.prior_weight = 1;
        CHECK(ee_train(mb, &tr, NULL, &o, &h) == EE_ERR_UNSUPPORTED, "a prior on an mlp with biases is refused");
        ee_model_free(mb);
    }
    EeModel *m0 = make_model(0, 3), *m1 = make_model(0, 3), *m2 = make_model(0, 3);
    if (!m0 || !m1 || !m2) return;
    o.dropout = 0.2f;
    CHECK(ee_train(m0, &tr, NULL, &o, &h) == EE_ERR_UNSUPPORTED, "a prior with dropout is refused");
    o.dropout = 0;
    mask[2] = NAN;
    CHECK(ee_train(m0, &tr, NULL, &o, &h) == EE_ERR_INPUT, "a mask with NaN is refused");
    mask[2] = 0;
    o.prior_weight = -1;
    CHECK(ee_train(m0, &tr, NULL, &o, &h) == EE_ERR_INPUT, "a negative weight is refused");

    /* weight 0: the same bits as no prior */
    o.prior_weight = 0;
    CHECK_OK(ee_train(m0, &tr, NULL, &o, &h));
    CHECK(h.prior_penalty != NULL, "the history has the prior's penalty");
    ee_history_free(&h);
    o.prior_mask = NULL;
    CHECK_OK(ee_train(m1, &tr, NULL, &o, &h));
    CHECK(h.prior_penalty == NULL, "no penalty without a prior");
    ee_history_free(&h);
    gc_check_equal_f("prior weight 0 = no prior", m0->w, m1->w, ee_model_size(m0));

    /* a positive weight: the trained model puts less attribution on pixel 0 */
    o.prior_mask = mask;
    o.prior_weight = 10;
    CHECK_OK(ee_train(m2, &tr, NULL, &o, &h));
    ee_history_free(&h);
    EeAttrOptions a;
    ee_attr_options_defaults(&a);
    a.method = EE_IG_XGRAD;
    a.steps = 1;
    a.baseline = EE_BASELINE_ZERO;
    a.target = y;
    a.verbose = 0;
    a.device = EE_DEVICE_CPU;
    float *A1 = gc_alloc(sizeof(float) * N * ND), *A2 = gc_alloc(sizeof(float) * N * ND);
    EeInput in = {.n = N, .x = x};
    CHECK_OK(ee_ig_attribute(m1, &in, &a, A1, NULL));
    CHECK_OK(ee_ig_attribute(m2, &in, &a, A2, NULL));
    double s1 = 0, s2 = 0;
    for (int i = 0; i < N; i++) {
        s1 += (double)A1[(size_t)i * ND] * A1[(size_t)i * ND];
        s2 += (double)A2[(size_t)i * ND] * A2[(size_t)i * ND];
    }
    CHECK(s2 < 0.5 * s1, "the prior lowers the masked attribution: %.4g with, %.4g without", s2 / N, s1 / N);
    printf("  masked attribution^2 per row: %.4g without the prior, %.4g with (weight 10)\n", s1 / N, s2 / N);
    free(A1); free(A2);
    ee_model_free(m0); ee_model_free(m1); ee_model_free(m2);
    free(x); free(y);
}

int main(void)
{
    ee_rng_seed(&rng, 0x9A10ULL);
    for (int rep = 0; rep < 3; rep++) test_gradient();
    test_training();
    return check_finish("test_prior");
}
