/* test_deeplift.c: DeepLIFT with the rescale rule
 * (ee_gradient_attribute, method deeplift; doc/MODELS.md "DeepLIFT")
 * against an independent double-precision computation written from that
 * definition on the weights of refmodel.h:
 * - the mlp (zero reference) and the cnn (pad and ids references), with
 *   random weights of trained size whose ReLUs and pooled maxima change
 *   between a row and its reference, to float rounding; the same map
 *   under SmoothGrad given the noise libcore drew;
 * - completeness: the map sums to f(x) - f(reference), as info.delta and
 *   against the reference's outputs;
 * - on an mlp whose hidden units are active at every row and reference
 *   (a linear network there), DeepLIFT is gradient x (x - reference),
 *   bit for bit;
 * - that the comparison fails when the rescale multiplier is replaced by
 *   the gradient (DeepLIFT then is gradient x (x - reference)) and when
 *   one weight of the reference is 1 % off;
 * - the same bits for batch 1 and 64, the passes (N + 2 N n forward,
 *   N n backward);
 * - refusals: a transformer, a backend without the rescale ops (a GPU),
 *   both ee:notSupported. */
#include "refmodel.h"
#include "backend/backend.h"
#include "models/model_impl.h"

static EeRng rng;

/* The reference's own switches: the multipliers of the ReLUs (and of
 * the cnn's max pooling) by the rescale rule, or, as a mutation, by the
 * gradient at the input. */
static int use_gradient;

static double relu_d(double z) { return z > 0 ? z : 0; }

/* a ReLU's multiplier from its input's pre-activation zx and its
 * reference's zr */
static double relu_mult(double zx, double zr)
{
    double dz = zx - zr;
    if (use_gradient || fabs(dz) < 1e-10) return zx > 0 ? 1 : 0;
    return (relu_d(zx) - relu_d(zr)) / dz;
}

/* DeepLIFT of an mlp: phi[q] = (x - b)[q] m[q], m the multipliers of x
 * for the target logit, the backward pass with the rescaled ReLUs. */
static void ref_dl_mlp(Ref *r, const double *x, const double *b, int target, double *phi)
{
    const EeConfig *c = &r->c;
    int n[EE_MAX_HIDDEN + 2];
    n[0] = c->D;
    for (int i = 0; i < c->nhidden; i++) n[i + 1] = c->hidden[i];
    n[c->nhidden + 1] = c->classes;
    double zx[EE_MAX_HIDDEN + 1][64], zb[EE_MAX_HIDDEN + 1][64], ax[64], ab[64], m[64], mx[64];
    memcpy(ax, x, sizeof(double) * n[0]);
    memcpy(ab, b, sizeof(double) * n[0]);
    for (int i = 0; i < c->nhidden; i++) { /* layer i + 1's pre-activations */
        const double *W = r->p[r->fw[i]], *bias = c->bias ? r->p[r->fb[i]] : NULL;
        for (int j = 0; j < n[i + 1]; j++) {
            double sx = bias ? bias[j] : 0, sb = sx;
            for (int a = 0; a < n[i]; a++) {
                sx += ax[a] * W[a + (size_t)n[i] * j];
                sb += ab[a] * W[a + (size_t)n[i] * j];
            }
            zx[i + 1][j] = sx;
            zb[i + 1][j] = sb;
        }
        for (int j = 0; j < n[i + 1]; j++) {
            ax[j] = relu_d(zx[i + 1][j]);
            ab[j] = relu_d(zb[i + 1][j]);
        }
    }
    for (int j = 0; j < c->classes; j++) m[j] = j == target;
    for (int i = c->nhidden; i >= 0; i--) {
        const double *W = r->p[r->fw[i]];
        for (int a = 0; a < n[i]; a++) {
            double s = 0;
            for (int j = 0; j < n[i + 1]; j++) s += W[a + (size_t)n[i] * j] * m[j];
            mx[a] = i > 0 ? s * relu_mult(zx[i][a], zb[i][a]) : s;
        }
        memcpy(m, mx, sizeof(double) * n[i]);
    }
    for (int q = 0; q < c->D; q++) phi[q] = (x[q] - b[q]) * m[q];
}

/* max over the valid t of relu(z[t]): the value and its first t (-1, 0
 * when none is above 0) */
static double pool_max(const double *z, const uint8_t *mask, int T, int *at)
{
    double best = 0;
    *at = -1;
    for (int t = 0; t < T; t++)
        if (mask[t] && z[t] > best) { best = z[t]; *at = t; }
    return best;
}

