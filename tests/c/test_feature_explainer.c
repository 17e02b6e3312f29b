/* test_feature_explainer.c: the Empirical Explainer of a function of
 * feature vectors (an mlp with head 'flat', ee_feature_explainer_new):
 * construction and the designs it refuses, the forward pass against a
 * double-precision reference from its own weights, the MSE gradient of
 * the training step against central differences of the loss, and
 * training (a linear explainer recovers a linear map of the features; the
 * maps' scale is folded back into the last layer). */
#include "check.h"
#include "gradcheck.h"
#include "ee.h"
#include "models/model_impl.h"

#include <math.h>
#include <string.h>

enum { D = 5, P = 3, N = 6 };

/* y = x W_k + b_k through the layers, ReLU between; the weights read back
 * in exchange (column-major) order: W of layer k is n0 x n1. */
static void reference_forward(const EeModel *m, const float *x, int n, double *y)
{
    const EeConfig *c = ee_model_config(m);
    int widths[EE_MAX_HIDDEN + 2];
    widths[0] = c->D;
    for (int i = 0; i < c->nhidden; i++) widths[i + 1] = c->hidden[i];
    widths[c->nhidden + 1] = c->classes;
    for (int r = 0; r < n; r++) {
        double h[64], z[64];
        for (int j = 0; j < c->D; j++) h[j] = x[(size_t)r * c->D + j];
        for (int k = 0; k <= c->nhidden; k++) {
            int n0 = widths[k], n1 = widths[k + 1];
            int wi = ee_model_find_param(m, "fc", k, "W"), bi = ee_model_find_param(m, "fc", k, "b");
            float W[64 * 64], b[64];
            REQUIRE(wi >= 0 && bi >= 0 && n0 <= 64 && n1 <= 64, "layer %d's W and b", k);
            if (wi < 0 || bi < 0) return;
            ee_param_get(m, wi, W, (size_t)n0 * n1);
            ee_param_get(m, bi, b, (size_t)n1);
            for (int o = 0; o < n1; o++) {
                double s = b[o];
                for (int j = 0; j < n0; j++) s += h[j] * W[j + (size_t)n0 * o];
                z[o] = k < c->nhidden && s < 0 ? 0 : s;
            }
            memcpy(h, z, sizeof(double) * n1);
        }
        for (int o = 0; o < c->classes; o++) y[(size_t)r * c->classes + o] = h[o];
    }
}

static double mse_of(EeModel *m, const float *x, const float *t, int n)
{
    float out[N * P];
    CHECK_OK(ee_model_predict(m, &(EeInput){.n = n, .x = x}, out, 0, EE_DEVICE_CPU));
    double s = 0;
    for (int q = 0; q < n * P; q++) s += ((double)out[q] - t[q]) * ((double)out[q] - t[q]);
    return s / (n * P);
}

static void test_construction(void)
{
    int hidden[2] = {7, 4};
    EeModel *m = NULL;
    CHECK_OK(ee_feature_explainer_new(D, P, 2, hidden, 3, &m));
    if (!m) return;
    const EeConfig *c = ee_model_config(m);
    CHECK(ee_is_feature_explainer(c) && c->head == EE_HEAD_FLAT && c->kind == EE_KIND_MLP,
          "an mlp with head flat (kind %d head %d)", c->kind, c->head);
    CHECK(ee_config_outputs(c) == P, "outputs %d, want the %d players", ee_config_outputs(c), P);
    CHECK(ee_config_features(c) == 0, "no per-token features");
    CHECK(ee_model_size(m) == (size_t)(D * 7 + 7 + 7 * 4 + 4 + 4 * P + P), "weights %zu", ee_model_size(m));
    ee_model_free(m);

    EeModel *bad = NULL;
    CHECK(ee_feature_explainer_new(D, 0, 0, NULL, 1, &bad) == EE_ERR_MODEL && !bad, "0 players refused");
    CHECK(ee_feature_explainer_new(D, P, EE_MAX_HIDDEN + 1, hidden, 1, &bad) == EE_ERR_INPUT && !bad,
          "too many hidden layers refused");
    CHECK(ee_feature_explainer_new(D, 1, 0, NULL, 1, &bad) == EE_OK && bad, "one player is a model");
    ee_model_free(bad);
    bad = NULL;
    /* the token explainers' design does not apply */
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_MLP);
    cfg.D = D; cfg.classes = P; cfg.head = EE_HEAD_TOKEN;
    CHECK(ee_model_new(&cfg, &bad) == EE_ERR_MODEL && !bad, "mlp with head token refused");
    cfg.head = EE_HEAD_FLAT; cfg.efficiency = 1; cfg.inputs = EE_INPUTS_GRADIENT; cfg.zero_special = 1;
    CHECK(ee_model_new(&cfg, &bad) == EE_ERR_MODEL && !bad, "mlp explainer with features refused");
    ee_config_defaults(&cfg, EE_KIND_CNN);
    cfg.head = EE_HEAD_FLAT;
    CHECK(ee_config_check(&cfg) == EE_ERR_UNSUPPORTED,
          "cnn explainer with the flat head refused (the cnn has the token head only)");
}

