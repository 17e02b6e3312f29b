/* test_attr.c: the attribution samplers against independent references.
 * - IG quadrature nodes: known values for small s, weights summing to 1 and
 *   exact integration of polynomials up to degree 2s-1 (Gauss-Legendre), the
 *   Riemann grids of MODELS.md;
 * - IG (every method, pad and zero baselines; for the cnn and mlp without
 *   the rules whose a = 0 node sits on a kink) and X-Gradient against the
 *   same sum computed in double precision with the reference model of
 *   refmodel.h, its gradients taken by central differences;
 * - exact Shapley values against all n! orders evaluated with the double
 *   reference; SV with all permutations equals them; efficiency (exact, and
 *   per permutation) against f(x) - f(baseline) of the reference, not the
 *   delta libcore reports about itself;
 * - ee_explain's efficiency projection: an ensemble's rows sum to the
 *   reference's f(x) - f(baseline);
 * - the same seed gives the same numbers for 1 and 2 threads and any batch
 *   size (SV and IG), and the incremental paths (SV on both kinds, IG on the
 *   cnn) equal full passes. */
#include "refmodel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static EeRng rng;

/* ---- nodes ------------------------------------------------------------------ */
static void test_nodes(void)
{
    double a[64], w[64];
    CHECK_OK(ee_ig_nodes(EE_IG_GAUSSLEGENDRE, 1, a, w));
    CHECK(a[0] == 0.5 && w[0] == 1.0, "s = 1: a = 0.5, w = 1");
    CHECK_OK(ee_ig_nodes(EE_IG_GAUSSLEGENDRE, 2, a, w));
    double r = 0.5 / sqrt(3.0);
    CHECK(fabs(a[0] - (0.5 - r)) < 1e-15 && fabs(a[1] - (0.5 + r)) < 1e-15, "s = 2 nodes");
    CHECK(fabs(w[0] - 0.5) < 1e-15 && fabs(w[1] - 0.5) < 1e-15, "s = 2 weights");
    CHECK_OK(ee_ig_nodes(EE_IG_GAUSSLEGENDRE, 3, a, w));
    double q = 0.5 * sqrt(0.6);
    CHECK(fabs(a[0] - (0.5 - q)) < 1e-15 && fabs(a[1] - 0.5) < 1e-15 && fabs(a[2] - (0.5 + q)) < 1e-15,
          "s = 3 nodes");
    CHECK(fabs(w[0] - 5.0 / 18) < 1e-15 && fabs(w[1] - 8.0 / 18) < 1e-15, "s = 3 weights");
    for (int s = 1; s <= 60; s++) {
        CHECK_OK(ee_ig_nodes(EE_IG_GAUSSLEGENDRE, s, a, w));
        /* integral of x^k over [0,1] is 1/(k+1), exact for k <= 2s-1 */
        CheckCmp q = CMP_INIT;
        for (int k = 0; k <= 2 * s - 1 && k < 60; k++) {
            double sum = 0;
            for (int i = 0; i < s; i++) sum += w[i] * pow(a[i], k);
            cmp_add(&q, sum, 1.0 / (k + 1));
        }
        CHECK_CMP(q, 1e-12, "Gauss-Legendre s = %d integrates polynomials to %.2g", s, q.err);
        int sorted = 1;
        for (int i = 1; i < s; i++) sorted &= a[i] > a[i - 1];
        CHECK(sorted && a[0] > 0 && a[s - 1] < 1, "s = %d nodes ascending inside (0, 1)", s);
    }
    CHECK_OK(ee_ig_nodes(EE_IG_RIEMANN_TRAPEZOID, 4, a, w));
    CHECK(a[0] == 0 && a[3] == 1 && w[0] == 0.125 && w[1] == 0.25 && w[3] == 0.125, "trapezoid s = 4");
    CHECK_OK(ee_ig_nodes(EE_IG_RIEMANN_RIGHT, 4, a, w));
    CHECK(a[0] == 0.25 && a[3] == 1 && w[2] == 0.25, "right s = 4");
    CHECK_OK(ee_ig_nodes(EE_IG_RIEMANN_LEFT, 4, a, w));
    CHECK(a[0] == 0 && a[3] == 0.75, "left s = 4");
    CHECK_OK(ee_ig_nodes(EE_IG_RIEMANN_MIDDLE, 4, a, w));
    CHECK(a[0] == 0.125 && a[3] == 0.875, "middle s = 4");
    CHECK(ee_ig_nodes(EE_IG_RIEMANN_RIGHT, 1, a, w) == EE_ERR_INPUT, "Riemann s = 1 refused");
    CHECK(ee_ig_nodes(EE_IG_GAUSSLEGENDRE, 0, a, w) == EE_ERR_INPUT, "s = 0 refused");
}

/* ---- fixtures --------------------------------------------------------------- */
static EeModel *make_model(EeKind kind, int bias, int T)
{
    EeConfig c;
    refm_config(&c, kind, T, 7, 6, 5);
    c.bias = bias;
    return refm_model(&c, 11, kind == EE_KIND_TRANSFORMER ? 0.4 : 0.5, &rng);
}

/* ---- IG against a double-precision reference ---------------------------------- */
/* Reference IG of one row: sum_k w_k grad f(e_b + a_k (e_x - e_b)) .* (e_x - e_b),
 * gradient by central differences in double, summed over d. */
static void ref_ig_row(Ref *r, const double *ex, const double *eb, const uint8_t *mask, int target,
                       const double *a, const double *w, int s, int rows, int per, double *phi)
{
    int n = rows * per;
    double *e = malloc(sizeof(double) * n), *acc = calloc((size_t)n, sizeof(double));
    RefPoint pt = {r, mask, e, target};
    for (int k = 0; k < s; k++) {
        for (int j = 0; j < n; j++) e[j] = eb[j] + a[k] * (ex[j] - eb[j]);
        for (int j = 0; j < n; j++) acc[j] += w[k] * gc_fd1(ref_point_target, &pt, &e[j], 1e-6);
    }
    for (int t = 0; t < rows; t++) {
        phi[t] = 0;
        for (int c = 0; c < per; c++) phi[t] += (ex[t * per + c] - eb[t * per + c]) * acc[t * per + c];
    }
    free(e);
    free(acc);
}

static void check_ig(EeKind kind, int bias)
{
    const int N = 3, T = 9, lens[3] = {7, 3, 5};
    EeModel *m = make_model(kind, bias, T);
    const EeConfig *c = ee_model_config(m);
    Ref ref;
    ref_load(&ref, m);
    int token = kind != EE_KIND_MLP, rows = token ? T : c->D, per = token ? c->d : 1;
    int32_t *ids = token ? refm_ids(N, T, lens, &rng) : NULL;
    float *x = NULL;
    if (!token) {
        x = malloc(sizeof(float) * N * c->D);
        for (int k = 0; k < N * c->D; k++) x[k] = (float)ee_rng_normal(&rng);
    }
    EeInput in = {.n = N, .ids = ids, .x = x};
    struct { EeIgMethod m; int s; } runs[] = {
        {EE_IG_GAUSSLEGENDRE, 1}, {EE_IG_GAUSSLEGENDRE, 2}, {EE_IG_GAUSSLEGENDRE, 7},
        {EE_IG_RIEMANN_RIGHT, 5}, {EE_IG_RIEMANN_LEFT, 5}, {EE_IG_RIEMANN_MIDDLE, 2},
        {EE_IG_RIEMANN_TRAPEZOID, 5}, {EE_IG_XGRAD, 1}};
    float *A = malloc(sizeof(float) * N * rows);
    double *ex = malloc(sizeof(double) * rows * per), *eb = malloc(sizeof(double) * rows * per);
    double *phi = malloc(sizeof(double) * rows), a[64], w[64];
    int32_t *bids = malloc(sizeof(int32_t) * T);
    uint8_t mask[64];
    for (size_t q = 0; q < sizeof runs / sizeof *runs; q++) {
        for (int zero = token ? 0 : 1; zero <= 1; zero++) {
            if (runs[q].m == EE_IG_XGRAD && !zero) continue;
            /* The a = 0 node of riemann_left / trapezoid lies on a ReLU kink
             * or a max-over-time tie for the cnn and mlp (all-zero windows,
             * e = 0), where libcore's rule (ReLU'(0) = 0, ties to the lowest
             * position) is not what central differences see. The reference
             * vectors cover those cases. */
            int zero_node = runs[q].m == EE_IG_RIEMANN_LEFT || runs[q].m == EE_IG_RIEMANN_TRAPEZOID;
            if (zero_node && kind != EE_KIND_TRANSFORMER) continue;
            EeAttrOptions o;
            gc_cpu_options(&o);
            o.method = runs[q].m;
            o.steps = runs[q].s;
            o.baseline = zero ? EE_BASELINE_ZERO : EE_BASELINE_PAD;
            o.batch = 4; /* several passes per sequence */
            int32_t tg[3];
            float fx[3];
            EeAttrInfo info = {tg, fx, NULL, NULL, 0, 0, 0, NULL, 0};
            EeStatus st = ee_ig_attribute(m, &in, &o, A, &info);
            if (runs[q].m == EE_IG_XGRAD && !ee_config_homogeneous(c)) {
                CHECK(st == EE_ERR_UNSUPPORTED, "xgrad refused on a network with biases (%s)", ee_kind_name(kind));
                continue;
            }
            CHECK_OK(st);
            ee_ig_nodes(o.method, o.steps, a, w);
            CheckCmp ig = CMP_INIT;
            for (int i = 0; i < N; i++) {
                if (token) {
                    for (int t = 0; t < T; t++) mask[t] = ids[i * T + t] != EE_PAD;
                    ref_embed(&ref, ids + i * T, ex);
                    for (int t = 0; t < T; t++) bids[t] = EE_IS_SPECIAL(ids[i * T + t]) ? ids[i * T + t] : EE_PAD;
                    if (zero) memset(eb, 0, sizeof(double) * rows * per);
                    else ref_embed(&ref, bids, eb);
                } else {
                    for (int k = 0; k < rows; k++) ex[k] = x[i * rows + k];
                    memset(eb, 0, sizeof(double) * rows);
                }
                ref_ig_row(&ref, ex, eb, mask, tg[i], a, w, o.steps, rows, per, phi);
                for (int t = 0; t < rows; t++) cmp_add(&ig, A[i * rows + t], phi[t]);
            }
            CHECK_CMP(ig, cmp_bound(&ig, 1e-4, 1e-2), "%s%s IG method %d s = %d %s baseline: max err %.3g (scale %.3g)",
                      ee_kind_name(kind), bias ? "" : " (no bias)", (int)o.method, o.steps, zero ? "zero" : "pad",
                      ig.err, ig.scale);
        }
    }
    free(A); free(ex); free(eb); free(phi); free(bids); free(ids); free(x);
    ref_free(&ref);
    ee_model_free(m);
}