/* DeepLIFT of a cnn at the embedding outputs ex (T x d) against eb:
 * phi[t] = sum_c (ex - eb)[t][c] m[t][c]. Per filter: the output
 * difference goes to the position of the larger max (Captum's max-pooling
 * rule), divided there by the pooled input's difference (the gradient
 * where that is 0), times the ReLU's multiplier; the convolutions pass the
 * multipliers on. */
static void ref_dl_cnn(Ref *r, const double *ex, const double *eb, const uint8_t *mask, int target, double *phi)
{
    const EeConfig *c = &r->c;
    int T = c->T, d = c->d, F = c->filters, KF = c->nwidths * F;
    double *me = calloc((size_t)T * d, sizeof(double)), zx[64], zb[64];
    for (int k = 0; k < c->nwidths; k++) {
        int w = c->widths[k];
        const double *W = r->p[r->cw[k]];
        for (int f = 0; f < F; f++) {
            for (int t = 0; t < T; t++) {
                double sx = c->bias ? r->p[r->cb[k]][f] : 0, sb = sx;
                for (int j = 0; j < w && t + j < T; j++)
                    for (int a = 0; a < d; a++) {
                        double wv = W[j + (size_t)w * (a + (size_t)d * f)];
                        sx += ex[(t + j) * d + a] * wv;
                        sb += eb[(t + j) * d + a] * wv;
                    }
                zx[t] = sx;
                zb[t] = sb;
            }
            int tx, tb;
            double yx = pool_max(zx, mask, T, &tx), yb = pool_max(zb, mask, T, &tb);
            double g = r->p[r->wc][(k * F + f) + (size_t)KF * target], top = fmax(yx, yb);
            for (int t = 0; t < T; t++) {
                if (t != tx && t != tb) continue;
                double u = (t == tx ? g * (top - yb) : 0) + (t == tb ? g * (yx - top) : 0);
                double da = relu_d(zx[t]) - relu_d(zb[t]);
                double ma = use_gradient || fabs(da) < 1e-10 ? (t == tx ? g : 0) : u / da;
                double mz = ma * relu_mult(zx[t], zb[t]);
                for (int j = 0; j < w && t + j < T; j++)
                    for (int a = 0; a < d; a++) me[(t + j) * d + a] += mz * W[j + (size_t)w * (a + (size_t)d * f)];
            }
        }
    }
    for (int t = 0; t < T; t++) {
        phi[t] = 0;
        for (int a = 0; a < d; a++) phi[t] += (ex[t * d + a] - eb[t * d + a]) * me[t * d + a];
    }
    free(me);
}

/* The reference map of one row (T or D values) at its point e~ = e_x + z
 * (z NULL: none) and its f(e~) - f(e_b), the target argmax f(e_x). */
static double ref_row(Ref *r, const int32_t *ids, const int32_t *bids, const float *xf, const float *z, double *phi)
{
    const EeConfig *c = &r->c;
    int token = c->kind != EE_KIND_MLP, W = token ? c->T * c->d : c->D;
    double *ex = calloc(W, sizeof(double)), *eb = calloc(W, sizeof(double)), *et = calloc(W, sizeof(double));
    uint8_t mask[64] = {0};
    if (token) {
        for (int t = 0; t < c->T; t++) mask[t] = ids[t] != EE_PAD;
        ref_embed(r, ids, ex);
        ref_embed(r, bids, eb);
    } else
        for (int q = 0; q < W; q++) { ex[q] = xf[q]; eb[q] = 0; }
    double o[8], ot[8], ob[8];
    ref_net(r, ex, mask, o);
    int tg = 0;
    for (int k = 1; k < c->classes; k++) if (o[k] > o[tg]) tg = k;
    for (int q = 0; q < W; q++) et[q] = ex[q] + (z ? z[q] : 0);
    ref_net(r, et, mask, ot);
    ref_net(r, eb, mask, ob);
    if (token) ref_dl_cnn(r, et, eb, mask, tg, phi);
    else ref_dl_mlp(r, et, eb, tg, phi);
    free(ex); free(eb); free(et);
    return ot[tg] - ob[tg];
}

/* the baseline ids of row i: pad, or the given ids at the real tokens */
static void row_bids(const int32_t *ids, const int32_t *given, int T, int32_t *b)
{
    for (int t = 0; t < T; t++) b[t] = EE_IS_SPECIAL(ids[t]) ? ids[t] : given ? given[t] : EE_PAD;
}

