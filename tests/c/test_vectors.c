/* test_vectors.c: the classifiers reproduce the logits of the reference
 * vectors (../shared/vectors, float64 from an independent implementation of
 * MODELS.md) within the tolerance stated in their README:
 * max|logits - ref| <= 1e-4 * max|ref|. The models are loaded through the
 * same validating loader that the gateways use. */
#include "check.h"
#include "ee.h"
#include "ee_mat.h"
#include "ee_model_io.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

static const char *dir(void)
{
    const char *d = getenv("EE_VECTORS");
    return d ? d : "tests/vectors";
}

static void check_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.mat", dir(), name);
    EeMatIn *f;
    EeStatus st = ee_matin_open(path, &f);
    REQUIRE(st == EE_OK, "%s: %s", path, ee_last_error());
    if (st) return;
    EeFieldSource src;
    EeModel *m = NULL;
    CHECK_OK(ee_mat_struct_source(f, "model", &src));
    st = ee_model_load(&src, "model", &m);
    CHECK(st == EE_OK, "%s: load: %s", name, ee_last_error());
    if (!m) { ee_matin_close(f); return; }
    const EeConfig *c = ee_model_config(m);
    size_t N, T, rN, rC;
    const double *X = ee_mat_double(f, "X", &N, &T);
    const double *ref = ee_mat_double(f, "logits", &rN, &rC);
    REQUIRE(X && ref && rN == N && (int)rC == c->classes, "%s: X/logits missing", name);
    if (!X || !ref) { ee_model_free(m); ee_matin_close(f); return; }
    EeInput in = {.n = (int)N};
    int32_t *ids = NULL;
    float *x = NULL;
    /* row-major conversion of the column-major N x T arrays */
    if (c->kind == EE_KIND_MLP) {
        x = malloc(sizeof(float) * N * T);
        for (size_t i = 0; i < N; i++)
            for (size_t t = 0; t < T; t++) x[i * T + t] = (float)X[i + N * t];
        in.x = x;
    } else {
        ids = malloc(sizeof(int32_t) * N * T);
        for (size_t i = 0; i < N; i++)
            for (size_t t = 0; t < T; t++) ids[i * T + t] = (int32_t)X[i + N * t] - 1;
        in.ids = ids;
    }
    float *out = malloc(sizeof(float) * N * rC);
    CHECK_OK(ee_model_predict(m, &in, out, 2, EE_DEVICE_CPU)); /* batch 2: exercises chunking */
    CheckCmp lg = CMP_INIT;
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < rC; k++) cmp_add(&lg, out[i * rC + k], ref[i + N * k]);
    CHECK_CMP(lg, 1e-4 * lg.scale, "%s: max |logits - ref| = %.3g > 1e-4 * %.3g", name, lg.err, lg.scale);
    printf("%-22s logits max abs err %.3g (scale %.3g)\n", name, lg.err, lg.scale);

    /* save through matio, load back: identical logits */
    char tmp[] = "/tmp/ee_vec_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd >= 0) close(fd);
    CHECK_OK(ee_mat_save_model(tmp, "model", m));
    EeMatIn *g;
    if (ee_matin_open(tmp, &g) == EE_OK) {
        EeFieldSource s2;
        EeModel *m2 = NULL;
        CHECK_OK(ee_mat_struct_source(g, "model", &s2));
        CHECK_OK(ee_model_load(&s2, "model", &m2));
        if (m2) {
            float *out2 = malloc(sizeof(float) * N * rC);
            /* same batch as above: OpenBLAS results may depend on the number of
             * rows of a GEMM (they do under valgrind), so only the model differs */
            CHECK_OK(ee_model_predict(m2, &in, out2, 2, EE_DEVICE_CPU));
            CHECK(memcmp(out, out2, sizeof(float) * N * rC) == 0, "%s: save/load changed logits", name);
            free(out2);
            ee_model_free(m2);
        }
        ee_matin_close(g);
    }
    remove(tmp);
    free(out);
    free(ids);
    free(x);
    ee_model_free(m);
    ee_matin_close(f);
}

int main(void)
{
    ee_threads_enter();
    const char *files[] = {"transformer_tiny", "cnn_tiny", "cnn_tiny_nobias", "mlp_tiny", "mlp_tiny_nobias"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) check_file(files[i]);
    ee_threads_leave();
    return check_finish("test_vectors");
}
