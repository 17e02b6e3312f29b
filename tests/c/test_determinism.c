/* test_determinism.c: the CPU results are the same bits whatever the batch,
 * the split of the rows over calls and the thread count (doc/RANDOM.md).
 *
 * - gemm: a row of C computed in calls of every size M and at every row
 *   offset (and with 1..3 threads) equals the row computed alone, for the
 *   transpose combinations whose rows are independent (op(A) = A); the
 *   parameter-gradient form (op(A) = A^T) is the same for 1..3 threads.
 * - prediction (every kind, classifier and both explainer heads): batch
 *   1, 3, 7, all, with 1, 2 and 3 threads, rows given alone.
 * - IG and SV (transformer and cnn, incremental and full-pass paths):
 *   batch 1, 5, default, threads 1..3, and a call on a subset of the rows
 *   (SV keyed by its row offset) against the whole call.
 * - training (transformer with batch 1, 2 and 5, explainer, cnn, mlp):
 *   the trained weights with 1, 2 and 3 threads.
 * Every comparison is memcmp: one differing bit fails. EE_TEST_QUICK
 * (the valgrind run) takes fewer sizes and epochs. */
#include "check.h"
#include "gradcheck.h"
#include "ee.h"
#include "refmodel.h"
#include "backend/backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static EeRng rng;
static int quick; /* EE_TEST_QUICK (valgrind): smaller problems, fewer runs */

static float *rand_floats(size_t n)
{
    float *x = malloc(sizeof(float) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) x[i] = (float)(2 * ee_rng_uniform(&rng) - 1);
    return x;
}

/* ---- gemm ------------------------------------------------------------------------ */
static void gemm_rows(int tb, int K, int N)
{
    const EeBackend *be = ee_backend_cpu();
    const int R = quick ? 24 : 150;
    float *A = rand_floats((size_t)R * K), *B = rand_floats((size_t)K * N);
    float *one = malloc(sizeof(float) * (size_t)R * N), *C = malloc(sizeof(float) * (size_t)R * N);
    int ldb = tb ? K : N;
    for (int i = 0; i < R; i++) /* each row alone */
        be->gemm(0, tb, 1, N, K, 1.0f, A + (size_t)i * K, K, B, ldb, 0.0f, one + (size_t)i * N, N);
    int bad = 0, calls = 0;
    for (int th = 1; th <= (quick ? 2 : 3); th++) {
        gc_set_threads(th);
        for (int M = 2; M <= R; M += M < 20 ? 1 + quick * 4 : 37)
            for (int o = 0; o + M <= R; o += 1 + M / 3) {
                be->gemm(0, tb, M, N, K, 1.0f, A + (size_t)o * K, K, B, ldb, 0.0f, C, N);
                bad += memcmp(C, one + (size_t)o * N, sizeof(float) * (size_t)M * N) != 0;
                calls++;
            }
    }
    CHECK(bad == 0, "gemm 0%d K=%d N=%d: %d of %d calls gave a row other bits than the row alone", tb, K, N,
          bad, calls);
    gc_set_threads(2);
    free(A); free(B); free(one); free(C);
}

static void gemm_tn_threads(int M, int N, int K)
{
    const EeBackend *be = ee_backend_cpu();
    float *A = rand_floats((size_t)K * M), *B = rand_floats((size_t)K * N);
    float *C1 = calloc((size_t)M * N, sizeof(float)), *C = malloc(sizeof(float) * (size_t)M * N);
    gc_set_threads(1);
    be->gemm(1, 0, M, N, K, 1.0f, A, M, B, N, 0.0f, C1, N);
    int same = 1;
    for (int th = 2; th <= 3; th++) {
        gc_set_threads(th);
        be->gemm(1, 0, M, N, K, 1.0f, A, M, B, N, 0.0f, C, N);
        same &= !memcmp(C, C1, sizeof(float) * (size_t)M * N);
    }
    CHECK(same, "gemm 10 %dx%dx%d differs between thread counts", M, N, K);
    gc_set_threads(2);
    free(A); free(B); free(C1); free(C);
}

/* ---- models ---------------------------------------------------------------------- */
/* wide: sizes at which products and reductions are large enough to be
 * shared out over threads (where thread-dependent sums would show) */
static EeModel *make_model(EeKind kind, EeHead head, int T, int wide)
{
    EeConfig c;
    ee_config_defaults(&c, kind);
    c.classes = 3;
    int d = wide ? 48 : 16;
    if (kind == EE_KIND_TRANSFORMER) { c.vocab = 40; c.T = T; c.d = d; c.heads = 2; c.layers = 2; c.ffn = 2 * d; }
    if (kind == EE_KIND_CNN) { c.vocab = 40; c.T = T; c.d = d; c.filters = 21; c.nwidths = 2; c.widths[0] = 2; c.widths[1] = 5; }
    if (kind == EE_KIND_MLP) { c.D = 19; c.nhidden = 2; c.hidden[0] = wide ? 600 : 37; c.hidden[1] = 9; }
    /* weights of the size a trained model has, biases nonzero; gains
     * 1 + w (1.0f * w is w: the bits of w + 1) */
    EeModel *m = NULL, *clf = refm_model_gains(&c, 5, 0.3, 1.0f, &rng);
    if (!clf) return NULL;
    if (head == EE_HEAD_CLASSIFIER) return clf;
    if (ee_model_make_explainer(clf, head, 9, &m)) m = NULL;
    ee_model_free(clf);
    return m;
}