static void check_kind(EeKind kind, int ids_baseline)
{
    const int N = 6, T = 12, lens[6] = {9, 3, 10, 6, 1, 8};
    EeConfig cfg;
    refm_config(&cfg, kind, T, 10, 12, 8);
    EeModel *m = refm_model(&cfg, 5, 0.5, &rng);
    REQUIRE(m != NULL, "a model");
    if (!m) return;
    const EeConfig *c = ee_model_config(m);
    char kn[48];
    snprintf(kn, sizeof kn, "%s%s", ee_kind_name(kind), ids_baseline ? " (ids baseline)" : "");
    Ref ref;
    ref_load(&ref, m);
    int token = kind != EE_KIND_MLP, cols = token ? T : c->D, W = token ? T * c->d : c->D;
    int32_t *ids = token ? refm_ids(N, T, lens, &rng) : NULL, *bl = token ? refm_ids(N, T, lens, &rng) : NULL;
    float *x = NULL;
    if (!token) {
        x = malloc(sizeof(float) * N * W);
        for (int k = 0; k < N * W; k++) x[k] = (float)ee_rng_normal(&rng);
    }
    EeInput in = {.n = N, .ids = ids, .x = x};
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.batch = 4; /* two units of a row and its reference per pass */
    o.seed = 3;
    o.baseline = !token ? EE_BASELINE_ZERO : ids_baseline ? EE_BASELINE_IDS : EE_BASELINE_PAD;
    o.baseline_ids = ids_baseline ? bl : NULL;
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    g.method = EE_GRAD_DEEPLIFT;
    float *A = malloc(sizeof(float) * N * cols), *B = malloc(sizeof(float) * N * cols);
    float fx[6], fb[6], delta[6];
    int32_t tgt[6];
    EeAttrInfo info = {.target = tgt, .fx = fx, .fbaseline = fb, .delta = delta};
    CHECK_OK(ee_gradient_attribute(m, &in, &g, &o, A, &info));
    CHECK(info.forward == 3L * N && info.backward == N, "%s deeplift: %ld forward and %ld backward passes, %d and %d expected",
          kn, info.forward, info.backward, 3 * N, N);
    /* against the reference, the rescale rule and the mutated one */
    CheckCmp cmp = CMP_INIT, mut = CMP_INIT, comp = CMP_INIT, dref = CMP_INIT;
    double phi[64], phig[64], diff[6];
    int32_t bids[64];
    for (int i = 0; i < N; i++) {
        if (token) row_bids(ids + i * T, ids_baseline ? bl + i * T : NULL, T, bids);
        use_gradient = 0;
        diff[i] = ref_row(&ref, token ? ids + i * T : NULL, bids, token ? NULL : x + i * W, NULL, phi);
        use_gradient = 1;
        ref_row(&ref, token ? ids + i * T : NULL, bids, token ? NULL : x + i * W, NULL, phig);
        use_gradient = 0;
        double sum = 0, sumref = 0;
        for (int t = 0; t < cols; t++) {
            cmp_add(&cmp, A[i * cols + t], phi[t]);
            cmp_add(&mut, A[i * cols + t], phig[t]);
            sum += A[i * cols + t];
            sumref += phi[t];
        }
        /* completeness: of libcore's map (its delta and against the
         * reference's outputs) and of the reference's own */
        cmp_add(&comp, delta[i], 0);
        cmp_add(&comp, sum, diff[i]);
        cmp_add(&dref, sumref, diff[i]);
        cmp_add(&comp, fx[i] - fb[i], diff[i]);
    }
    double bound = cmp_bound(&cmp, 2e-5, 1e-2);
    CHECK_CMP(cmp, bound, "%s deeplift against the double reference: max err %.3g (scale %.3g)", kn, cmp.err, cmp.scale);
    CHECK(!cmp_ok(&mut, bound), "%s: the multiplier replaced by the gradient is seen (err %.3g, bound %.3g)", kn, mut.err,
          bound);
    CHECK_CMP(comp, cmp_bound(&comp, 2e-5, 1e-1), "%s completeness: sum of the map = f(x) - f(reference), and "
              "info.delta 0 (max err %.3g, scale %.3g)", kn, comp.err, comp.scale);
    CHECK_CMP(dref, cmp_bound(&dref, 1e-12, 1), "%s: the reference's own map is complete (err %.3g)", kn, dref.err);
    /* a 1 % change of one weight of the reference is seen: the cnn's
     * largest convolution weight; the mlp's output weight to row 1's
     * target from the last hidden unit that changes most between row 1
     * and its reference (a weight of a unit dead at both would change
     * nothing: DeepLIFT gives such a unit no multiplier) */
    int wi = token ? ee_model_find_param(m, "conv", 1, "W") : ee_model_find_param(m, "fc", c->nhidden, "W");
    REQUIRE(wi >= 0, "a weight to change");
    if (wi >= 0) {
        CheckCmp off = CMP_INIT;
        double worst = 0, out[8];
        size_t at = 0;
        if (token) {
            for (size_t q = 0; q < ref.count[wi]; q++)
                if (fabs(ref.p[wi][q]) > worst) { worst = fabs(ref.p[wi][q]); at = q; }
        } else {
            int H = c->hidden[c->nhidden - 1];
            double hx[64], xd[64], zero[64] = {0};
            for (int q = 0; q < W; q++) xd[q] = x[q];
            ref_mlp(&ref, xd, out); /* leaves the last hidden layer in s_x */
            memcpy(hx, ref.s_x, sizeof(double) * H);
            ref_mlp(&ref, zero, out);
            for (int a = 0; a < H; a++)
                if (fabs(hx[a] - ref.s_x[a]) > worst) { worst = fabs(hx[a] - ref.s_x[a]); at = a + (size_t)H * tgt[0]; }
        }
        double keep = ref.p[wi][at];
        ref.p[wi][at] *= 1.01;
        for (int i = 0; i < N; i++) {
            if (token) row_bids(ids + i * T, ids_baseline ? bl + i * T : NULL, T, bids);
            ref_row(&ref, token ? ids + i * T : NULL, bids, token ? NULL : x + i * W, NULL, phi);
            for (int t = 0; t < cols; t++) cmp_add(&off, A[i * cols + t], phi[t]);
        }
        ref.p[wi][at] = keep;
        CHECK(!cmp_ok(&off, bound), "%s: a 1 %% change of one reference weight is seen (err %.3g, bound %.3g)", kn,
              off.err, bound);
    }
    /* the same bits whatever the batch */
    EeAttrOptions o1 = o;
    o1.batch = 1;
    CHECK_OK(ee_gradient_attribute(m, &in, &g, &o1, B, NULL));
    int same1 = !memcmp(A, B, sizeof(float) * N * cols);
    o1.batch = 64;
    CHECK_OK(ee_gradient_attribute(m, &in, &g, &o1, B, NULL));
    CHECK(same1 && !memcmp(A, B, sizeof(float) * N * cols), "%s deeplift: the same map for batch 4, 1 and 64", kn);
    /* SmoothGrad over DeepLIFT given the noise it drew: the mean of the
     * maps at e~_k against the same reference */
    const int n = 3;
    float *noise = calloc((size_t)N * n * W, sizeof(float));
    g.noise = EE_NOISE_SMOOTHGRAD;
    g.samples = n;
    g.stdev = 0.2;
    g.drawn = noise;
    EeAttrInfo inf2 = {.fbaseline = fb, .delta = delta};
    CHECK_OK(ee_gradient_attribute(m, &in, &g, &o, A, &inf2));
    CheckCmp sg = CMP_INIT, sgc = CMP_INIT;
    for (int i = 0; i < N; i++) {
        double mean[64] = {0}, dmean = 0, sum = 0;
        if (token) row_bids(ids + i * T, ids_baseline ? bl + i * T : NULL, T, bids);
        for (int k = 0; k < n; k++) {
            dmean += ref_row(&ref, token ? ids + i * T : NULL, bids, token ? NULL : x + i * W,
                             noise + ((size_t)i * n + k) * W, phi) / n;
            for (int t = 0; t < cols; t++) mean[t] += phi[t] / n;
        }
        for (int t = 0; t < cols; t++) {
            cmp_add(&sg, A[i * cols + t], mean[t]);
            sum += A[i * cols + t];
        }
        cmp_add(&sgc, sum, dmean);
        cmp_add(&sgc, delta[i], 0);
    }
    CHECK_CMP(sg, cmp_bound(&sg, 2e-5, 1e-2), "%s smoothgrad deeplift against the reference given the noise: max err "
              "%.3g (scale %.3g)", kn, sg.err, sg.scale);
    CHECK_CMP(sgc, cmp_bound(&sgc, 2e-5, 1e-1), "%s smoothgrad deeplift: sum = mean f(e~) - f(reference), max err %.3g",
              kn, sgc.err);
    CHECK(inf2.forward == N + 2L * N * n && inf2.backward == (long)N * n, "%s smoothgrad deeplift: %ld forward, %ld "
          "backward passes", kn, inf2.forward, inf2.backward);
    free(noise); free(A); free(B); free(ids); free(bl); free(x);
    ref_free(&ref);
    ee_model_free(m);
}

