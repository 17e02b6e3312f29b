/* test_io.c: the validating loader and the .mat reader against damaged and
 * inconsistent models (issue 10: items 1, 2 and 4).
 *
 * - deep transformers (32 and 64 layers, past the old 512-tensor table)
 *   build, predict, and survive a .mat round trip; 65 layers are refused.
 * - the size guard counts every kind's weights (cnn and mlp too).
 * - the loader refuses what it used to accept silently: a logical as a
 *   size, a kind with a NUL, encoder layers when layers = 0, biases of a
 *   bias-free cnn or mlp, another head's weights; the valid struct loads
 *   and predicts the same logits.
 * - a cnn explainer with features survives a .mat round trip bit for bit;
 *   one that carries the classifier's Wc is refused.
 * - every truncation (8-byte steps; 40 with EE_TEST_QUICK) of each reference .mat file is
 *   refused (EE_ERR_IO); 300 (60) random byte damages of each are opened and
 *   loaded: each ends in EE_OK or an error, never a crash or a read of
 *   memory matio did not fill (the sanitizer and valgrind runs check
 *   reads), and whatever loads predicts. */
#include "check.h"
#include "ee.h"
#include "ee_mat.h"
#include "ee_model_io.h"
#include "memsource.h"

#include <matio.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static EeRng rng;
static char tmpdir[256];
static int quick; /* EE_TEST_QUICK: fewer cuts and damages (valgrind) */

static const char *vectors(void)
{
    const char *d = getenv("EE_VECTORS");
    return d ? d : "tests/vectors";
}

static EeModel *transformer(int layers, EeHead head)
{
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_TRANSFORMER);
    c.vocab = 12; c.T = 6; c.d = 4; c.heads = 1; c.layers = layers; c.ffn = 4; c.classes = 2; c.head = head;
    EeModel *m = NULL;
    if (ee_model_new(&c, &m)) return NULL;
    ee_model_init(m, 3);
    return m;
}

static void predict(EeModel *m, float *out)
{
    int32_t ids[2 * 6] = {2, 5, 6, 7, 3, 0, 2, 9, 3, 0, 0, 0};
    EeInput in = {.n = 2, .ids = ids};
    CHECK_OK(ee_model_predict(m, &in, out, 0, EE_DEVICE_CPU));
}

static void test_deep(void)
{
    int layers[2] = {32, 64};
    for (int k = 0; k < 2; k++) {
        EeModel *m = transformer(layers[k], EE_HEAD_CLASSIFIER);
        CHECK(m != NULL, "a transformer with %d layers: %s", layers[k], ee_last_error());
        if (!m) continue;
        CHECK(ee_model_nparams(m) == 4 + 16 * layers[k] + 4, "%d layers: %d tensors", layers[k], ee_model_nparams(m));
        float a[4], b[4] = {0};
        predict(m, a);
        char path[512];
        snprintf(path, sizeof path, "%s/deep.mat", tmpdir);
        CHECK_OK(ee_mat_save_model(path, "model", m));
        EeMatIn *f;
        EeFieldSource src;
        EeModel *r = NULL;
        if (ee_matin_open(path, &f) == EE_OK) {
            CHECK_OK(ee_mat_struct_source(f, "model", &src));
            CHECK_OK(ee_model_load(&src, "model", &r));
            if (r) predict(r, b);
            ee_model_free(r);
            ee_matin_close(f);
        }
        CHECK(!memcmp(a, b, sizeof a), "%d layers: logits differ after a .mat round trip", layers[k]);
        unlink(path);
        ee_model_free(m);
    }
    EeModel *m = transformer(65, EE_HEAD_CLASSIFIER);
    CHECK(m == NULL, "65 layers accepted");
    ee_model_free(m);
}

static void test_size_guard(void)
{
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_CNN);
    c.vocab = 100; c.T = 16; c.classes = 2; c.d = 1 << 14; c.filters = 1 << 16;
    c.nwidths = 3; c.widths[0] = c.widths[1] = c.widths[2] = 16;
    CHECK(ee_config_check(&c) == EE_ERR_MODEL, "cnn with 5e10 convolution weights accepted");
    ee_config_defaults(&c, EE_KIND_MLP);
    c.classes = 2; c.D = 1 << 24; c.nhidden = 1; c.hidden[0] = 1 << 16;
    CHECK(ee_config_check(&c) == EE_ERR_MODEL, "mlp with 1e12 weights accepted");
    c.D = 100; c.hidden[0] = 10;
    CHECK_OK(ee_config_check(&c));
}