static void test_forward_and_gradient(void)
{
    int hidden[2] = {7, 4};
    EeModel *m = NULL;
    CHECK_OK(ee_feature_explainer_new(D, P, 2, hidden, 5, &m));
    if (!m) return;
    EeRng rng;
    ee_rng_seed(&rng, 11);
    float x[N * D], t[N * P], out[N * P];
    gc_fill_normal_f(&rng, x, N * D, 0, 1);
    gc_fill_normal_f(&rng, t, N * P, 0, 1);
    /* biases away from 0 so that the ReLU kinks are not near the rows */
    for (int i = 0; i < m->np; i++)
        if (!strcmp(m->p[i].field, "b"))
            for (size_t k = 0; k < m->p[i].count; k++) m->w[m->p[i].offset + k] = 0.1f * (float)(k % 3) + 0.05f;
    CHECK_OK(ee_model_predict(m, &(EeInput){.n = N, .x = x}, out, 0, EE_DEVICE_CPU));
    double ref[N * P];
    reference_forward(m, x, N, ref);
    gc_check_close("forward: N x P outputs against the reference", out, ref, N * P, 1e-5, 0);

    /* one training step's gradient: MSE on the outputs, backward through the run */
    EeDevice dev;
    const EeBackend *be;
    CHECK_OK(ee_backend_resolve(EE_DEVICE_CPU, EE_PRECISION_FP32, &dev, &be));
    EeRun *r = NULL;
    CHECK_OK(ee_run_new(m, be, N, 1, 1, &r));
    if (!r) { ee_model_free(m); return; }
    CHECK_OK(ee_run_set_input(r, NULL, NULL, x, N));
    ee_run_embed(r, N);
    ee_run_forward(r, N, 1);
    float dout[N * P], loss;
    be->mse(r->out, t, dout, &loss, N, P);
    be->zero(r->g, sizeof(float) * m->total);
    ee_run_backward(r, N, dout, 0, 1);
    size_t W = m->total;
    float *g = gc_alloc(sizeof(float) * W);
    double *fd = gc_alloc(sizeof(double) * W);
    memcpy(g, r->g, sizeof(float) * W);
    ee_run_free(r);
    CHECK(fabs(loss - mse_of(m, x, t, N)) <= 1e-5 * fabs(loss), "the run's loss %.8g equals the MSE of the outputs %.8g",
          (double)loss, mse_of(m, x, t, N));
    /* the loss is piecewise quadratic in a weight: central differences are
     * exact but for float rounding, unless a step crosses a ReLU kink */
    const double h = 1e-3;
    for (size_t k = 0; k < W; k++) {
        float w0 = m->w[k];
        m->w[k] = (float)(w0 + h);
        double lp = mse_of(m, x, t, N);
        m->w[k] = (float)(w0 - h);
        double lm = mse_of(m, x, t, N);
        m->w[k] = w0;
        fd[k] = (lp - lm) / (2 * h);
    }
    gc_check_close("MSE gradient of every weight against central differences", g, fd, W, 2e-3, 1e-3);
    free(g);
    free(fd);
    ee_model_free(m);
}

/* targets = x M (a linear map, large scale): a linear explainer recovers
 * it, and the standardisation's factor comes back through the last layer */
static void test_training(void)
{
    enum { NT = 256 };
    EeRng rng;
    ee_rng_seed(&rng, 21);
    float *x = gc_alloc(sizeof(float) * NT * D), *t = gc_alloc(sizeof(float) * NT * P);
    double M[D][P];
    for (int j = 0; j < D; j++)
        for (int p = 0; p < P; p++) M[j][p] = 300.0 * ee_rng_normal(&rng);
    gc_fill_normal_f(&rng, x, NT * D, 0, 1);
    double ss = 0;
    for (int i = 0; i < NT; i++)
        for (int p = 0; p < P; p++) {
            double s = 0;
            for (int j = 0; j < D; j++) s += x[i * D + j] * M[j][p];
            t[i * P + p] = (float)s;
            ss += s * s;
        }
    EeModel *m = NULL;
    CHECK_OK(ee_feature_explainer_new(D, P, 0, NULL, 1, &m));
    if (!m) return;
    EeTrainOptions o;
    ee_train_options_defaults(&o, EE_KIND_MLP, EE_HEAD_FLAT);
    CHECK(o.standardize == 1, "explainers train on standardised maps by default");
    o.epochs = 150;
    o.lr = 1e-2f;
    o.verbose = 0;
    o.device = EE_DEVICE_CPU;
    EeDataset tr = {.in = {.n = NT, .x = x}, .maps = t};
    EeHistory hist;
    CHECK_OK(ee_train(m, &tr, NULL, &o, &hist));
    double rel = mse_of(m, x, t, (int)NT < (int)N ? (int)NT : (int)N) / (ss / (NT * P));
    CHECK(rel < 1e-8, "linear explainer: MSE / mean square of the maps = %.3g (< 1e-8)", rel);
    CHECK(hist.epochs_run == 150 && hist.train_loss[149] < hist.train_loss[0],
          "training loss fell (%.4g -> %.4g)", hist.epochs_run ? hist.train_loss[0] : NAN,
          hist.epochs_run ? hist.train_loss[hist.epochs_run - 1] : NAN);
    ee_history_free(&hist);
    /* NaN in the maps: refused before training */
    t[7] = NAN;
    CHECK(ee_train(m, &tr, NULL, &o, &hist) == EE_ERR_INPUT, "NaN in the maps refused");
    ee_model_free(m);
    free(x);
    free(t);
}