/* ---- explainer features against the double reference ---------------------------- */
/* F[t][0] = sum_d (e_x - e_b) g, F[t][1 + q] = (e_x - e_b)_q g_q with g the
 * gradient of the target logit at e_x (central differences in double), for
 * the pad and zero baselines, over several batches (rows in length order). */
static void check_features(EeKind kind)
{
    const int N = 4, T = 9, lens[4] = {7, 2, 5, 3};
    EeModel *m = make_model(kind, 1, T);
    const EeConfig *c = ee_model_config(m);
    Ref ref;
    ref_load(&ref, m);
    int d = c->d, k = 1 + d;
    int32_t *ids = refm_ids(N, T, lens, &rng);
    EeInput in = {.n = N, .ids = ids};
    float *F = malloc(sizeof(float) * N * T * k), *F1 = malloc(sizeof(float) * N * T);
    float *F2 = malloc(sizeof(float) * N * T * 2), *F4 = malloc(sizeof(float) * N * T * 4);
    const int kP = 2 + EE_PATH_NODES;
    float *FP = malloc(sizeof(float) * N * T * kP);
    double *gb = malloc(sizeof(double) * T * 8 * 8);
    double *ex = malloc(sizeof(double) * T * d), *eb = malloc(sizeof(double) * T * d);
    double *g = malloc(sizeof(double) * T * d);
    int32_t bids[16], tg[4];
    uint8_t mask[16];
    for (int zero = 0; zero <= 1; zero++) {
        EeAttrOptions o;
        gc_cpu_options(&o);
        o.batch = 3; /* two passes, rows regrouped by length */
        o.baseline = zero ? EE_BASELINE_ZERO : EE_BASELINE_PAD;
        EeAttrInfo info = {.target = tg};
        CHECK_OK(ee_explainer_features(m, EE_INPUTS_GRADIENT_VECTOR, &in, &o, F, &info));
        CHECK(info.forward == N && info.backward == N, "%s features: %ld forward, %ld backward passes for %d rows",
              ee_kind_name(kind), info.forward, info.backward, N);
        EeAttrInfo info1 = {0};
        CHECK_OK(ee_explainer_features(m, EE_INPUTS_GRADIENT, &in, &o, F1, &info1));
        /* both ends of the path: the gradient at the pad baseline too, one
         * pass pair per distinct (baseline, target) */
        EeAttrInfo info2 = {0};
        ee_baseline_cache_clear(); /* the passes counted below are a first call's */
        EeStatus st2 = ee_explainer_features(m, EE_INPUTS_GRADIENT_ENDS, &in, &o, F2, &info2);
        if (zero) CHECK(st2 == EE_ERR_INPUT, "gradient_ends refused with the zero baseline");
        else CHECK_OK(st2);
        /* occlusion: the ends and, per real token, f(x) - f(x without it)
         * and f(baseline with it) - f(baseline), 2 n + 2 passes per row */
        EeAttrInfo info4 = {0};
        ee_baseline_cache_clear();
        EeStatus st4 = ee_explainer_features(m, EE_INPUTS_OCCLUSION, &in, &o, F4, &info4);
        if (zero) CHECK(st4 == EE_ERR_INPUT, "occlusion refused with the zero baseline");
        else CHECK_OK(st4);
        /* path: the ends and the gradient x input at the Gauss-Legendre
         * nodes inside the path, one forward and backward pass per node */
        EeAttrInfo infoP = {0};
        ee_baseline_cache_clear();
        EeStatus stP = ee_explainer_features(m, EE_INPUTS_PATH, &in, &o, FP, &infoP);
        if (zero) CHECK(stP == EE_ERR_INPUT, "path refused with the zero baseline");
        else CHECK_OK(stP);
        /* gxi: the gradient x input features; same1: the 1-feature inputs vs
         * the vector's first; ends: gradient_ends (its x end vs the 1-feature
         * inputs, its baseline end vs the reference); occl: the
         * occlusion scores (and ends4: their ends and the specials' zeros);
         * path: the path nodes (and endsP: its ends) */
        CheckCmp gxi = CMP_INIT, same1 = CMP_INIT, ends = CMP_INIT, occl = CMP_INIT, ends4 = CMP_INIT;
        CheckCmp path = CMP_INIT, endsP = CMP_INIT;
        long occl_passes = 0;
        for (int i = 0; i < N; i++) {
            for (int t = 0; t < T; t++) mask[t] = ids[i * T + t] != EE_PAD;
            for (int t = 0; t < T; t++) bids[t] = EE_IS_SPECIAL(ids[i * T + t]) ? ids[i * T + t] : EE_PAD;
            ref_embed(&ref, ids + i * T, ex);
            if (zero) memset(eb, 0, sizeof(double) * T * d);
            else ref_embed(&ref, bids, eb);
            double out[8];
            ref_net(&ref, ex, mask, out);
            int best = 0;
            for (int q = 1; q < c->classes; q++) if (out[q] > out[best]) best = q;
            CHECK(tg[i] == best, "%s features: target of row %d is %d, the reference's argmax %d",
                  ee_kind_name(kind), i, tg[i], best);
            if (!zero) {
                /* the occlusion scores from the reference's logits of the
                 * perturbed copies, under the input's mask */
                double fbo[8], zo[8];
                double *ep = malloc(sizeof(double) * T * d);
                int32_t pid[16];
                ref_net(&ref, eb, mask, fbo);
                occl_passes += 2;
                for (int t = 0; t < T; t++) {
                    const float *f4 = F4 + ((size_t)i * T + t) * 4, *f2 = F2 + ((size_t)i * T + t) * 2;
                    cmp_add(&ends4, f4[0], f2[0]);
                    cmp_add(&ends4, f4[1], f2[1]);
                    if (EE_IS_SPECIAL(ids[i * T + t])) {
                        cmp_add(&ends4, f4[2], 0);
                        cmp_add(&ends4, f4[3], 0);
                        continue;
                    }
                    memcpy(pid, ids + i * T, sizeof(int32_t) * T);
                    pid[t] = bids[t];
                    ref_embed(&ref, pid, ep);
                    ref_net(&ref, ep, mask, zo);
                    double loo = out[best] - zo[best];
                    memcpy(pid, bids, sizeof(int32_t) * T);
                    pid[t] = ids[i * T + t];
                    ref_embed(&ref, pid, ep);
                    ref_net(&ref, ep, mask, zo);
                    double add = zo[best] - fbo[best];
                    cmp_add(&occl, f4[2], loo);
                    cmp_add(&occl, f4[3], add);
                    occl_passes += 2;
                }
                free(ep);
            }
            double *e = malloc(sizeof(double) * T * d);
            RefPoint pt = {&ref, mask, e, best};
            if (!zero) {
                double alpha[EE_PATH_NODES], wq[EE_PATH_NODES];
                CHECK_OK(ee_ig_nodes(EE_IG_GAUSSLEGENDRE, EE_PATH_NODES, alpha, wq));
                for (int t = 0; t < T; t++)
                    for (int j = 0; j < 2; j++) /* the ends: the same numbers as gradient_ends */
                        cmp_add(&endsP, FP[((size_t)i * T + t) * kP + j], F2[((size_t)i * T + t) * 2 + j]);
                for (int p = 0; p < EE_PATH_NODES; p++) {
                    for (int j = 0; j < T * d; j++) e[j] = eb[j] + alpha[p] * (ex[j] - eb[j]);
                    for (int j = 0; j < T * d; j++) gb[j] = gc_fd1(ref_point_target, &pt, &e[j], 1e-6);
                    for (int t = 0; t < T; t++) {
                        double sp = 0;
                        for (int q = 0; q < d; q++) sp += (ex[t * d + q] - eb[t * d + q]) * gb[t * d + q];
                        cmp_add(&path, FP[((size_t)i * T + t) * kP + 2 + p], sp);
                    }
                }
            }
            memcpy(e, ex, sizeof(double) * T * d);
            for (int j = 0; j < T * d; j++) g[j] = gc_fd1(ref_point_target, &pt, &e[j], 1e-6);
            /* the gradient at the baseline's embedding output (not for the
             * cnn: its pad baseline is all zero vectors, where every window
             * ties in the max over time, as at IG's a = 0 node above) */
            if (!zero && kind == EE_KIND_TRANSFORMER) {
                memcpy(e, eb, sizeof(double) * T * d);
                for (int j = 0; j < T * d; j++) gb[j] = gc_fd1(ref_point_target, &pt, &e[j], 1e-6);
                for (int t = 0; t < T; t++) {
                    double sb = 0;
                    for (int q = 0; q < d; q++) sb += (ex[t * d + q] - eb[t * d + q]) * gb[t * d + q];
                    cmp_add(&ends, F2[((size_t)i * T + t) * 2 + 1], sb);
                    cmp_add(&ends, F2[((size_t)i * T + t) * 2], F1[(size_t)i * T + t]);
                }
            }
            free(e);
            for (int t = 0; t < T; t++) {
                double sum = 0;
                for (int q = 0; q < d; q++) {
                    double term = (ex[t * d + q] - eb[t * d + q]) * g[t * d + q];
                    sum += term;
                    cmp_add(&gxi, F[((size_t)i * T + t) * k + 1 + q], term);
                }
                cmp_add(&gxi, F[((size_t)i * T + t) * k], sum);
                cmp_add(&same1, F1[(size_t)i * T + t], F[((size_t)i * T + t) * k]);
            }
        }
        CHECK_CMP(gxi, cmp_bound(&gxi, 1e-4, 1e-2), "%s gradient x input features, %s baseline: max err %.3g (scale %.3g)",
                  ee_kind_name(kind), zero ? "zero" : "pad", gxi.err, gxi.scale);
        CHECK_CMP(same1, 0, "%s: the 1-feature inputs equal the first of the vector "
                  "inputs (err %.3g)", ee_kind_name(kind), same1.err);
        if (!zero && kind == EE_KIND_TRANSFORMER) {
            int lens_seen[16] = {0}, distinct = 0;
            for (int i = 0; i < N; i++) distinct += !lens_seen[lens[i]]++; /* targets may split them further */
            CHECK_CMP(ends, cmp_bound(&ends, 1e-4, 1e-2), "%s gradient at the baseline end: max err %.3g (scale %.3g)",
                      ee_kind_name(kind), ends.err, ends.scale);
            CHECK(info2.forward >= N + distinct && info2.forward <= 2 * N && info2.backward == info2.forward,
                  "%s gradient_ends: %ld forward, %ld backward passes (%d rows, %d lengths)", ee_kind_name(kind),
                  info2.forward, info2.backward, N, distinct);
        }
        if (!zero) {
            CHECK_CMP(occl, occl.scale > 0 ? cmp_bound(&occl, 1e-4, 1e-2) : -1,
                      "%s occlusion features against the reference: max err %.3g (scale %.3g)",
                      ee_kind_name(kind), occl.err, occl.scale);
            CHECK_CMP(ends4, 1e-4 * fmax(occl.scale, 1e-2),
                      "%s occlusion: the ends equal gradient_ends', zeros at the specials (err %.3g)",
                      ee_kind_name(kind), ends4.err);
            CHECK(info4.forward == info2.forward + occl_passes && info4.backward == info2.backward,
                  "%s occlusion: %ld forward passes, %ld expected (%ld for the ends, %ld perturbed copies)",
                  ee_kind_name(kind), info4.forward, info2.forward + occl_passes, info2.forward, occl_passes);
            CHECK_CMP(path, path.scale > 0 ? cmp_bound(&path, 1e-4, 1e-2) : -1,
                      "%s path features against the reference: max err %.3g (scale %.3g)", ee_kind_name(kind),
                      path.err, path.scale);
            CHECK_CMP(endsP, 1e-4 * fmax(path.scale, 1e-2), "%s path: the ends equal gradient_ends' (err %.3g)", ee_kind_name(kind), endsP.err);
            CHECK(infoP.forward == info2.forward + (long)N * EE_PATH_NODES &&
                  infoP.backward == info2.backward + (long)N * EE_PATH_NODES,
                  "%s path: %ld forward, %ld backward passes, %ld each expected", ee_kind_name(kind), infoP.forward,
                  infoP.backward, info2.forward + (long)N * EE_PATH_NODES);
        }
    }
    free(F); free(F1); free(F2); free(F4); free(FP); free(gb); free(ex); free(eb); free(g); free(ids);
    ref_free(&ref);
    ee_model_free(m);
}