/* Loads src, expecting `want`; on EE_OK compares the logits with ref. */
static void expect_load(MemSource *s, EeStatus want, const float *ref, const char *what)
{
    EeFieldSource src = ms_source(s);
    EeModel *m = NULL;
    EeStatus st = ee_model_load(&src, "model", &m);
    CHECK(st == want, "%s: got %s (%s), expected %s", what, ee_status_id(st), st ? ee_last_error() : "",
          ee_status_id(want));
    if (m && ref) {
        float out[4];
        predict(m, out);
        CHECK(!memcmp(out, ref, sizeof out), "%s: other logits", what);
    }
    ee_model_free(m);
}

static void test_inconsistent(void)
{
    MemSource *s = calloc(1, sizeof *s);
    EeModel *m = transformer(2, EE_HEAD_CLASSIFIER);
    float ref[4];
    predict(m, ref);
    CHECK_OK(ms_from_model(s, m));
    expect_load(s, EE_OK, ref, "the saved transformer");

    size_t one[2] = {1, 1};
    uint8_t yes = 1;
    double two = 2, zero = 0;
    ms_put(s, NULL, 0, "heads", EE_VAL_LOGICAL, 2, one, &yes, 1);
    expect_load(s, EE_ERR_MODEL, NULL, "heads = true");
    double h = 1;
    ms_put(s, NULL, 0, "heads", EE_VAL_DOUBLE, 2, one, &h, sizeof h);
    expect_load(s, EE_OK, ref, "heads = 1 again");

    const char kind[] = "transformer\0x";
    size_t kd[2] = {1, sizeof kind - 1};
    ms_put(s, NULL, 0, "kind", EE_VAL_CHAR, 2, kd, kind, 1);
    expect_load(s, EE_ERR_MODEL, NULL, "kind 'transformer' + NUL + 'x'");
    kd[1] = 12; /* "transformer\0" */
    ms_put(s, NULL, 0, "kind", EE_VAL_CHAR, 2, kd, kind, 1);
    expect_load(s, EE_ERR_MODEL, NULL, "kind with a trailing NUL");
    kd[1] = 11;
    ms_put(s, NULL, 0, "kind", EE_VAL_CHAR, 2, kd, kind, 1);

    ms_put(s, NULL, 0, "layers", EE_VAL_DOUBLE, 2, one, &zero, sizeof zero);
    expect_load(s, EE_ERR_MODEL, NULL, "layers = 0 with a 2-layer encoder");
    ms_put(s, NULL, 0, "layers", EE_VAL_DOUBLE, 2, one, &two, sizeof two);
    expect_load(s, EE_OK, ref, "layers = 2 again");

    float w[72] = {0};
    size_t hd[2] = {12, 6};
    ms_put(s, NULL, 0, "head_W", EE_VAL_SINGLE, 2, hd, w, sizeof(float));
    expect_load(s, EE_ERR_MODEL, NULL, "a classifier with head_W");
    ms_free(s);
    ee_model_free(m);

    /* an explainer must not carry the classifier's head */
    m = transformer(1, EE_HEAD_TOKEN);
    CHECK_OK(ms_from_model(s, m));
    expect_load(s, EE_OK, NULL, "the saved explainer");
    size_t pd[2] = {4, 4};
    float wp[16] = {0};
    ms_put(s, NULL, 0, "Wp", EE_VAL_SINGLE, 2, pd, wp, sizeof(float));
    expect_load(s, EE_ERR_MODEL, NULL, "an explainer with Wp");
    ms_free(s);
    ee_model_free(m);

    /* bias-free cnn and mlp with biases present */
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_CNN);
    c.vocab = 12; c.T = 6; c.d = 3; c.filters = 2; c.nwidths = 2; c.widths[0] = 1; c.widths[1] = 2; c.classes = 2;
    c.bias = 0;
    CHECK_OK(ee_model_new(&c, &m));
    ee_model_init(m, 4);
    predict(m, ref);
    CHECK_OK(ms_from_model(s, m));
    expect_load(s, EE_OK, ref, "the saved bias-free cnn");
    float b2[2] = {0.29f, -1};
    size_t bd[2] = {1, 2};
    ms_put(s, "conv", 1, "b", EE_VAL_SINGLE, 2, bd, b2, sizeof(float));
    expect_load(s, EE_ERR_MODEL, NULL, "a bias-free cnn with conv(2).b");
    ms_remove(s, ms_find(s, "conv", 1, "b"));
    ms_put(s, NULL, 0, "bc", EE_VAL_SINGLE, 2, bd, b2, sizeof(float));
    expect_load(s, EE_ERR_MODEL, NULL, "a bias-free cnn with bc");
    ms_free(s);
    ee_model_free(m);

    ee_config_defaults(&c, EE_KIND_MLP);
    c.D = 3; c.nhidden = 1; c.hidden[0] = 2; c.classes = 2; c.bias = 0;
    CHECK_OK(ee_model_new(&c, &m));
    CHECK_OK(ms_from_model(s, m));
    expect_load(s, EE_OK, NULL, "the saved bias-free mlp");
    ms_put(s, "fc", 0, "b", EE_VAL_SINGLE, 2, bd, b2, sizeof(float));
    expect_load(s, EE_ERR_MODEL, NULL, "a bias-free mlp with fc(1).b");
    ms_free(s);
    ee_model_free(m);
    free(s);
}