/* N rows of [CLS] tokens [SEP] PAD..., lengths spread over 0..T-2. */
static int32_t *make_ids(int N, int T)
{
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)N * T);
    for (int i = 0; i < N; i++) {
        int len = (int)ee_rng_below(&rng, (uint64_t)T - 1);
        for (int t = 0; t < T; t++)
            ids[(size_t)i * T + t] = t == 0 ? EE_CLS : t == len + 1 ? EE_SEP
                                   : t <= len ? 4 + (int)ee_rng_below(&rng, 36) : EE_PAD;
    }
    return ids;
}

static void predict_case(EeKind kind, EeHead head)
{
    const int N = 23, T = 19;
    EeModel *m = make_model(kind, head, T, 0);
    const EeConfig *c = ee_model_config(m);
    int outs = ee_config_outputs(c), W = kind == EE_KIND_MLP ? c->D : T;
    int32_t *ids = kind == EE_KIND_MLP ? NULL : make_ids(N, T);
    float *x = kind == EE_KIND_MLP ? rand_floats((size_t)N * W) : NULL;
    EeInput in = {.n = N, .ids = ids, .x = x};
    float *ref = malloc(sizeof(float) * N * outs), *out = malloc(sizeof(float) * N * outs);
    gc_set_threads(1);
    CHECK_OK(ee_model_predict(m, &in, ref, N, EE_DEVICE_CPU));
    int batches[4] = {1, 3, 7, 0}, bad = 0;
    for (int th = 1; th <= (quick ? 2 : 3); th++) {
        gc_set_threads(th);
        for (int b = 0; b < 4; b++) {
            CHECK_OK(ee_model_predict(m, &in, out, batches[b], EE_DEVICE_CPU));
            bad += memcmp(out, ref, sizeof(float) * N * outs) != 0;
        }
        /* rows 5..9 alone */
        EeInput part = {.n = 5, .ids = ids ? ids + 5 * T : NULL, .x = x ? x + 5 * W : NULL};
        CHECK_OK(ee_model_predict(m, &part, out, 0, EE_DEVICE_CPU));
        bad += memcmp(out, ref + 5 * outs, sizeof(float) * 5 * outs) != 0;
    }
    CHECK(bad == 0, "predict %s/%s: %d runs differ from batch %d on 1 thread", ee_kind_name(kind),
          ee_head_name(head), bad, N);
    gc_set_threads(2);
    free(ids); free(x); free(ref); free(out);
    ee_model_free(m);
}

/* an explainer's occlusion features (4 per position), in ee_ig's shape */
static EeStatus occlusion_features(EeModel *m, const EeInput *in, const EeAttrOptions *o, float *F, EeAttrInfo *info)
{
    return ee_explainer_features(m, EE_INPUTS_OCCLUSION, in, o, F, info);
}

/* what: 0 IG, 1 SV, 2 the occlusion features */
static void attr_case(EeKind kind, int what, int full)
{
    const int N = 9, T = 14, k = what == 2 ? 4 : 1;
    int sv = what == 1;
    EeModel *m = make_model(kind, EE_HEAD_CLASSIFIER, T, 0);
    int32_t *ids = make_ids(N, T);
    EeInput in = {.n = N, .ids = ids};
    float *ref = malloc(sizeof(float) * N * T * k), *A = malloc(sizeof(float) * N * T * k);
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.steps = sv ? 3 : 4;
    o.full_passes = full;
    gc_set_threads(1);
    EeStatus (*fn)(EeModel *, const EeInput *, const EeAttrOptions *, float *, EeAttrInfo *) =
        what == 2 ? occlusion_features : sv ? ee_sv_attribute : ee_ig_attribute;
    CHECK_OK(fn(m, &in, &o, ref, NULL));
    int batches[3] = {1, 5, 0}, bad = 0;
    for (int th = 1; th <= (quick ? 2 : 3); th++) {
        gc_set_threads(th);
        for (int b = 0; b < 3; b++) {
            o.batch = batches[b];
            CHECK_OK(fn(m, &in, &o, A, NULL));
            bad += memcmp(A, ref, sizeof(float) * N * T * k) != 0;
        }
        o.batch = 0;
        EeInput part = {.n = 4, .ids = ids + 3 * T};
        o.row_offset = 3; /* SV streams follow the row; IG ignores it */
        CHECK_OK(fn(m, &part, &o, A, NULL));
        bad += memcmp(A, ref + 3 * T * k, sizeof(float) * 4 * T * k) != 0;
        o.row_offset = 0;
    }
    CHECK(bad == 0, "%s %s%s: %d runs differ from the reference run",
          what == 2 ? "occlusion features" : sv ? "SV" : "IG", ee_kind_name(kind), full ? " (full passes)" : "", bad);
    gc_set_threads(2);
    free(ids); free(ref); free(A);
    ee_model_free(m);
}