/* ---- Shapley against all orders in double precision ------------------------------- */
static double ref_value(Ref *r, const int32_t *ids, const uint8_t *mask, int target)
{
    const EeConfig *c = &r->c;
    double *e = malloc(sizeof(double) * c->T * c->d), out[8];
    ref_embed(r, ids, e);
    ref_net(r, e, mask, out);
    free(e);
    return out[target];
}

/* f(x) - f(pad baseline) of the target (the baseline keeps [CLS], [SEP]
 * and PAD, the other tokens become PAD; both under x's mask), in double. */
static double ref_gain(Ref *r, const int32_t *ids, int T, int target)
{
    uint8_t mask[64];
    int32_t base[64];
    for (int t = 0; t < T; t++) {
        mask[t] = ids[t] != EE_PAD;
        base[t] = EE_IS_SPECIAL(ids[t]) ? ids[t] : EE_PAD;
    }
    return ref_value(r, ids, mask, target) - ref_value(r, base, mask, target);
}

/* Shapley values of row ids by every one of the n! orders (double). */
static void ref_shapley_orders(Ref *r, const int32_t *ids, int T, int target, double *phi)
{
    int pos[8], n = 0, perm[8];
    uint8_t mask[64];
    int32_t cur[64];
    for (int t = 0; t < T; t++) {
        mask[t] = ids[t] != EE_PAD;
        if (!EE_IS_SPECIAL(ids[t])) pos[n++] = t;
        phi[t] = 0;
    }
    for (int i = 0; i < n; i++) perm[i] = i;
    double count = 0;
    for (;;) {
        for (int t = 0; t < T; t++) cur[t] = EE_IS_SPECIAL(ids[t]) ? ids[t] : EE_PAD;
        double prev = ref_value(r, cur, mask, target);
        for (int j = 0; j < n; j++) {
            cur[pos[perm[j]]] = ids[pos[perm[j]]];
            double v = ref_value(r, cur, mask, target);
            phi[pos[perm[j]]] += v - prev;
            prev = v;
        }
        count++;
        /* next permutation in lexicographic order */
        int i = n - 2;
        while (i >= 0 && perm[i] > perm[i + 1]) i--;
        if (i < 0) break;
        int j = n - 1;
        while (perm[j] < perm[i]) j--;
        int tmp = perm[i]; perm[i] = perm[j]; perm[j] = tmp;
        for (int lo = i + 1, hi = n - 1; lo < hi; lo++, hi--) { tmp = perm[lo]; perm[lo] = perm[hi]; perm[hi] = tmp; }
    }
    for (int t = 0; t < T; t++) phi[t] /= count;
}