/* A cnn explainer (token head, gradient-ends features with nonzero
 * feature weights and scale, margin) survives a .mat round trip: the same outputs
 * bit for bit, with its features; one that carries the classifier's Wc is
 * refused. */
static void test_cnn_explainer(void)
{
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_CNN);
    c.vocab = 12; c.T = 6; c.d = 3; c.filters = 2; c.nwidths = 2; c.widths[0] = 1; c.widths[1] = 2; c.classes = 2;
    EeModel *clf = NULL, *m = NULL, *r = NULL;
    CHECK_OK(ee_model_new(&c, &clf));
    if (!clf) return;
    ee_model_init(clf, 4);
    EeExplainerSpec spec = {EE_HEAD_TOKEN, EE_INPUTS_GRADIENT_ENDS, 1, 1, 1, 0, 1}; /* margin: a binary classifier's */
    CHECK_OK(ee_explainer_new(clf, &spec, 5, &m));
    if (!m) { ee_model_free(clf); return; }
    const char *fields[3] = {"feat_scale", "feat_W", "feat_v"};
    for (int k = 0; k < 3; k++) { /* the feature tensors start at 1 and 0: give them values */
        int i = ee_model_find_param(m, NULL, 0, fields[k]);
        CHECK(i >= 0, "cnn explainer without %s", fields[k]);
        if (i < 0) continue;
        EeParamInfo info;
        ee_model_param_info(m, i, &info);
        float v[8];
        for (size_t q = 0; q < info.count && q < 8; q++) v[q] = (float)(k == 0 ? 0.5 + 0.25 * q : ee_rng_normal(&rng));
        CHECK_OK(ee_param_set(m, i, v, info.count));
    }
    int32_t ids[2 * 6] = {2, 5, 6, 7, 3, 0, 2, 9, 3, 0, 0, 0};
    float feats[2 * 6 * 2], a[12], b[12];
    for (int q = 0; q < 24; q++) feats[q] = (float)ee_rng_normal(&rng);
    EeInput in = {.n = 2, .ids = ids, .feats = feats};
    CHECK_OK(ee_model_predict(m, &in, a, 0, EE_DEVICE_CPU));
    memset(b, 0, sizeof b);
    char path[512];
    snprintf(path, sizeof path, "%s/cnn_explainer.mat", tmpdir);
    CHECK_OK(ee_mat_save_model(path, "model", m));
    EeMatIn *f;
    EeFieldSource src;
    if (ee_matin_open(path, &f) == EE_OK) {
        CHECK_OK(ee_mat_struct_source(f, "model", &src));
        CHECK_OK(ee_model_load(&src, "model", &r));
        if (r) CHECK_OK(ee_model_predict(r, &in, b, 0, EE_DEVICE_CPU));
        CHECK(r && ee_model_config(r)->kind == EE_KIND_CNN && ee_model_config(r)->head == EE_HEAD_TOKEN &&
              ee_model_config(r)->inputs == EE_INPUTS_GRADIENT_ENDS && ee_model_config(r)->efficiency == 1 &&
              ee_model_config(r)->margin == 1,
              "the loaded cnn explainer's design (margin %d)", r ? ee_model_config(r)->margin : -1);
        ee_model_free(r);
        ee_matin_close(f);
    }
    CHECK(!memcmp(a, b, sizeof a), "cnn explainer: outputs differ after a .mat round trip");
    unlink(path);
    MemSource *s = calloc(1, sizeof *s);
    CHECK_OK(ms_from_model(s, m));
    expect_load(s, EE_OK, NULL, "the saved cnn explainer"); /* its outputs: the round trip above */
    float wc[4 * 2] = {0};
    size_t wd[2] = {4, 2};
    ms_put(s, NULL, 0, "Wc", EE_VAL_SINGLE, 2, wd, wc, sizeof(float));
    expect_load(s, EE_ERR_MODEL, NULL, "a cnn explainer with Wc");
    ms_free(s);
    free(s);
    ee_model_free(m);
    ee_model_free(clf);
}