/* An mlp whose hidden units are all active at every row and at the zero
 * reference (biases well above what the weights can subtract): the
 * network is linear between them, so every rescale multiplier is 1 and
 * DeepLIFT is gradient x input, bit for bit (the same products in the
 * same order). */
static void check_linear(void)
{
    const int N = 5;
    EeConfig cfg;
    refm_config(&cfg, EE_KIND_MLP, 0, 7, 9, 6);
    EeModel *m = refm_model(&cfg, 2, 0.3, &rng);
    REQUIRE(m != NULL, "a model");
    if (!m) return;
    const EeConfig *c = ee_model_config(m);
    for (int i = 0; i < c->nhidden; i++) {
        int bi = ee_model_find_param(m, "fc", i, "b");
        float b[16];
        for (int j = 0; j < c->hidden[i]; j++) b[j] = 20.0f;
        CHECK_OK(ee_param_set(m, bi, b, (size_t)c->hidden[i]));
    }
    float x[5 * 7], A[5 * 7], G[5 * 7];
    for (int k = 0; k < N * c->D; k++) x[k] = (float)ee_rng_normal(&rng);
    EeInput in = {.n = N, .x = x};
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.baseline = EE_BASELINE_ZERO;
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    g.method = EE_GRAD_DEEPLIFT;
    CHECK_OK(ee_gradient_attribute(m, &in, &g, &o, A, NULL));
    g.method = EE_GRAD_GRADXINPUT;
    CHECK_OK(ee_gradient_attribute(m, &in, &g, &o, G, NULL));
    int same = 1, nonzero = 0;
    for (int k = 0; k < N * c->D; k++) {
        same &= A[k] == G[k];
        nonzero += A[k] != 0;
    }
    CHECK(same && nonzero == N * c->D, "mlp active everywhere: deeplift = gradient x input bit for bit (%d of %d nonzero)",
          nonzero, N * c->D);
    ee_model_free(m);
}