static void check_shapley(EeKind kind, int bias)
{
    const int N = 3, T = 8, lens[3] = {4, 2, 5};
    EeModel *m = make_model(kind, bias, T);
    Ref ref;
    ref_load(&ref, m);
    int32_t *ids = refm_ids(N, T, lens, &rng);
    EeInput in = {.n = N, .ids = ids};
    EeAttrOptions o;
    gc_cpu_options(&o);
    float A[3 * 8], B[3 * 8], fbase[3], delta[3], fx[3];
    int32_t tg[3];
    EeAttrInfo info = {tg, fx, fbase, delta, 0, 0, 0, NULL, 0};
    CHECK_OK(ee_shapley_exact(m, &in, &o, A, &info));
    /* phi: the reference's values; gain: f(x) - f(pad baseline) by the
     * reference (the sum every row's values must reach, efficiency) */
    double phi[3 * 8], gain[3];
    CheckCmp ex = CMP_INIT, eff = CMP_INIT;
    for (int i = 0; i < N; i++) {
        ref_shapley_orders(&ref, ids + i * T, T, tg[i], phi + i * T);
        for (int t = 0; t < T; t++) cmp_add(&ex, A[i * T + t], phi[i * T + t]);
        gain[i] = ref_gain(&ref, ids + i * T, T, tg[i]);
        double sum = 0;
        for (int t = 0; t < T; t++) sum += A[i * T + t];
        cmp_add(&eff, sum, gain[i]);
    }
    CHECK_CMP(ex, cmp_bound(&ex, 1e-4, 1e-2), "%s exact Shapley vs all orders: %.3g (scale %.3g)", ee_kind_name(kind),
              ex.err, ex.scale);
    CHECK_CMP(eff, cmp_bound(&eff, 1e-4, 1), "%s exact Shapley: each row sums to the reference's f(x) - f(baseline) "
              "(err %.3g)", ee_kind_name(kind), eff.err);
    /* SV with every permutation of each row equals the exact values */
    int32_t *perms[3];
    for (int i = 0; i < N; i++) {
        int n = lens[i], f = 1, p[8];
        for (int k = 2; k <= 5; k++) f *= k; /* 120 rows: all orders of the longest row */
        perms[i] = malloc(sizeof(int32_t) * 120 * n);
        for (int k = 0; k < n; k++) p[k] = k;
        for (int r = 0; r < 120; r++) {
            memcpy(perms[i] + r * n, p, sizeof(int32_t) * n);
            int a = n - 2; /* next permutation, cycling */
            while (a >= 0 && p[a] > p[a + 1]) a--;
            if (a < 0) { for (int k = 0; k < n; k++) p[k] = k; continue; }
            int b = n - 1;
            while (p[b] < p[a]) b--;
            int t = p[a]; p[a] = p[b]; p[b] = t;
            for (int lo = a + 1, hi = n - 1; lo < hi; lo++, hi--) { t = p[lo]; p[lo] = p[hi]; p[hi] = t; }
        }
        (void)f;
    }
    o.steps = 120;
    o.perms = (const int32_t *const *)perms;
    CHECK_OK(ee_sv_attribute(m, &in, &o, B, &info));
    CheckCmp all = CMP_INIT, same = CMP_INIT;
    cmp_add_ff(&same, B, A, (size_t)N * T);
    for (int k = 0; k < N * T; k++) cmp_add(&all, B[k], phi[k]);
    CHECK_CMP(all, cmp_bound(&all, 1e-4, 1e-2), "%s SV over all orders vs the reference: %.3g", ee_kind_name(kind),
              all.err);
    CHECK_CMP(same, cmp_bound(&ex, 1e-5, 1e-2), "%s SV over all orders = exact: %.3g", ee_kind_name(kind), same.err);
    /* efficiency for a single permutation: against f(x) - f(baseline) of
     * the reference, not the delta libcore reports about itself */
    o.steps = 1;
    CHECK_OK(ee_sv_attribute(m, &in, &o, B, &info));
    for (int i = 0; i < N; i++) {
        CheckCmp one = CMP_INIT;
        double sum = 0;
        for (int t = 0; t < T; t++) sum += B[i * T + t];
        cmp_add(&one, sum, gain[i]);
        CHECK_CMP(one, 1e-4 * fmax(1.0, fabs(gain[i])), "%s efficiency row %d: sum %.9g, f(x) - f(baseline) %.9g",
                  ee_kind_name(kind), i, sum, gain[i]);
    }
    for (int i = 0; i < N; i++) free(perms[i]);
    free(ids);
    ref_free(&ref);
    ee_model_free(m);
}

/* ---- the explainer's efficiency --------------------------------------------------- */
/* ee_explain with efficiency (an ensemble of two explainers fresh from the
 * classifier: their maps are far from efficient by themselves): each row's
 * real-token scores sum to f(x) - f(pad baseline) of the reference model
 * for the classifier's target, and the specials score 0. Without the
 * projection the sums are whatever the heads give. */
static void check_explain(EeKind kind) /* explainers: the transformer and the cnn */
{
    const int N = 4, T = 9, lens[4] = {7, 2, 5, 1};
    EeModel *clf = make_model(kind, 1, T), *ex[2] = {NULL, NULL};
    Ref ref;
    ref_load(&ref, clf);
    int32_t *ids = refm_ids(N, T, lens, &rng), tg[4];
    EeInput in = {.n = N, .ids = ids};
    EeExplainerSpec spec;
    ee_explainer_spec_default(&spec);
    REQUIRE(spec.efficiency, "the default explainer applies efficiency");
    CHECK_OK(ee_explainer_new(clf, &spec, 5, &ex[0]));
    CHECK_OK(ee_explainer_new(clf, &spec, 6, &ex[1]));
    if (ex[0] && ex[1]) {
        EeAttrOptions o;
        gc_cpu_options(&o);
        o.batch = 3;
        float A[4 * 9];
        EeAttrInfo info = {.target = tg};
        CHECK_OK(ee_explain(ex, 2, clf, &in, &o, A, &info));
        CheckCmp eff = CMP_INIT, special = CMP_INIT;
        for (int i = 0; i < N; i++) {
            double out[8], *e = malloc(sizeof(double) * T * ref.c.d);
            uint8_t mask[16];
            for (int t = 0; t < T; t++) mask[t] = ids[i * T + t] != EE_PAD;
            ref_embed(&ref, ids + i * T, e);
            ref_net(&ref, e, mask, out);
            free(e);
            int best = 0;
            for (int q = 1; q < ref.c.classes; q++) if (out[q] > out[best]) best = q;
            CHECK(tg[i] == best, "%s explain: target of row %d is %d, the reference's argmax %d", ee_kind_name(kind),
                  i, tg[i], best);
            double sum = 0, gain = ref_gain(&ref, ids + i * T, T, best);
            for (int t = 0; t < T; t++) {
                if (EE_IS_SPECIAL(ids[i * T + t])) cmp_add(&special, A[i * T + t], 0);
                else sum += A[i * T + t];
            }
            cmp_add(&eff, sum, gain);
        }
        CHECK_CMP(eff, cmp_bound(&eff, 1e-4, 1), "%s explain: each row's scores sum to the reference's f(x) - "
                  "f(baseline) (err %.3g, scale %.3g)", ee_kind_name(kind), eff.err, eff.scale);
        CHECK_CMP(special, 0, "%s explain: [CLS], [SEP] and PAD score 0 (largest %.3g)", ee_kind_name(kind),
                  special.err);
    }
    ee_model_free(ex[0]);
    ee_model_free(ex[1]);
    free(ids);
    ref_free(&ref);
    ee_model_free(clf);
}

/* ---- margin explainers of a binary classifier (margin.c) ------------------------- */
/* Training maps: the given ones with the rows the double-precision
 * reference predicts as the first class negated. ee_explain: the
 * explainer's own pass (ee_model_predict) signed for the class that the
 * reference's margin z_2 - z_1 at the row's pad baseline plus twice the
 * pass's real-token sum says (rows within 1e-3 of 0 left out: float and
 * double may differ there), one classifier pass per distinct baseline,
 * kept for the next call (the same bits, every baseline read); a given
 * class signs the map without those passes. */