/* Opens and loads a damaged copy; returns the status (never crashes).
 * Whatever loads must predict: loaded_runs and loaded_fails count those
 * (one CHECK per file below, not one per copy: thousands of copies are
 * one result, "every damaged copy that loads runs"). */
static int loaded_runs, loaded_fails;
static EeStatus load_bytes(const unsigned char *b, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/damaged.mat", tmpdir);
    FILE *fp = fopen(path, "wb");
    if (!fp) return EE_ERR_IO;
    fwrite(b, 1, n, fp);
    fclose(fp);
    EeMatIn *f;
    EeStatus st = ee_matin_open(path, &f);
    if (st) return st;
    EeFieldSource src;
    EeModel *m = NULL;
    if (!(st = ee_mat_struct_source(f, "model", &src))) st = ee_model_load(&src, "model", &m);
    if (m) { /* whatever loads must run */
        const EeConfig *c = ee_model_config(m);
        int W = ee_is_token_model(c) ? c->T : c->D;
        int32_t *ids = calloc((size_t)W, sizeof(int32_t));
        float *x = calloc((size_t)W, sizeof(float)), *out = calloc((size_t)ee_config_outputs(c), sizeof(float));
        ids[0] = EE_CLS;
        EeInput in = {.n = 1, .ids = ee_is_token_model(c) ? ids : NULL, .x = ee_is_token_model(c) ? NULL : x};
        EeStatus pst = ee_model_predict(m, &in, out, 0, EE_DEVICE_CPU);
        loaded_runs++;
        if (pst != EE_OK) {
            if (!loaded_fails++) fprintf(stderr, "a damaged file loaded but does not predict: %s\n", ee_last_error());
        }
        free(ids); free(x); free(out);
        ee_model_free(m);
    }
    ee_matin_close(f);
    return st;
}