/* Where DeepLIFT is not defined: the transformer, and a backend without
 * the rescale ops (the GPU's), both ee:notSupported with nothing
 * computed. */
static void check_refusals(void)
{
    EeConfig cfg;
    refm_config(&cfg, EE_KIND_TRANSFORMER, 8, 0, 0, 0);
    EeModel *m = refm_model(&cfg, 1, 0.5, &rng);
    const int lens[2] = {4, 6};
    int32_t *ids = refm_ids(2, 8, lens, &rng);
    EeInput in = {.n = 2, .ids = ids};
    EeAttrOptions o;
    gc_cpu_options(&o);
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    g.method = EE_GRAD_DEEPLIFT;
    float A[16] = {0};
    EeStatus st = ee_gradient_attribute(m, &in, &g, &o, A, NULL);
    CHECK(st == EE_ERR_UNSUPPORTED && strstr(ee_last_error(), "transformer"), "transformer deeplift: %s (%s)",
          ee_status_id(st), ee_last_error());
    ee_model_free(m);
    free(ids);
    /* a backend table without the rescale ops (a backend that lacks them) */
    refm_config(&cfg, EE_KIND_MLP, 0, 5, 4, 3);
    m = refm_model(&cfg, 1, 0.5, &rng);
    EeBackend be = *ee_backend_cpu();
    be.relu_rescale_bwd = NULL;
    EeRun *r = NULL;
    CHECK_OK(ee_run_new(m, &be, 4, 1, 0, &r));
    if (r) {
        float dout[2 * 3] = {1, 0, 0, 0, 1, 0};
        st = ee_run_deeplift_backward(r, 2, dout);
        CHECK(st == EE_ERR_UNSUPPORTED && strstr(ee_last_error(), "needs the rescale rule"), "deeplift on a backend without the "
              "rescale rule: %s (%s)", ee_status_id(st), ee_last_error());
        ee_run_free(r);
    }
    ee_model_free(m);
}

int main(void)
{
    ee_threads_enter();
    ee_rng_seed(&rng, 41);
    check_kind(EE_KIND_MLP, 0);
    check_kind(EE_KIND_CNN, 0);
    check_kind(EE_KIND_CNN, 1);
    check_linear();
    check_refusals();
    ee_threads_leave();
    return check_finish("test_deeplift");
}