static void check_margin(EeKind kind)
{
    enum { N = 8, T = 9 };
    const int lens[N] = {7, 2, 5, 1, 7, 3, 6, 4}; /* 7 distinct baselines */
    EeConfig c;
    refm_config(&c, kind, T, 7, 6, 5);
    c.classes = 2;
    EeExplainerSpec spec;
    ee_explainer_spec_default(&spec);
    spec.inputs = EE_INPUTS_TOKENS;
    spec.efficiency = 0;
    spec.margin = 1;
    /* a classifier and explainer whose reference classes and margin
     * decisions both take both values on the rows (else a sign never
     * applied would pass): the first of the draws that has them */
    EeModel *clf = NULL, *ex = NULL;
    Ref ref;
    int32_t *ids = NULL, tg[N], given[N];
    int cls[N], n1 = 0, split = 0;
    double mb[N];
    float raw[N * T];
    for (int draw = 0; draw < 40 && !split; draw++) {
        if (clf) { ref_free(&ref); ee_model_free(clf); ee_model_free(ex); free(ids); ex = NULL; }
        clf = refm_model(&c, 11 + draw, kind == EE_KIND_TRANSFORMER ? 0.4 : 0.5, &rng);
        ref_load(&ref, clf);
        ids = refm_ids(N, T, lens, &rng);
        EeInput in0 = {.n = N, .ids = ids};
        if (ee_explainer_new(clf, &spec, 5 + draw, &ex) || ee_model_predict(ex, &in0, raw, 0, EE_DEVICE_CPU)) break;
        int up = 0;
        n1 = 0;
        for (int i = 0; i < N; i++) {
            uint8_t mask[16];
            int32_t base[16];
            double sum = 0;
            for (int t = 0; t < T; t++) {
                mask[t] = ids[i * T + t] != EE_PAD;
                base[t] = EE_IS_SPECIAL(ids[i * T + t]) ? ids[i * T + t] : EE_PAD;
                if (!EE_IS_SPECIAL(ids[i * T + t])) sum += raw[i * T + t];
            }
            cls[i] = ref_value(&ref, ids + i * T, mask, 1) > ref_value(&ref, ids + i * T, mask, 0);
            n1 += cls[i];
            mb[i] = ref_value(&ref, base, mask, 1) - ref_value(&ref, base, mask, 0);
            up += mb[i] + 2 * sum > 0;
        }
        split = n1 > 0 && n1 < N && up > 0 && up < N;
    }
    REQUIRE(split, "%s margin: a draw whose rows take both classes", ee_kind_name(kind));
    EeInput in = {.n = N, .ids = ids};
    /* the training maps */
    float maps[N * T], *signed_maps = NULL;
    for (int q = 0; q < N * T; q++) maps[q] = (float)ee_rng_normal(&rng);
    EeDataset set = {.in = in, .maps = maps};
    EeTrainOptions topt;
    ee_train_options_defaults(&topt, kind, EE_HEAD_TOKEN);
    CHECK_OK(ee_explainer_margin_maps(clf, &set, &topt, &signed_maps, NULL));
    CHECK(n1 > 0 && n1 < N, "%s margin: the reference predicts both classes among the rows (%d of %d the second)",
          ee_kind_name(kind), n1, N);
    if (signed_maps) {
        CheckCmp sg = CMP_INIT;
        for (int q = 0; q < N * T; q++) cmp_add(&sg, signed_maps[q], cls[q / T] ? maps[q] : -maps[q]);
        CHECK_CMP(sg, 0, "%s margin: training maps signed toward the second class (largest difference %.3g)",
                  ee_kind_name(kind), sg.err);
    }
    free(signed_maps);
    /* ee_explain */
    if (ex) {
        EeAttrOptions o;
        gc_cpu_options(&o);
        o.batch = 3;
        float A[N * T], A2[N * T], Ag[N * T];
        EeAttrInfo info = {.target = tg}, info2 = {.target = given};
        CHECK_OK(ee_explain(&ex, 1, clf, &in, &o, A, &info));
        CheckCmp sg = CMP_INIT;
        int decided = 0, firsts = 0, wrong = 0;
        for (int i = 0; i < N; i++) {
            double sum = 0;
            for (int t = 0; t < T; t++)
                if (!EE_IS_SPECIAL(ids[i * T + t])) sum += raw[i * T + t];
            double z = mb[i] + 2 * sum;
            if (fabs(z) < 1e-3) continue;
            decided++;
            int want = z > 0;
            firsts += !want;
            wrong += tg[i] != want;
            for (int t = 0; t < T; t++) cmp_add(&sg, A[i * T + t], want ? raw[i * T + t] : -raw[i * T + t]);
        }
        CHECK(decided >= N - 1 && firsts > 0 && firsts < decided && !wrong,
              "%s margin explain: the class of %d of %d rows is that of the reference's baseline margin plus "
              "twice the map's sum (%d wrong, %d explained for the first class)", ee_kind_name(kind),
              decided - wrong, decided, wrong, firsts);
        CHECK_CMP(sg, 0, "%s margin explain: the explainer's map with the sign of that class (largest difference "
                  "%.3g)", ee_kind_name(kind), sg.err);
        CHECK(info.forward == N + 7 && info.kept == 0, "%s margin explain: %ld forward passes (%d rows, 7 distinct "
              "baselines), %ld kept", ee_kind_name(kind), info.forward, N, info.kept);
        EeAttrInfo again = {0};
        CHECK_OK(ee_explain(&ex, 1, clf, &in, &o, A2, &again));
        CHECK(!memcmp(A, A2, sizeof A) && again.forward == N + 7 && again.kept == 7,
              "%s margin explain again: the same bits, %ld forward passes, %ld of the baselines' kept",
              ee_kind_name(kind), again.forward, again.kept);
        for (int i = 0; i < N; i++) given[i] = i % 2;
        o.target = given;
        CHECK_OK(ee_explain(&ex, 1, clf, &in, &o, Ag, &info2));
        CheckCmp gv = CMP_INIT;
        for (int q = 0; q < N * T; q++) cmp_add(&gv, Ag[q], given[q / T] ? raw[q] : -raw[q]);
        CHECK_CMP(gv, 0, "%s margin explain, classes given: the map signed for them (largest difference %.3g)",
                  ee_kind_name(kind), gv.err);
        CHECK(info2.forward == N, "%s margin explain, classes given: %ld passes (the explainer's %d only)",
              ee_kind_name(kind), info2.forward, N);
        o.target = NULL;
        CHECK(ee_explain(&ex, 1, NULL, &in, &o, A2, NULL) == EE_ERR_MODEL,
              "%s margin explain without the classifier refused", ee_kind_name(kind));
    }
    int magnitudes = 0;
    for (int k = -1; k <= EE_MAP_METHOD_COUNT; k++) magnitudes += !ee_map_method_signed(k);
    CHECK(magnitudes == 6 && !ee_map_method_signed(EE_MAP_SALIENCY_ABS) && !ee_map_method_signed(EE_MAP_VARGRAD) &&
          ee_map_method_signed(EE_MAP_IG) && ee_map_method_signed(EE_MAP_SMOOTHGRAD),
          "margin: the maps that do not flip with the class are the 4 magnitudes (and no method): %d", magnitudes);
    EeModel *three = make_model(kind, 1, T), *ex3 = NULL;
    CHECK(ee_explainer_new(three, &spec, 5, &ex3) == EE_ERR_INPUT && !ex3,
          "%s margin explainer of a 3-class classifier refused", ee_kind_name(kind));
    ee_model_free(three);
    ee_model_free(ex);
    free(ids);
    ref_free(&ref);
    ee_model_free(clf);
}

/* ---- the passes of the explainer features do not depend on the batch -------------- */
/* Rows of three lengths, two of each, one target: three distinct pad
 * baselines, each evaluated once (a forward and a backward pass) whatever
 * the batch, also when a baseline's copies straddle two batches (batch 2;
 * they used to be evaluated again in the second); the features are the
 * same bits. */
static void check_feature_passes(void)
{
    const int N = 6, T = 8;
    EeModel *clf = make_model(EE_KIND_CNN, 1, T);
    int32_t ids[6 * 8], tg[6] = {0};
    for (int i = 0; i < N; i++)
        for (int t = 0; t < T; t++)
            ids[i * T + t] = t == 0 ? EE_CLS : t <= 1 + i % 3 ? 5 + (i + t) % 2 : t == 2 + i % 3 ? EE_SEP : EE_PAD;
    EeInput in = {.n = N, .ids = ids};
    float F[2][6 * 8 * 2];
    long fwd[2] = {0, 0}, bwd[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        EeAttrOptions o;
        gc_cpu_options(&o);
        o.batch = k ? N : 2;
        o.target = tg;
        EeAttrInfo info = {0};
        ee_baseline_cache_clear(); /* each a first call */
        CHECK_OK(ee_explainer_features(clf, EE_INPUTS_GRADIENT_ENDS, &in, &o, F[k], &info));
        fwd[k] = info.forward;
        bwd[k] = info.backward;
    }
    CHECK(fwd[0] == N + 3 && bwd[0] == N + 3 && fwd[1] == N + 3 && bwd[1] == N + 3,
          "feature passes: batch 2 %ld/%ld, batch %d %ld/%ld, want %d each", fwd[0], bwd[0], N, fwd[1], bwd[1], N + 3);
    CHECK(!memcmp(F[0], F[1], sizeof F[0]), "feature bits differ between batch 2 and batch %d", N);
    ee_model_free(clf);
}