static void test_damaged_files(void)
{
    static const char *names[] = {"transformer_tiny", "cnn_tiny", "cnn_tiny_nobias", "mlp_tiny", "mlp_tiny_nobias"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.mat", vectors(), names[k]);
        FILE *fp = fopen(path, "rb");
        REQUIRE(fp != NULL, "cannot read %s", path);
        if (!fp) continue;
        fseek(fp, 0, SEEK_END);
        size_t n = (size_t)ftell(fp);
        fseek(fp, 0, SEEK_SET);
        unsigned char *b = malloc(n), *d = malloc(n);
        size_t got = fread(b, 1, n, fp);
        fclose(fp);
        REQUIRE(got == n, "short read of %s", path);
        loaded_runs = loaded_fails = 0;
        CHECK(load_bytes(b, n) == EE_OK, "%s undamaged: %s", names[k], ee_last_error());
        /* a file cut inside a variable is refused as a whole (matio would
         * read the missing part as uninitialised memory); a cut between
         * two variables is a valid, shorter file. The model is the first
         * variable: its element ends at byte 136 + its size. */
        size_t model_end = 136 + (size_t)(b[132] | b[133] << 8 | b[134] << 16 | (unsigned)b[135] << 24);
        int failed_cuts = 0, cuts = 0, loaded = 0, wrong = 0;
        for (size_t cut = 0; cut < n; cut += quick ? 40 : 8) {
            EeStatus st = load_bytes(b, cut);
            cuts++;
            failed_cuts += st == EE_ERR_IO;
            loaded += st == EE_OK;
            wrong += cut < model_end ? st != EE_ERR_IO : st != EE_OK && st != EE_ERR_IO;
        }
        CHECK(wrong == 0 && loaded <= 40, "%s: %d of %d truncations not refused (%d loaded)", names[k], wrong, cuts,
              loaded);
        int ok = 0, odd = 0;
        EeStatus odd_st = EE_OK;
        int damages = quick ? 60 : 300;
        for (int r = 0; r < damages; r++) {
            memcpy(d, b, n);
            int flips = 1 + (int)ee_rng_below(&rng, 4);
            for (int q = 0; q < flips; q++) {
                size_t at = 128 + ee_rng_below(&rng, n - 128);
                d[at] = (unsigned char)(r % 3 == 0 ? 0xff : r % 3 == 1 ? 0 : ee_rng_below(&rng, 256));
            }
            EeStatus st = load_bytes(d, n);
            ok += st == EE_OK;
            if (!(st == EE_OK || st == EE_ERR_IO || st == EE_ERR_MODEL || st == EE_ERR_NOMEM) && !odd++) odd_st = st;
        }
        /* a damaged copy loads (the damage hit the numbers), or is refused as
         * unreadable, as a bad model, or as too large: never another status */
        CHECK(odd == 0, "%s: %d of %d damaged copies gave another status (first: %s)", names[k], odd, damages,
              ee_status_id(odd_st));
        CHECK(loaded_runs > 0 && loaded_fails == 0, "%s: %d of %d damaged copies that loaded do not predict",
              names[k], loaded_fails, loaded_runs);
        if (check_failed == 0 && getenv("EE_TEST_VERBOSE"))
            printf("  %s: %d cuts refused, %d of %d damaged copies still load\n", names[k], failed_cuts, ok, damages);
        free(b);
        free(d);
    }
    char path[512];
    snprintf(path, sizeof path, "%s/damaged.mat", tmpdir);
    unlink(path);
}

/* A -v7 file (zlib-compressed variables): every byte of a compressed
 * element flipped in turn, and the file cut at every length inside the
 * header or the element, is refused
 * by the structure check (zlib's checksum, the inflated walk) before
 * matio reads it; the intact file reads back the same numbers. */
static void test_compressed(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/z.mat", tmpdir);
    double x[12];
    for (int i = 0; i < 12; i++) x[i] = 0.5 * i - 1;
    size_t dims[2] = {3, 4};
    mat_t *mat = Mat_CreateVer(path, NULL, MAT_FT_MAT5);
    matvar_t *v = mat ? Mat_VarCreate("X", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, x, 0) : NULL;
    int wrote = v && Mat_VarWrite(mat, v, MAT_COMPRESSION_ZLIB) == 0;
    Mat_VarFree(v);
    if (mat) Mat_Close(mat);
    REQUIRE(wrote, "cannot write a compressed file with matio");
    if (!wrote) return;
    FILE *fp = fopen(path, "rb");
    unsigned char b[4096];
    size_t n = fp ? fread(b, 1, sizeof b, fp) : 0;
    if (fp) fclose(fp);
    REQUIRE(n > 136 && n < sizeof b && b[128] == 15, "%s: expected one compressed element (%zu bytes)", path, n);
    if (!(n > 136 && n < sizeof b && b[128] == 15)) return;
    EeMatIn *f;
    size_t r = 0, c = 0;
    const double *got = NULL;
    if (ee_matin_open(path, &f) == EE_OK) {
        got = ee_mat_double(f, "X", &r, &c);
        CHECK(got && r == 3 && c == 4 && memcmp(got, x, sizeof x) == 0, "the intact compressed file: other numbers");
        ee_matin_close(f);
    }
    CHECK(got != NULL, "the intact compressed file is refused: %s", ee_last_error());
    int accepted = 0, flips = 0, cuts = 0, cut_ok = 0;
    unsigned char d[4096];
    /* the compressed stream starts after the element's 8-byte tag */
    for (size_t at = 136; at < n; at++) {
        memcpy(d, b, n);
        d[at] ^= (unsigned char)(1u << (at % 8));
        fp = fopen(path, "wb");
        fwrite(d, 1, n, fp);
        fclose(fp);
        flips++;
        if (ee_matin_open(path, &f) == EE_OK) { accepted++; ee_matin_close(f); }
    }
    for (size_t len = 0; len < n; len++) {
        if (len == 128) continue; /* the header alone: a valid file without variables */
        fp = fopen(path, "wb");
        fwrite(b, 1, len, fp);
        fclose(fp);
        cuts++;
        if (ee_matin_open(path, &f) == EE_OK) { cut_ok++; ee_matin_close(f); }
    }
    CHECK(accepted == 0, "%d of %d flipped bytes in a compressed element were not refused", accepted, flips);
    CHECK(cut_ok == 0, "%d of %d truncations of a compressed file were not refused", cut_ok, cuts);
    unlink(path);
}