/* ---- training --------------------------------------------------------------------- */
static void train_case(EeKind kind, EeHead head, int batch)
{
    const int N = 17, T = 24;
    EeModel *base = make_model(kind, head, T, 1);
    const EeConfig *c = ee_model_config(base);
    int W = kind == EE_KIND_MLP ? c->D : T;
    int32_t *ids = kind == EE_KIND_MLP ? NULL : make_ids(N, T);
    float *x = kind == EE_KIND_MLP ? rand_floats((size_t)N * W) : NULL;
    int32_t labels[17];
    for (int i = 0; i < N; i++) labels[i] = (int32_t)ee_rng_below(&rng, 3);
    float *maps = rand_floats((size_t)N * T);
    for (int i = 0; i < N && ids; i++) /* long rows: many positions per batch */
        for (int t = 1; t < T - 1; t++) ids[(size_t)i * T + t] = 4 + (int)ee_rng_below(&rng, 36);
    EeDataset tr = {{N, ids, NULL, x, NULL}, head == EE_HEAD_CLASSIFIER ? labels : NULL,
                    head == EE_HEAD_CLASSIFIER ? NULL : maps, NULL};
    EeDataset va = {{5, ids, NULL, x, NULL}, tr.labels, tr.maps, NULL};
    EeTrainOptions o;
    ee_train_options_defaults(&o, kind, head);
    o.epochs = quick ? 1 : 2;
    o.batch = batch;
    o.verbose = 0;
    o.device = EE_DEVICE_CPU;
    o.dropout = head == EE_HEAD_CLASSIFIER ? 0.1f : 0.0f;
    size_t n = ee_model_size(base);
    float *w[3] = {NULL, NULL, NULL};
    int same = 1;
    for (int th = 1; th <= (quick ? 2 : 3); th++) {
        gc_set_threads(th);
        EeModel *m;
        CHECK_OK(ee_model_new(c, &m));
        for (int i = 0; i < ee_model_nparams(base); i++) { /* copy the start point */
            EeParamInfo pi;
            ee_model_param_info(base, i, &pi);
            float *buf = malloc(sizeof(float) * pi.count);
            ee_param_get(base, i, buf, pi.count);
            ee_param_set(m, i, buf, pi.count);
            free(buf);
        }
        EeHistory h;
        CHECK_OK(ee_train(m, &tr, &va, &o, &h));
        ee_history_free(&h);
        w[th - 1] = malloc(sizeof(float) * n);
        size_t off = 0;
        for (int i = 0; i < ee_model_nparams(m); i++) {
            EeParamInfo pi;
            ee_model_param_info(m, i, &pi);
            ee_param_get(m, i, w[th - 1] + off, pi.count);
            off += pi.count;
        }
        if (th > 1) same &= !memcmp(w[th - 1], w[0], sizeof(float) * n);
        ee_model_free(m);
    }
    CHECK(same, "training %s/%s batch %d: weights differ between 1, 2 and 3 threads", ee_kind_name(kind),
          ee_head_name(head), batch);
    gc_set_threads(2);
    for (int i = 0; i < 3; i++) free(w[i]);
    free(ids); free(x); free(maps);
    ee_model_free(base);
}

int main(void)
{
    ee_threads_enter();
    ee_rng_seed(&rng, 77);
    quick = getenv("EE_TEST_QUICK") && atoi(getenv("EE_TEST_QUICK"));
    gemm_rows(0, 64, 64);
    gemm_rows(0, 7, 100);
    gemm_rows(1, 33, 21);
    gemm_rows(0, 300, 40);
    gemm_tn_threads(64, 70, quick ? 100 : 500);
    gemm_tn_threads(130, 3, 200);
    predict_case(EE_KIND_TRANSFORMER, EE_HEAD_CLASSIFIER);
    predict_case(EE_KIND_TRANSFORMER, EE_HEAD_FLAT);
    predict_case(EE_KIND_TRANSFORMER, EE_HEAD_TOKEN);
    predict_case(EE_KIND_CNN, EE_HEAD_CLASSIFIER);
    predict_case(EE_KIND_MLP, EE_HEAD_CLASSIFIER);
    for (int what = 0; what <= 2; what++)
        for (int full = 0; full <= !quick; full++) {
            attr_case(EE_KIND_TRANSFORMER, what, full);
            attr_case(EE_KIND_CNN, what, full);
        }
    if (!quick) train_case(EE_KIND_TRANSFORMER, EE_HEAD_CLASSIFIER, 1);
    train_case(EE_KIND_TRANSFORMER, EE_HEAD_CLASSIFIER, 2);
    train_case(EE_KIND_TRANSFORMER, EE_HEAD_CLASSIFIER, 5);
    if (!quick) train_case(EE_KIND_TRANSFORMER, EE_HEAD_FLAT, 4);
    train_case(EE_KIND_CNN, EE_HEAD_CLASSIFIER, 3);
    train_case(EE_KIND_MLP, EE_HEAD_CLASSIFIER, 6);
    ee_threads_leave();
    return check_finish("test_determinism");
}