/* ---- the front ends' steps for training an explainer ---------------------------- */
/* ee_explainer_design: the spec the gateway and cli/ee get from what the
 * caller named and the training maps. Each option the caller names wins;
 * the rest is the design's: the default design (token head, gradient at
 * both ends, occlusion for Shapley maps, outputs and efficiency decided
 * from the maps) and the paper's (flat head, tokens, every position). */
static void check_design(void)
{
    const int T = 5, n = 2;
    /* [CLS] a b [SEP] PAD, twice; maps 0 at the special tokens or not */
    const int32_t ids[10] = {EE_CLS, 7, 8, EE_SEP, EE_PAD, EE_CLS, 9, EE_SEP, EE_PAD, EE_PAD};
    const float zero[10] = {0, 0.5f, -1, 0, 0, 0, 2, 0, 0, 0}, cls[10] = {0.25f, 0.5f, -1, 0, 0, 0, 2, 0, 0, 0};
    EeExplainerChoices c;
    EeExplainerSpec s;
    memset(&s, 0x55, sizeof s);
    ee_explainer_choices_init(&c);
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s));
    CHECK(s.head == EE_HEAD_TOKEN && s.inputs == EE_INPUTS_GRADIENT_ENDS && s.attend_tokens == 1 &&
          s.zero_special == 1 && s.efficiency == 1, "default design, pad-baseline maps: head %d inputs %s attend %d "
          "zero %d eff %d", s.head, ee_inputs_name(s.inputs), s.attend_tokens, s.zero_special, s.efficiency);
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, cls, n, T, &s));
    CHECK(s.zero_special == 0 && s.efficiency == 0, "maps that credit [CLS]: zero %d eff %d", s.zero_special,
          s.efficiency);
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_SV, ids, zero, n, T, &s));
    CHECK(s.inputs == EE_INPUTS_OCCLUSION && s.efficiency == 1, "Shapley maps: %s", ee_inputs_name(s.inputs));
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_SV, ids, NULL, n, T, &s));
    CHECK(s.zero_special == 1 && s.inputs == EE_INPUTS_OCCLUSION, "no maps (kernel loss): zero %d", s.zero_special);
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_IG, ids, zero, n, T, &s));
    CHECK(s.inputs == EE_INPUTS_GRADIENT_ENDS, "IG maps: %s", ee_inputs_name(s.inputs));
    c.inputs = EE_INPUTS_GRADIENT;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_SV, ids, zero, n, T, &s));
    CHECK(s.inputs == EE_INPUTS_GRADIENT, "Shapley maps, inputs named: %s", ee_inputs_name(s.inputs));
    c.inputs = EE_INPUTS_TOKENS;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s));
    CHECK(s.efficiency == 0 && s.zero_special == 1, "tokens only: no efficiency by default (%d)", s.efficiency);
    c.efficiency = 0;
    c.inputs = -1;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s));
    CHECK(s.efficiency == 0, "efficiency named false: %d", s.efficiency);
    c.efficiency = -1;
    c.outputs = EE_OUTPUTS_TOKENS;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, cls, n, T, &s));
    CHECK(s.zero_special == 1 && s.efficiency == 1, "outputs tokens over maps that credit [CLS]: zero %d",
          s.zero_special);
    c.outputs = EE_OUTPUTS_ALL;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s));
    CHECK(s.zero_special == 0 && s.efficiency == 0, "outputs all: zero %d eff %d", s.zero_special, s.efficiency);
    c.outputs = -1;
    c.head = EE_HEAD_FLAT;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s));
    CHECK(s.head == EE_HEAD_FLAT && s.attend_tokens == 0, "flat head: attend %d", s.attend_tokens);
    c.attend = 1;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s));
    CHECK(s.attend_tokens == 1, "flat head, attend tokens named: %d", s.attend_tokens);
    CHECK(s.layers == 0, "layers not named: %d (all of the classifier's)", s.layers);
    c.layers = 1;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s));
    CHECK(s.layers == 1, "layers named: %d", s.layers);

    ee_explainer_choices_init(&c);
    c.design = EE_DESIGN_PAPER;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_SV, ids, zero, n, T, &s));
    CHECK(s.head == EE_HEAD_FLAT && s.inputs == EE_INPUTS_TOKENS && s.attend_tokens == 0 && s.zero_special == 0 &&
          s.efficiency == 0, "the paper's design: head %d inputs %s attend %d zero %d eff %d", s.head,
          ee_inputs_name(s.inputs), s.attend_tokens, s.zero_special, s.efficiency);
    c.outputs = EE_OUTPUTS_AUTO;
    c.head = EE_HEAD_TOKEN;
    CHECK_OK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s));
    CHECK(s.head == EE_HEAD_TOKEN && s.zero_special == 1 && s.efficiency == 0 && s.attend_tokens == 0,
          "the paper's design, token head, outputs auto: zero %d eff %d attend %d", s.zero_special, s.efficiency,
          s.attend_tokens);

    /* out of range: one error each, EE_ERR_INPUT */
    const int bad[][8] = {{2, -1, -1, -1, -1, -1, 0, 0}, {0, EE_HEAD_CLASSIFIER, -1, -1, -1, -1, 0, 0},
                          {0, -1, EE_INPUTS_COUNT, -1, -1, -1, 0, 0}, {0, -1, -1, 2, -1, -1, 0, 0},
                          {0, -1, -1, -1, EE_OUTPUTS_COUNT, -1, 0, 0}, {0, -1, -1, -1, -1, 2, 0, 0},
                          {0, -1, -1, -1, -1, -1, -1, 0}, {0, -1, -1, -1, -1, -1, 0, 2},
                          {0, -1, -1, -1, -1, -1, 0, -1}};
    for (int q = 0; q < 9; q++) {
        c = (EeExplainerChoices){(EeDesign)bad[q][0], bad[q][1], bad[q][2], bad[q][3],
                                 bad[q][4], bad[q][5], bad[q][6], bad[q][7]};
        CHECK(ee_explainer_design(&c, EE_MAPS_GIVEN, ids, zero, n, T, &s) == EE_ERR_INPUT,
              "out-of-range choice %d refused", q);
    }
}

/* ee_explainer_spec_for_maps: Shapley maps move the default design to the
 * occlusion inputs, nothing else does. ee_explainer_train_features: the
 * features of both sets are those of ee_explainer_features row for row
 * (same bits), attached to the sets, summed in info; none for an empty set
 * or a tokens-only explainer; a failure leaves nothing allocated or
 * attached. */