/* The input scaling (ee_input_scale_fit / _apply) against closed forms:
 * a column 1..n has median (n + 1) / 2 and quartiles (n + 3) / 4 and
 * (3 n + 1) / 4 (the linear rule between order statistics); a column that
 * is mostly one value takes its standard deviation; a constant column
 * scale 1; only the column with a far value is squashed, continuously and
 * with slope 1 at the threshold; any positive rescaling and shift of a
 * column gives the same scaled values. */
static void test_input_scaling(void)
{
    enum { R = 41, F4 = 4 };
    float x[R * F4], y[R * F4], zx[R * F4], zy[R * F4];
    for (int i = 0; i < R; i++) {
        x[i * F4 + 0] = (float)(i + 1);
        x[i * F4 + 1] = 7.0f;
        x[i * F4 + 2] = i < 35 ? 0.0f : 1.0f; /* quartiles both 0 */
        x[i * F4 + 3] = i == R - 1 ? 500.0f : (float)((i * 7) % 11);
    }
    double mean3 = 6.0 / R;
    double c[F4], sc[F4], sq[F4];
    CHECK_OK(ee_input_scale_fit(x, R, F4, c, sc, sq));
    double n = R;
    CHECK(fabs(c[0] - (n + 1) / 2) < 1e-12 && fabs(sc[0] - ((3 * n + 1) / 4 - (n + 3) / 4) / 1.349) < 1e-12,
          "column 1..n: center %g scale %g", c[0], sc[0]);
    CHECK(c[1] == 7 && sc[1] == 1, "constant column: center %g scale %g", c[1], sc[1]);
    double ss = 0;
    for (int i = 0; i < R; i++) ss += (x[i * F4 + 2] - mean3) * (x[i * F4 + 2] - mean3);
    CHECK(c[2] == 0 && fabs(sc[2] - sqrt(ss / (R - 1))) < 1e-12, "mostly zeros: center %g scale %g", c[2], sc[2]);
    CHECK(isinf(sq[0]) && isinf(sq[1]) && isinf(sq[2]) && sq[3] == EE_INPUT_SQUASH,
          "squash only the far column: %g %g %g %g", sq[0], sq[1], sq[2], sq[3]);
    double t = EE_INPUT_SQUASH, e = 1e-7;
    double below = ee_input_scale_value(t - e, 0, 1, t), above = ee_input_scale_value(t + e, 0, 1, t);
    CHECK(fabs(below - (t - e)) < 1e-15 && fabs((above - below) / (2 * e) - 1) < 1e-6,
          "squash continuous, slope 1 at the threshold: %.17g %.17g", below, above);
    CHECK(fabs(ee_input_scale_value(-10, 0, 1, t) + (t + log(1 + 10 - t))) < 1e-15 &&
              ee_input_scale_value(-10, 0, 1, INFINITY) == -10,
          "squash beyond, none with Inf");
    for (int i = 0; i < R; i++)
        for (int f = 0; f < F4; f++) y[i * F4 + f] = (float)(8.0 * x[i * F4 + f] - 300.0);
    double cy[F4], sy[F4], qy[F4];
    CHECK_OK(ee_input_scale_fit(y, R, F4, cy, sy, qy));
    ee_input_scale_apply(c, sc, sq, x, R, F4, zx);
    ee_input_scale_apply(cy, sy, qy, y, R, F4, zy);
    double worst = 0;
    for (int q = 0; q < R * F4; q++)
        if (q % F4 != 1 && !(fabs((double)zx[q] - zy[q]) <= worst)) /* (the constant column's scale is 1) */
            worst = fabs((double)zx[q] - zy[q]);
    CHECK(worst < 1e-5, "8 x - 300 scales to the same values: worst %g", worst);
    x[5] = NAN;
    CHECK(ee_input_scale_fit(x, R, F4, c, sc, sq) == EE_ERR_INPUT, "NaN refused");
}

int main(void)
{
    test_construction();
    test_forward_and_gradient();
    test_training();
    test_input_scaling();
    return check_finish("test_feature_explainer");
}