/* FNV-1a over the bytes of every weight in exchange order, byte by byte
 * (the definition of doc/MODEL_FORMAT.md, written out here). */
static void reference_fingerprint(const EeModel *m, char *out, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < ee_model_nparams(m); i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        float *buf = malloc(sizeof(float) * pi.count);
        if (!buf) continue;
        CHECK_OK(ee_param_get(m, i, buf, pi.count));
        const unsigned char *b = (const unsigned char *)buf;
        for (size_t k = 0; k < pi.count * sizeof(float); k++) h = (h ^ b[k]) * 0x100000001b3ULL;
        free(buf);
    }
    snprintf(out, n, "%016llx", (unsigned long long)h);
}

/* ee_model_fingerprint against the reference, as a weight changes and
 * changes back, and for a second model of the same shape: the fingerprints
 * it keeps must answer only for the weights they were computed from. */
static void test_fingerprint(void)
{
    EeModel *m = transformer(2, EE_HEAD_CLASSIFIER), *m2 = transformer(2, EE_HEAD_CLASSIFIER);
    CHECK(m && m2, "models for the fingerprint");
    if (!m || !m2) { ee_model_free(m); ee_model_free(m2); return; }
    ee_model_init(m2, 4);
    int pi_w = ee_model_nparams(m) - 1; /* a weight of the last tensor */
    EeParamInfo pi;
    ee_model_param_info(m, pi_w, &pi);
    float *w = malloc(sizeof(float) * pi.count);
    if (!w) { ee_model_free(m); ee_model_free(m2); return; }
    CHECK_OK(ee_param_get(m, pi_w, w, pi.count));
    char got[4][32], want[4][32];
    for (int round = 0; round < 2; round++) { /* the second round: from what was kept */
        CHECK_OK(ee_model_fingerprint(m, got[0], sizeof got[0]));
        reference_fingerprint(m, want[0], sizeof want[0]);
        float keep = w[pi.count - 1];
        w[pi.count - 1] = keep + 0.25f;
        CHECK_OK(ee_param_set(m, pi_w, w, pi.count));
        CHECK_OK(ee_model_fingerprint(m, got[1], sizeof got[1]));
        reference_fingerprint(m, want[1], sizeof want[1]);
        w[pi.count - 1] = keep;
        CHECK_OK(ee_param_set(m, pi_w, w, pi.count));
        CHECK_OK(ee_model_fingerprint(m, got[2], sizeof got[2]));
        reference_fingerprint(m, want[2], sizeof want[2]);
        CHECK_OK(ee_model_fingerprint(m2, got[3], sizeof got[3]));
        reference_fingerprint(m2, want[3], sizeof want[3]);
        for (int k = 0; k < 4; k++)
            CHECK(!strcmp(got[k], want[k]), "fingerprint %d (round %d): %s, the reference %s", k, round, got[k],
                  want[k]);
        CHECK(strcmp(want[0], want[1]) && !strcmp(want[0], want[2]) && strcmp(want[0], want[3]),
              "the reference fingerprints tell the weights apart (%s %s %s %s)", want[0], want[1], want[2], want[3]);
    }
    free(w);
    ee_model_free(m);
    ee_model_free(m2);
}


/* ee_model_acquire (libcore/io/kept_models.c): the same source twice gives
 * one kept model, with the logits and fingerprint of a fresh load; a
 * weight changed in place (the same address, as Octave writes an array
 * that nothing else shares) and a changed size field each load afresh,
 * with the new values; the weight changed back finds the first entry
 * again; more models held than the table keeps are handed out unkept and
 * stay valid; ee_param_set makes a kept model forget its fingerprint. */