static void check_train_features(EeKind kind)
{
    EeExplainerSpec s;
    ee_explainer_spec_default(&s);
    ee_explainer_spec_for_maps(&s, 1, 0);
    CHECK(s.inputs == EE_INPUTS_OCCLUSION, "Shapley maps, inputs not named: %s", ee_inputs_name(s.inputs));
    ee_explainer_spec_default(&s);
    ee_explainer_spec_for_maps(&s, 1, 1);
    CHECK(s.inputs == EE_INPUTS_GRADIENT_ENDS, "Shapley maps, inputs named: %s", ee_inputs_name(s.inputs));
    ee_explainer_spec_for_maps(&s, 0, 0);
    CHECK(s.inputs == EE_INPUTS_GRADIENT_ENDS, "IG maps: %s", ee_inputs_name(s.inputs));
    ee_explainer_spec_paper(&s);
    ee_explainer_spec_for_maps(&s, 1, 0);
    CHECK(s.inputs == EE_INPUTS_TOKENS, "the paper's design with Shapley maps: %s", ee_inputs_name(s.inputs));

    const int T = 9, lt[4] = {7, 2, 5, 3}, lv[3] = {1, 6, 4};
    EeModel *clf = make_model(kind, 1, T), *ex = NULL, *paper = NULL;
    int32_t *ids_t = refm_ids(4, T, lt, &rng), *ids_v = refm_ids(3, T, lv, &rng);
    ee_explainer_spec_default(&s);
    ee_explainer_spec_for_maps(&s, 1, 0); /* occlusion: 4 features */
    CHECK_OK(ee_explainer_new(clf, &s, 3, &ex));
    ee_explainer_spec_paper(&s);
    CHECK_OK(ee_explainer_new(clf, &s, 3, &paper));
    if (!ex || !paper) goto done;
    const EeConfig *c = ee_model_config(ex);
    int k = ee_config_features(c);
    EeTrainOptions topt;
    ee_train_options_defaults(&topt, c->kind, c->head);
    topt.device = EE_DEVICE_CPU;
    topt.verbose = 0;
    EeAttrOptions o;
    ee_attr_options_defaults(&o);
    o.device = EE_DEVICE_CPU;
    o.verbose = 0;
    EeDataset train = {.in = {.n = 4, .ids = ids_t}}, valid = {.in = {.n = 3, .ids = ids_v}};
    float *F[2], *R[2] = {malloc(sizeof(float) * 4 * T * k), malloc(sizeof(float) * 3 * T * k)};
    EeAttrInfo info = {0}, ri = {0};
    ee_baseline_cache_clear(); /* both from the same start: the valid set may reuse the training set's baselines */
    CHECK_OK(ee_explainer_train_features(clf, c, &train, &valid, &topt, F, &info));
    ee_baseline_cache_clear();
    CHECK_OK(ee_explainer_features(clf, c->inputs, &train.in, &o, R[0], &ri));
    CHECK_OK(ee_explainer_features(clf, c->inputs, &valid.in, &o, R[1], &ri));
    CHECK(F[0] && F[1] && train.in.feats == F[0] && valid.in.feats == F[1],
          "%s: both sets' features allocated and attached", ee_kind_name(kind));
    if (F[0] && F[1]) {
        CHECK(!memcmp(F[0], R[0], sizeof(float) * 4 * T * k) && !memcmp(F[1], R[1], sizeof(float) * 3 * T * k),
              "%s: the sets' features are ee_explainer_features' bit for bit", ee_kind_name(kind));
    }
    CHECK(info.forward == ri.forward && info.backward == ri.backward && info.forward > 0,
          "%s: passes of both sets summed (%ld + %ld, direct %ld + %ld)", ee_kind_name(kind), info.forward,
          info.backward, ri.forward, ri.backward);
    free(F[0]);
    free(F[1]);
    /* no validation set; a tokens-only explainer */
    EeDataset none = {0};
    train.in.feats = NULL;
    CHECK_OK(ee_explainer_train_features(clf, c, &train, &none, &topt, F, NULL));
    CHECK(F[0] && !F[1] && !none.in.feats, "%s: an empty validation set gets no features", ee_kind_name(kind));
    free(F[0]);
    train.in.feats = NULL;
    CHECK_OK(ee_explainer_train_features(clf, ee_model_config(paper), &train, &valid, &topt, F, NULL));
    CHECK(!F[0] && !F[1] && !train.in.feats, "%s: a tokens-only explainer reads no features", ee_kind_name(kind));
    /* a bad validation row (an id past the vocabulary): the training set's
     * features, made first, are released too */
    valid.in.feats = NULL;
    ids_v[T + 1] = 1000;
    EeStatus st = ee_explainer_train_features(clf, c, &train, &valid, &topt, F, NULL);
    CHECK(st == EE_ERR_INPUT && !F[0] && !F[1] && !train.in.feats && !valid.in.feats,
          "%s: a bad row fails (%s: %s) with nothing left allocated or attached", ee_kind_name(kind),
          ee_status_id(st), ee_last_error());
    free(R[0]);
    free(R[1]);
done:
    ee_model_free(ex);
    ee_model_free(paper);
    ee_model_free(clf);
    free(ids_t);
    free(ids_v);
}

/* ---- seeds across threads and batch sizes ------------------------------------------ */
static void check_determinism(EeKind kind)
{
    const int N = 5, T = 16, lens[5] = {14, 3, 9, 1, 12};
    EeModel *m = make_model(kind, 1, T);
    int32_t *ids = refm_ids(N, T, lens, &rng);
    EeInput in = {.n = N, .ids = ids};
    float ref_sv[5 * 16], ref_ig[5 * 16], A[5 * 16];
    int threads[2] = {1, 2}, batches[3] = {1, 7, 64};
    for (int full = 0; full <= 1; full++) /* incremental paths vs full passes */
        for (int ti = 0; ti < 2; ti++)
            for (int bi = 0; bi < 3; bi++) {
                gc_set_threads(threads[ti]);
                EeAttrOptions o;
                gc_cpu_options(&o);
                o.seed = 42;
                o.batch = batches[bi];
                o.full_passes = full;
                CHECK_OK(ee_sv_attribute(m, &in, &o, A, NULL));
                if (!full && ti == 0 && bi == 0) memcpy(ref_sv, A, sizeof A);
                CheckCmp sv = CMP_INIT;
                cmp_add_ff(&sv, A, ref_sv, (size_t)N * T);
                CHECK_CMP(sv, 1e-5 * sv.scale, "%s SV seed 42, %d threads, batch %d%s: differs by %.3g",
                          ee_kind_name(kind), threads[ti], batches[bi], full ? ", full passes" : "", sv.err);
                CHECK_OK(ee_ig_attribute(m, &in, &o, A, NULL));
                if (ti == 0 && bi == 0) memcpy(ref_ig, A, sizeof A);
                CheckCmp ig = CMP_INIT;
                cmp_add_ff(&ig, A, ref_ig, (size_t)N * T);
                CHECK_CMP(ig, 1e-5 * ig.scale, "%s IG, %d threads, batch %d%s: differs by %.3g", ee_kind_name(kind),
                          threads[ti], batches[bi], full ? ", full passes" : "", ig.err);
            }
    gc_set_threads(2);
    /* a different seed gives different numbers */
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.seed = 43;
    CHECK_OK(ee_sv_attribute(m, &in, &o, A, NULL));
    CheckCmp seeds = CMP_INIT;
    cmp_add_ff(&seeds, A, ref_sv, (size_t)N * T);
    double diff = seeds.err;
    CHECK(seeds.nonfinite == 0 && diff > 1e-4 && diff < INFINITY, "%s SV: seeds 42 and 43 agree (or are not finite: "
          "%zu)", ee_kind_name(kind), seeds.nonfinite);
    /* split runs keyed by row offset equal the whole run */
    o.seed = 42;
    EeInput part = {.n = 2, .ids = ids + 3 * T};
    o.row_offset = 3;
    CHECK_OK(ee_sv_attribute(m, &part, &o, A, NULL));
    CheckCmp split = CMP_INIT;
    cmp_add_ff(&split, A, ref_sv + 3 * T, (size_t)2 * T);
    CHECK_CMP(split, 1e-5 * fmax(1e-3, diff), "%s SV rows 4..5 alone equal the whole run: %.3g", ee_kind_name(kind),
              split.err);
    free(ids);
    ee_model_free(m);
}

/* ---- the attention inputs against the double reference ---------------------------- */
/* EE_INPUTS_ATTENTION: columns 0 and 1 are gradient_ends' (bit for bit:
 * the same passes); then the last layer's [CLS] attention to t in each head
 * h (the reference's softmax); then the value-path scores of every layer,
 * each the derivative of the target logit
 * with respect to a factor on v(t) in head h at that layer (central
 * differences in double): an independent route to v . dv. Rows in two
 * passes (batch 3) of different lengths. EE_INPUTS_ATTENTION_TOP: column 0
 * is gradient_ends' column 1 (bit for bit), then the attention and the
 * last layer's value-path scores, against the same references, at the
 * same pass counts. */
static void check_attention_features(EeInputs inputs)
{
    const int N = 4, T = 9, lens[4] = {7, 2, 5, 3};
    EeModel *m = make_model(EE_KIND_TRANSFORMER, 1, T);
    const EeConfig *c = ee_model_config(m);
    const char *name = ee_inputs_name(inputs);
    int top = inputs == EE_INPUTS_ATTENTION_TOP;
    Ref ref;
    ref_load(&ref, m);
    int d = c->d, H = c->heads, nl = c->layers, k = top ? 1 + 2 * H : 2 + H + nl * H;
    int ends = top ? 1 : 2, l0 = top ? nl - 1 : 0; /* the score columns; the first layer read */
    EeConfig e = *c;
    e.head = EE_HEAD_TOKEN;
    e.inputs = inputs;
    CHECK(ee_config_features(&e) == k, "%s inputs: %d features, expected %d", name, ee_config_features(&e), k);
    int32_t *ids = refm_ids(N, T, lens, &rng), tg[4];
    EeInput in = {.n = N, .ids = ids};
    float *FA = malloc(sizeof(float) * N * T * k), *F2 = malloc(sizeof(float) * N * T * 2);
    double *ex = malloc(sizeof(double) * T * d);
    uint8_t mask[16];
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.batch = 3;
    EeAttrInfo info = {.target = tg}, info2 = {0};
    ee_baseline_cache_clear(); /* both first calls */
    CHECK_OK(ee_explainer_features(m, inputs, &in, &o, FA, &info));
    ee_baseline_cache_clear();
    CHECK_OK(ee_explainer_features(m, EE_INPUTS_GRADIENT_ENDS, &in, &o, F2, &info2));
    CHECK(info.forward == info2.forward && info.backward == info2.backward,
          "%s inputs cost the passes of the two ends: %ld + %ld against %ld + %ld", name, info.forward,
          info.backward, info2.forward, info2.backward);
    int same = 1;
    for (int i = 0; i < N * T; i++)
        for (int j = 0; j < ends; j++) same &= FA[(size_t)i * k + j] == F2[(size_t)i * 2 + j + (top ? 1 : 0)];
    CHECK(same, "%s inputs: the %s gradient_ends' bit for bit", name, top ? "baseline end is" : "two ends are");
    /* a second call reads the baselines kept by the one above */
    float *FW = malloc(sizeof(float) * N * T * k);
    EeAttrInfo iw = {0};
    CHECK_OK(ee_explainer_features(m, inputs, &in, &o, FW, &iw));
    CHECK(iw.kept > 0 && !memcmp(FW, FA, sizeof(float) * N * T * k),
          "%s inputs: a call with the baselines kept (%ld) gives the first call's bits", name, iw.kept);
    free(FW);
    CheckCmp att = CMP_INIT, vp = CMP_INIT;
    for (int i = 0; i < N; i++) {
        for (int t = 0; t < T; t++) mask[t] = ids[i * T + t] != EE_PAD;
        ref_embed(&ref, ids + i * T, ex);
        double out[8];
        ref_net(&ref, ex, mask, out);
        int best = 0;
        for (int q = 1; q < c->classes; q++) if (out[q] > out[best]) best = q;
        double P[8 * 64];
        memcpy(P, ref.clsP, sizeof(double) * H * T);
        RefPoint pt = {&ref, mask, ex, best};
        for (int t = 0; t < T; t++) {
            const float *f = FA + ((size_t)i * T + t) * k;
            for (int h = 0; h < H; h++) {
                cmp_add(&att, f[ends + h], mask[t] ? P[h * T + t] : 0);
                for (int j = l0; j < nl; j++) {
                    ref.vs_t = t;
                    ref.vs_h = h;
                    ref.vs_l = j;
                    ref.vs_scale = 1;
                    double s = gc_fd1(ref_point_target, &pt, &ref.vs_scale, 1e-6);
                    ref.vs_t = -1;
                    cmp_add(&vp, f[ends + H + (j - l0) * H + h], mask[t] ? s : 0);
                }
            }
        }
    }
    CHECK_CMP(att, cmp_bound(&att, 1e-6, 1e-5), "%s inputs: [CLS] attention, max err %.3g (scale %.3g)", name,
              att.err, att.scale);
    CHECK_CMP(vp, cmp_bound(&vp, 1e-5, 1e-3), "%s inputs: value-path scores, max err %.3g (scale %.3g)", name,
              vp.err, vp.scale);
    /* refused where there is no attention layer to read */
    EeModel *cnn = make_model(EE_KIND_CNN, 1, T);
    CHECK(ee_explainer_features(cnn, inputs, &in, &o, FA, NULL) == EE_ERR_UNSUPPORTED,
          "%s inputs refused on a cnn classifier", name);
    ee_model_free(cnn);
    EeConfig z = e;
    z.layers = 0;
    CHECK(ee_config_check(&z) == EE_ERR_MODEL, "%s inputs refused on a transformer without layers", name);
    free(FA); free(F2); free(ex); free(ids);
    ref_free(&ref);
    ee_model_free(m);
}

/* ---- the baselines' gradients kept across calls ---------------------------------- */
/* A second call on the same classifier and rows reads its baselines'
 * passes (info.kept; it counts them all the same) and gives the same
 * bits; after one weight of the classifier changes,
 * the kept entries are not read: the call runs the baselines' passes
 * again and gives the bits of a call on an empty cache, which differ from
 * the first (the change reaches the baseline end). */
static void check_baseline_cache(void)
{
    enum { NB = 6, TB = 8 };
    EeModel *clf = make_model(EE_KIND_TRANSFORMER, 1, TB);
    int32_t ids[NB * TB];
    for (int i = 0; i < NB; i++)
        for (int t = 0; t < TB; t++)
            ids[i * TB + t] = t == 0 ? EE_CLS : t <= 1 + i % 3 ? 5 + (i + t) % 2 : t == 2 + i % 3 ? EE_SEP : EE_PAD;
    EeInput in = {.n = NB, .ids = ids};
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.batch = 4;
    static float cold[NB * TB * 2], warm[NB * TB * 2], changed[NB * TB * 2], fresh[NB * TB * 2];
    EeAttrInfo ic = {0}, iw = {0}, ich = {0}, ifr = {0};
    ee_baseline_cache_clear();
    CHECK_OK(ee_explainer_features(clf, EE_INPUTS_GRADIENT_ENDS, &in, &o, cold, &ic));
    CHECK_OK(ee_explainer_features(clf, EE_INPUTS_GRADIENT_ENDS, &in, &o, warm, &iw));
    long nb = ic.forward - NB; /* the distinct baselines' */
    CHECK(nb > 0 && ic.kept == 0 && iw.forward == ic.forward && iw.backward == ic.backward && iw.kept == 2 * nb,
          "kept baselines: a first call %ld forward passes (%ld kept), the second %ld/%ld, of them %ld kept "
          "(want the same, %ld kept)", ic.forward, ic.kept, iw.forward, iw.backward, iw.kept, 2 * nb);
    CHECK(!memcmp(cold, warm, sizeof cold), "kept baselines give the first call's bits");
    /* the first encoder layer's Wq changes (a bias of the output would
     * leave every gradient as it is) */
    int last = -1;
    EeParamInfo pi;
    for (int i = 0; i < ee_model_nparams(clf) && last < 0; i++) {
        ee_model_param_info(clf, i, &pi);
        if (pi.field && !strcmp(pi.field, "Wq")) last = i;
    }
    REQUIRE(last >= 0, "the transformer has a tensor Wq");
    if (last < 0) { ee_model_free(clf); return; }
    float *w = malloc(sizeof(float) * pi.count);
    CHECK_OK(ee_param_get(clf, last, w, pi.count));
    for (size_t j = 0; j < pi.count; j++) w[j] += 0.25f * (float)((j % 3) + 1);
    CHECK_OK(ee_param_set(clf, last, w, pi.count));
    CHECK_OK(ee_explainer_features(clf, EE_INPUTS_GRADIENT_ENDS, &in, &o, changed, &ich));
    ee_baseline_cache_clear();
    CHECK_OK(ee_explainer_features(clf, EE_INPUTS_GRADIENT_ENDS, &in, &o, fresh, &ifr));
    CHECK(ich.kept == 0 && ifr.kept == 0 && ich.forward == ic.forward && ifr.forward == ic.forward,
          "a changed classifier runs its baselines again: %ld and %ld kept, %ld and %ld forward passes (first "
          "call %ld)", ich.kept, ifr.kept, ich.forward, ifr.forward, ic.forward);
    CHECK(!memcmp(changed, fresh, sizeof fresh), "a changed classifier's features are those of an empty cache");
    int differ = 0;
    for (int j = 0; j < NB * TB; j++) differ |= fresh[j * 2 + 1] != cold[j * 2 + 1];
    CHECK(differ, "the changed weight reaches the baseline end's features");
    free(w);
    ee_model_free(clf);
}

int main(void)
{
    ee_threads_enter();
    ee_rng_seed(&rng, 2024);
    test_nodes();
    check_ig(EE_KIND_TRANSFORMER, 1);
    check_ig(EE_KIND_CNN, 1);
    check_ig(EE_KIND_CNN, 0);
    check_ig(EE_KIND_MLP, 1);
    check_ig(EE_KIND_MLP, 0);
    check_shapley(EE_KIND_TRANSFORMER, 1);
    check_shapley(EE_KIND_CNN, 1);
    check_determinism(EE_KIND_TRANSFORMER);
    check_determinism(EE_KIND_CNN);
    check_features(EE_KIND_TRANSFORMER);
    check_features(EE_KIND_CNN);
    check_attention_features(EE_INPUTS_ATTENTION);
    check_attention_features(EE_INPUTS_ATTENTION_TOP);
    check_explain(EE_KIND_TRANSFORMER);
    check_explain(EE_KIND_CNN);
    check_margin(EE_KIND_TRANSFORMER);
    check_margin(EE_KIND_CNN);
    check_feature_passes();
    check_baseline_cache();
    check_design();
    check_train_features(EE_KIND_TRANSFORMER); /* explainer heads: the transformer only */
    ee_threads_leave();
    return check_finish("test_attr");
}