static void test_kept_models(void)
{
    MemSource *s = calloc(1, sizeof *s);
    EeModel *m = transformer(2, EE_HEAD_CLASSIFIER);
    CHECK(s && m, "a model for the kept models");
    if (!s || !m) { free(s); ee_model_free(m); return; }
    float ref[4], out[4];
    char fp[32], want[32];
    predict(m, ref);
    CHECK_OK(ms_from_model(s, m));
    EeFieldSource src = ms_source(s);
    EeModel *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    CHECK_OK(ee_model_acquire(&src, "model", &a));
    CHECK_OK(ee_model_acquire(&src, "model", &b));
    CHECK(a && a == b, "the same source twice: one kept model (%p, %p)", (void *)a, (void *)b);
    if (!a) { ms_free(s); free(s); ee_model_free(m); return; }
    predict(a, out);
    CHECK(!memcmp(out, ref, sizeof out), "the kept model's logits differ from the model's");
    reference_fingerprint(m, want, sizeof want);
    for (int k = 0; k < 2; k++) { /* the second: remembered */
        CHECK_OK(ee_model_fingerprint(a, fp, sizeof fp));
        CHECK(!strcmp(fp, want), "the kept model's fingerprint (%d): %s, the reference %s", k, fp, want);
    }
    ee_model_release(b);
    ee_model_release(a);

    /* a weight changed where it lies */
    MsField *f = ms_find(s, NULL, 0, "Wp");
    CHECK(f != NULL, "the source has Wp");
    if (!f) { ms_free(s); free(s); ee_model_free(m); return; }
    float *w = (float *)f->v.data, w0 = w[0];
    w[0] = w0 + 0.5f;
    EeModel *fresh = NULL;
    CHECK_OK(ee_model_load(&src, "model", &fresh));
    CHECK_OK(ee_model_acquire(&src, "model", &c));
    CHECK(c && c != a, "a weight changed in place gave the kept model");
    if (c && fresh) {
        float got[4];
        predict(fresh, out);
        predict(c, got);
        CHECK(!memcmp(out, got, sizeof out) && memcmp(out, ref, sizeof out),
              "with the weight changed: %g %g, a fresh load %g %g, before %g %g", got[0], got[1], out[0], out[1],
              ref[0], ref[1]);
        char fc[32];
        CHECK_OK(ee_model_fingerprint(c, fc, sizeof fc));
        reference_fingerprint(fresh, want, sizeof want);
        CHECK(!strcmp(fc, want) && strcmp(fc, fp), "fingerprint with the weight changed: %s, the reference %s, before %s",
              fc, want, fp);
    }
    ee_model_free(fresh);
    ee_model_release(c);
    w[0] = w0;
    CHECK_OK(ee_model_acquire(&src, "model", &d));
    CHECK(d == a, "the weight changed back: the first entry");
    ee_model_release(d);

    /* a size field changed: another model */
    double heads = 2;
    size_t one[2] = {1, 1};
    ms_put(s, NULL, 0, "heads", EE_VAL_DOUBLE, 2, one, &heads, sizeof heads);
    CHECK_OK(ee_model_load(&src, "model", &fresh));
    CHECK_OK(ee_model_acquire(&src, "model", &c));
    CHECK(c && c != a && ee_model_config(c)->heads == 2, "heads changed: the kept model of 1 head");
    if (c && fresh) {
        float got[4];
        predict(fresh, out);
        predict(c, got);
        CHECK(!memcmp(out, got, sizeof out), "heads changed: %g %g, a fresh load %g %g", got[0], got[1], out[0], out[1]);
    }
    ee_model_free(fresh);
    ee_model_release(c);

    /* more models held than kept: every one valid, each its own */
    enum { HELD = 12 };
    EeModel *held[HELD] = {0};
    float bias[HELD];
    for (int k = 0; k < HELD; k++) {
        w[0] = w0 + 0.125f * (float)(k + 1);
        bias[k] = w[0];
        CHECK_OK(ee_model_acquire(&src, "model", &held[k]));
    }
    for (int k = 0; k < HELD; k++) {
        int pi = ee_model_find_param(held[k], NULL, 0, "Wp");
        EeParamInfo info;
        float *back = NULL;
        if (held[k] && pi >= 0) {
            ee_model_param_info(held[k], pi, &info);
            back = malloc(sizeof(float) * info.count);
        }
        CHECK(back && !ee_param_get(held[k], pi, back, info.count) && back[0] == bias[k],
              "held model %d: Wp(1) %g, expected %g", k, back ? back[0] : -1.0, bias[k]);
        free(back);
    }
    int distinct = 1;
    for (int k = 0; k < HELD; k++)
        for (int j = 0; j < k; j++) distinct &= held[j] != held[k];
    CHECK(distinct, "two of the held models are one");
    for (int k = 0; k < HELD; k++) ee_model_release(held[k]);

    /* ee_param_set on a kept model: its fingerprint follows (the table is
     * emptied after, since this model no longer matches its source) */
    w[0] = w0;
    CHECK_OK(ee_model_acquire(&src, "model", &c));
    if (c) {
        int pi = ee_model_find_param(c, NULL, 0, "Wp");
        EeParamInfo info;
        ee_model_param_info(c, pi, &info);
        float *v = malloc(sizeof(float) * info.count);
        if (v && !ee_param_get(c, pi, v, info.count)) {
            CHECK_OK(ee_model_fingerprint(c, fp, sizeof fp));
            v[0] += 1.0f;
            CHECK_OK(ee_param_set(c, pi, v, info.count));
            CHECK_OK(ee_model_fingerprint(c, want, sizeof want));
            char r[32];
            reference_fingerprint(c, r, sizeof r);
            CHECK(!strcmp(want, r) && strcmp(want, fp), "after ee_param_set: %s, the reference %s, before %s", want,
                  r, fp);
        }
        free(v);
    }
    ee_model_release(c);
    ee_kept_models_clear();
    ms_free(s);
    free(s);
    ee_model_free(m);
}

/* A kept model whose token table (1.1 MB) is compared in chunks shared by
 * the threads (kept_models.c): a weight changed in place in the first,
 * a middle and the last, partial, chunk each loads afresh; changed back,
 * the kept entry is found again. */
static void test_kept_models_large(void)
{
    EeConfig cfg;
    ee_config_defaults(&cfg, EE_KIND_TRANSFORMER);
    cfg.vocab = 70000; cfg.T = 6; cfg.d = 4; cfg.heads = 1; cfg.layers = 1; cfg.ffn = 4; cfg.classes = 2;
    EeModel *m = NULL;
    MemSource *s = calloc(1, sizeof *s);
    CHECK(s && !ee_model_new(&cfg, &m), "a model with a large token table");
    if (!s || !m) { free(s); ee_model_free(m); return; }
    ee_model_init(m, 5);
    CHECK_OK(ms_from_model(s, m));
    EeFieldSource src = ms_source(s);
    MsField *f = ms_find(s, NULL, 0, "E_tok");
    CHECK(f && f->v.numel == (size_t)cfg.vocab * cfg.d, "the source has E_tok of %d x %d", cfg.vocab, cfg.d);
    EeModel *a = NULL, *b = NULL;
    CHECK_OK(ee_model_acquire(&src, "model", &a));
    CHECK_OK(ee_model_acquire(&src, "model", &b));
    CHECK(a && a == b, "the large model twice: one kept model (%p, %p)", (void *)a, (void *)b);
    ee_model_release(b);
    if (f && a) {
        float *w = (float *)f->v.data;
        size_t at[3] = {1, (size_t)1 << 16, f->v.numel - 1}; /* in the first chunk (not the zero [PAD] row); the second chunk's first; the last */
        for (int k = 0; k < 3; k++) {
            float w0 = w[at[k]];
            w[at[k]] = w0 + 0.25f;
            EeModel *c = NULL;
            CHECK_OK(ee_model_acquire(&src, "model", &c));
            CHECK(c && c != a, "E_tok(%zu) changed in place gave the kept model", at[k] + 1);
            ee_model_release(c);
            w[at[k]] = w0;
            CHECK_OK(ee_model_acquire(&src, "model", &c));
            CHECK(c == a, "E_tok(%zu) changed back: not the first entry", at[k] + 1);
            ee_model_release(c);
        }
    }
    ee_model_release(a);
    ee_kept_models_clear();
    ms_free(s);
    free(s);
    ee_model_free(m);
}

int main(void)
{
    ee_threads_enter();
    ee_rng_seed(&rng, 10);
    quick = getenv("EE_TEST_QUICK") && atoi(getenv("EE_TEST_QUICK"));
    snprintf(tmpdir, sizeof tmpdir, "%s/ee_test_io.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_deep();
    test_size_guard();
    test_inconsistent();
    test_cnn_explainer();
    test_damaged_files();
    test_compressed();
    test_fingerprint();
    test_kept_models();
    test_kept_models_large();
    rmdir(tmpdir);
    ee_threads_leave();
    return check_finish("test_io");
}
