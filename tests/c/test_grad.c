/* test_grad.c: the gradient maps and the noise tunnel
 * (ee_gradient_attribute) against an independent double-precision
 * computation from their definition in doc/MODELS.md: the reference
 * model of refmodel.h, its gradients by central differences, at the
 * points that the noise libcore drew defines (libcore hands the noise
 * out, and takes it back as given noise, so both sides see the same
 * draws):
 * - GradientSHAP given the background rows and points libcore drew (and
 *   its noise), on the three kinds; its bad input;
 * - saliency (signed, absolute, L2), gradient x input and IG (3 Gauss-
 *   Legendre nodes, pad baseline), each plain and under SmoothGrad,
 *   SmoothGrad-squared and VarGrad, on a transformer, a cnn and an mlp,
 *   several units per pass; and that the comparison fails when one weight
 *   of the reference is 1 % off;
 * - the noise: its standard deviation, zero at the positions the model
 *   does not attend, the same draws for any batch size and for a row
 *   computed alone at its offset;
 * - the passes (N forward for the targets, N n s forward and backward);
 * - bad input: a negative standard deviation, samples without a noise
 *   tunnel, non-finite given noise;
 * - sensitivity-max of saliency, gradient x input and IG against the
 *   reference given the perturbations libcore drew (check_sensitivity). */
#include "refmodel.h"

static EeRng rng;

static EeModel *make_model(EeKind kind, int T)
{
    EeConfig c;
    refm_config(&c, kind, T, 9, 8, 6);
    return refm_model(&c, 5, 0.5, &rng);
}

/* grad of the target logit at e (n values), central differences */
static void ref_grad(Ref *r, const uint8_t *mask, int target, const double *e, int n, double *g)
{
    double *x = malloc(sizeof(double) * n);
    memcpy(x, e, sizeof(double) * n);
    RefPoint pt = {r, mask, x, target};
    for (int j = 0; j < n; j++) g[j] = gc_fd1(ref_point_target, &pt, &x[j], 1e-6);
    free(x);
}

/* The reference map of row i for every method and noise kind at once:
 * A[method][noise][t]. z: the n samples of noise (W floats each). */
static void ref_maps(Ref *r, const int32_t *ids, const float *xf, const float *z, int n, double sigma_used,
                     double out[EE_GRAD_METHOD_COUNT][EE_NOISE_COUNT][64])
{
    (void)sigma_used;
    const EeConfig *c = &r->c;
    int token = c->kind != EE_KIND_MLP, T = token ? c->T : c->D, per = token ? c->d : 1, W = T * per;
    double *ex = malloc(sizeof(double) * W), *eb = malloc(sizeof(double) * W), *et = malloc(sizeof(double) * W);
    double *g = malloc(sizeof(double) * W), *acc = malloc(sizeof(double) * W), *pt = malloc(sizeof(double) * W);
    uint8_t mask[64];
    int32_t bids[64];
    if (token) {
        for (int t = 0; t < T; t++) {
            mask[t] = ids[t] != EE_PAD;
            bids[t] = EE_IS_SPECIAL(ids[t]) ? ids[t] : EE_PAD;
        }
        ref_embed(r, ids, ex);
        ref_embed(r, bids, eb);
    } else {
        for (int q = 0; q < W; q++) { ex[q] = xf[q]; eb[q] = 0; }
    }
    double o8[8];
    ref_net(r, ex, mask, o8);
    int tg = 0;
    for (int k = 1; k < c->classes; k++) if (o8[k] > o8[tg]) tg = k;
    double S1[EE_GRAD_METHOD_COUNT][64] = {{0}}, S2[EE_GRAD_METHOD_COUNT][64] = {{0}};
    double alpha[3], w[3];
    ee_ig_nodes(EE_IG_GAUSSLEGENDRE, 3, alpha, w);
    for (int k = 0; k < n; k++) {
        for (int q = 0; q < W; q++) et[q] = ex[q] + z[(size_t)k * W + q];
        ref_grad(r, mask, tg, et, W, g);
        memset(acc, 0, sizeof(double) * W);
        for (int p = 0; p < 3; p++) {
            double *gp = malloc(sizeof(double) * W);
            for (int q = 0; q < W; q++) pt[q] = eb[q] + alpha[p] * (et[q] - eb[q]);
            ref_grad(r, mask, tg, pt, W, gp);
            for (int q = 0; q < W; q++) acc[q] += w[p] * gp[q];
            free(gp);
        }
        for (int t = 0; t < T; t++) {
            double a[EE_GRAD_METHOD_COUNT] = {0};
            for (int q = 0; q < per; q++) {
                double gq = g[t * per + q];
                a[EE_GRAD_SALIENCY] += gq;
                a[EE_GRAD_SALIENCY_ABS] += fabs(gq);
                a[EE_GRAD_SALIENCY_L2] += gq * gq;
                a[EE_GRAD_GRADXINPUT] += et[t * per + q] * gq;
                a[EE_GRAD_IG] += (et[t * per + q] - eb[t * per + q]) * acc[t * per + q];
            }
            a[EE_GRAD_SALIENCY_L2] = sqrt(a[EE_GRAD_SALIENCY_L2]);
            for (int mth = 0; mth < EE_GRAD_METHOD_COUNT; mth++) {
                S1[mth][t] += a[mth] / n;
                S2[mth][t] += a[mth] * a[mth] / n;
            }
        }
    }
    for (int mth = 0; mth <= EE_GRAD_IG; mth++)
        for (int t = 0; t < T; t++) {
            out[mth][EE_NOISE_NONE][t] = S1[mth][t]; /* n = 1 with zero noise */
            out[mth][EE_NOISE_SMOOTHGRAD][t] = S1[mth][t];
            out[mth][EE_NOISE_SMOOTHGRAD_SQ][t] = S2[mth][t];
            out[mth][EE_NOISE_VARGRAD][t] = S2[mth][t] - S1[mth][t] * S1[mth][t];
        }
    free(ex); free(eb); free(et); free(g); free(acc); free(pt);
}

/* What every check of a kind starts from: a model of the kind (T
 * positions; make_model), its double reference, and N rows: token ids of
 * real lengths lens[], or, for the mlp, N x D features drawn N(0, 1). */
typedef struct {
    EeModel *m;
    const EeConfig *c;
    const char *kn;   /* the kind's name, for the messages */
    Ref ref;
    int token;        /* a token model (not the mlp) */
    int cols, W;      /* scores per row (T or D); floats of a row's e (T d or D) */
    int32_t *ids;     /* N x T, token models */
    float *x;         /* N x D, the mlp */
    EeInput in;       /* the N rows */
} Fixture;

static void fixture_new(Fixture *f, EeKind kind, int N, int T, const int *lens)
{
    f->m = make_model(kind, T);
    f->c = ee_model_config(f->m);
    f->kn = ee_kind_name(kind);
    ref_load(&f->ref, f->m);
    f->token = kind != EE_KIND_MLP;
    f->cols = f->token ? T : f->c->D;
    f->W = f->token ? T * f->c->d : f->c->D;
    f->ids = f->token ? refm_ids(N, T, lens, &rng) : NULL;
    f->x = NULL;
    if (!f->token) {
        f->x = malloc(sizeof(float) * N * f->W);
        for (int k = 0; k < N * f->W; k++) f->x[k] = (float)ee_rng_normal(&rng);
    }
    f->in = (EeInput){.n = N, .ids = f->ids, .x = f->x};
}

static void fixture_free(Fixture *f)
{
    free(f->ids);
    free(f->x);
    ref_free(&f->ref);
    ee_model_free(f->m);
}

static void check_kind(EeKind kind)
{
    const int N = 3, T = 9, lens[3] = {6, 2, 7}, n = 3;
    const double sigma = 0.3;
    Fixture f;
    fixture_new(&f, kind, N, T, lens);
    float *noise = calloc((size_t)N * n * f.W, sizeof(float)), *noise2 = calloc((size_t)N * n * f.W, sizeof(float));
    float *zero = calloc((size_t)N * f.W, sizeof(float));
    float *A = malloc(sizeof(float) * N * f.cols), *B = malloc(sizeof(float) * N * f.cols);
    EeStatus st0;
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.batch = 4; /* units of several rows share a pass; IG's 3 nodes: one unit per pass */
    o.steps = 3;
    o.seed = 9;
    o.baseline = f.token ? EE_BASELINE_PAD : EE_BASELINE_ZERO;
    /* draw the noise once (smoothgrad saliency), then give it to every run */
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    g.noise = EE_NOISE_SMOOTHGRAD;
    g.samples = n;
    g.stdev = sigma;
    g.drawn = noise;
    EeAttrInfo info = {0};
    CHECK_OK(ee_gradient_attribute(f.m, &f.in, &g, &o, A, &info));
    CHECK(info.forward == (long)N + N * n && info.backward == (long)N * n,
          "%s smoothgrad saliency: %ld forward, %ld backward passes, %d and %d expected", f.kn, info.forward,
          info.backward, N + N * n, N * n);
    /* the noise: sd sigma where attended, 0 elsewhere */
    double sum2 = 0;
    long cnt = 0, nonzero_off = 0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < n; k++)
            for (int q = 0; q < f.W; q++) {
                float v = noise[((size_t)i * n + k) * f.W + q];
                int att = !f.token || f.ids[i * T + q / f.c->d] != EE_PAD;
                if (att) { sum2 += (double)v * v; cnt++; }
                else nonzero_off += v != 0;
            }
    double sd = sqrt(sum2 / cnt);
    CHECK(fabs(sd - sigma) < 0.15 * sigma && nonzero_off == 0,
          "%s noise: sd %.4g over %ld draws (sigma %.3g), %ld nonzero at positions not attended", f.kn, sd, cnt, sigma,
          nonzero_off);
    /* the same draws with any batch, and for the last row alone at its offset */
    EeAttrOptions o1 = o;
    o1.batch = 64;
    g.drawn = noise2;
    CHECK_OK(ee_gradient_attribute(f.m, &f.in, &g, &o1, B, NULL));
    CHECK(!memcmp(noise, noise2, sizeof(float) * N * n * f.W) && !memcmp(A, B, sizeof(float) * N * f.cols),
          "%s smoothgrad: the same noise and map for batch 4 and batch 64", f.kn);
    /* one unit per pass: every pass at its own row's length (the cnn's
     * saliency reaches into the pads after the last token) */
    o1.batch = 1;
    CHECK_OK(ee_gradient_attribute(f.m, &f.in, &g, &o1, B, NULL));
    CHECK(!memcmp(A, B, sizeof(float) * N * f.cols), "%s smoothgrad: the same map for batch 4 and batch 1", f.kn);
    EeInput last = {.n = 1, .ids = f.token ? f.ids + 2 * T : NULL, .x = f.token ? NULL : f.x + 2 * f.W};
    o1.row_offset = 2;
    memset(noise2, 0, sizeof(float) * N * n * f.W);
    CHECK_OK(ee_gradient_attribute(f.m, &last, &g, &o1, B, NULL));
    CHECK(!memcmp(noise + (size_t)2 * n * f.W, noise2, sizeof(float) * n * f.W),
          "%s: row 3 alone at offset 2 draws the noise it draws among all rows", f.kn);
    g.drawn = NULL;
    /* every method and kind against the reference, with the same noise */
    double (*R)[EE_GRAD_METHOD_COUNT][EE_NOISE_COUNT][64] = malloc(sizeof *R * N);
    double (*R0)[EE_GRAD_METHOD_COUNT][EE_NOISE_COUNT][64] = malloc(sizeof *R0 * N);
    for (int i = 0; i < N; i++) {
        ref_maps(&f.ref, f.token ? f.ids + i * T : NULL, f.token ? NULL : f.x + i * f.W, noise + (size_t)i * n * f.W, n, sigma, R[i]);
        ref_maps(&f.ref, f.token ? f.ids + i * T : NULL, f.token ? NULL : f.x + i * f.W, zero + (size_t)i * f.W, 1, 0, R0[i]);
    }
    for (int mth = 0; mth <= EE_GRAD_IG; mth++)
        for (int nz = 0; nz < EE_NOISE_COUNT; nz++) {
            g.method = (EeGradMethod)mth;
            g.noise = (EeNoiseKind)nz;
            g.samples = nz ? n : 1;
            g.given = nz ? noise : NULL;
            EeAttrInfo inf = {0};
            CHECK_OK(ee_gradient_attribute(f.m, &f.in, &g, &o, A, &inf));
            int s = mth == EE_GRAD_IG ? 3 : 1;
            long units = (long)N * g.samples;
            CheckCmp cmp = CMP_INIT;
            for (int i = 0; i < N; i++)
                for (int t = 0; t < f.cols; t++) cmp_add(&cmp, A[i * f.cols + t], (nz ? R[i] : R0[i])[mth][nz][t]);
            CHECK_CMP(cmp, cmp_bound(&cmp, 2e-4, 1e-2), "%s %s, noise %s: against the double reference, max err %.3g "
                      "(scale %.3g)", f.kn, ee_grad_method_names[mth], ee_noise_names[nz], cmp.err, cmp.scale);
            if (nz == EE_NOISE_VARGRAD) {
                int neg = 0;
                for (int q = 0; q < N * f.cols; q++) neg += !(A[q] >= 0);
                CHECK(neg == 0, "%s %s vargrad: %d scores below 0 (or NaN)", f.kn, ee_grad_method_names[mth], neg);
            }
            CHECK(inf.forward == N + units * s && inf.backward == units * s,
                  "%s %s, noise %s: %ld forward and %ld backward passes", f.kn, ee_grad_method_names[mth],
                  ee_noise_names[nz], inf.forward, inf.backward);
            if (mth != EE_GRAD_SALIENCY || nz != EE_NOISE_SMOOTHGRAD) continue;
            /* the same comparison with one weight of the reference 1 % off */
            int wi = kind == EE_KIND_MLP ? ee_model_find_param(f.m, "fc", 0, "W")
                     : kind == EE_KIND_CNN ? ee_model_find_param(f.m, "conv", 0, "W")
                                           : ee_model_find_param(f.m, "encoder", 0, "Wv");
            REQUIRE(wi >= 0, "a weight to change");
            if (wi < 0) continue;
            size_t at = f.ref.count[wi] / 2;
            double keep = f.ref.p[wi][at];
            f.ref.p[wi][at] *= 1.01;
            CheckCmp off = CMP_INIT;
            for (int i = 0; i < N; i++) {
                double (*Ri)[EE_NOISE_COUNT][64] = malloc(sizeof(double) * EE_GRAD_METHOD_COUNT * EE_NOISE_COUNT * 64);
                ref_maps(&f.ref, f.token ? f.ids + i * T : NULL, f.token ? NULL : f.x + i * f.W, noise + (size_t)i * n * f.W, n,
                         sigma, Ri);
                for (int t = 0; t < f.cols; t++) cmp_add(&off, A[i * f.cols + t], Ri[mth][nz][t]);
                free(Ri);
            }
            CHECK(!cmp_ok(&off, cmp_bound(&cmp, 2e-4, 1e-2)),
                  "%s smoothgrad saliency: a 1 %% change of one weight of the reference is seen (err %.3g, bound %.3g)",
                  f.kn, off.err, cmp_bound(&cmp, 2e-4, 1e-2));
            f.ref.p[wi][at] = keep;
        }
    /* a unit of more rows than the batch asked for (IG's 3 nodes at batch
     * 2) still runs whole, with the bits of batch 4 (it was refused) */
    g.method = EE_GRAD_IG;
    g.noise = EE_NOISE_NONE;
    g.samples = 1;
    g.given = NULL;
    CHECK_OK(ee_gradient_attribute(f.m, &f.in, &g, &o, A, NULL));
    o1 = o;
    o1.batch = 2;
    st0 = ee_gradient_attribute(f.m, &f.in, &g, &o1, B, NULL);
    CHECK(st0 == EE_OK && !memcmp(A, B, sizeof(float) * N * f.cols), "%s ig at batch 2 < 3 nodes: %s, the bits of batch 4",
          f.kn, ee_status_id(st0));
    /* bad input */
    g.method = EE_GRAD_SALIENCY;
    g.noise = EE_NOISE_SMOOTHGRAD;
    g.given = NULL;
    g.stdev = -0.1;
    EeStatus st = ee_gradient_attribute(f.m, &f.in, &g, &o, A, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "'stdev'"), "%s: stdev -0.1 is %s (%s)", f.kn, ee_status_id(st),
          ee_last_error());
    g.stdev = sigma;
    g.noise = EE_NOISE_NONE;
    g.samples = 4;
    st = ee_gradient_attribute(f.m, &f.in, &g, &o, A, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "'samples'"), "%s: samples without noise is %s (%s)", f.kn,
          ee_status_id(st), ee_last_error());
    g.noise = EE_NOISE_VARGRAD;
    g.samples = n;
    g.given = noise;
    noise[5] = NAN;
    st = ee_gradient_attribute(f.m, &f.in, &g, &o, A, NULL);
    CHECK(st == EE_ERR_INPUT, "%s: NaN in the given noise is %s (%s)", f.kn, ee_status_id(st), ee_last_error());
    free(R); free(R0); free(noise); free(noise2); free(zero); free(A); free(B);
    fixture_free(&f);
}

/* GradientSHAP: given the noise, background rows and points libcore drew,
 * the mean over samples of sum_d (e~ - e_b) g(e_b + a (e~ - e_b)), e_b the
 * embedding of x with its real tokens from the background row. */
static void check_gradientshap(EeKind kind)
{
    const int N = 3, T = 9, lens[3] = {5, 7, 2}, blens[4] = {7, 3, 6, 7}, n = 5, K = 4;
    Fixture f;
    fixture_new(&f, kind, N, T, lens);
    int per = f.token ? f.c->d : 1;
    int32_t *bg = f.token ? refm_ids(K, T, blens, &rng) : NULL;
    float *bx = NULL;
    if (!f.token) {
        bx = malloc(sizeof(float) * K * f.W);
        for (int k = 0; k < K * f.W; k++) bx[k] = (float)(0.5 * ee_rng_normal(&rng));
    }
    float *noise = malloc(sizeof(float) * N * n * f.W), *alpha = malloc(sizeof(float) * N * n);
    float *A = malloc(sizeof(float) * N * f.cols);
    int32_t *base = malloc(sizeof(int32_t) * N * n);
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.batch = 4;
    o.seed = 21;
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    g.method = EE_GRAD_GRADIENTSHAP;
    g.samples = n;
    g.stdev = 0.1;
    g.background_ids = bg;
    g.background_x = bx;
    g.K = K;
    g.drawn = noise;
    g.drawn_baseline = base;
    g.drawn_alpha = alpha;
    EeAttrInfo info = {0};
    CHECK_OK(ee_gradient_attribute(f.m, &f.in, &g, &o, A, &info));
    int in_range = 1, used[4] = {0};
    for (int q = 0; q < N * n; q++) {
        in_range &= base[q] >= 0 && base[q] < K && alpha[q] >= 0 && alpha[q] < 1;
        if (base[q] >= 0 && base[q] < K) used[base[q]] = 1;
    }
    CHECK(in_range && used[0] + used[1] + used[2] + used[3] >= 3 && info.forward == N + N * n && info.backward == N * n,
          "%s gradientshap: background rows in 0..%d and a in [0, 1) drawn (%d of them used), %ld forward and %ld "
          "backward passes", f.kn, K - 1, used[0] + used[1] + used[2] + used[3], info.forward, info.backward);
    CheckCmp cmp = CMP_INIT;
    double *ex = malloc(sizeof(double) * f.W), *eb = malloc(sizeof(double) * f.W), *et = malloc(sizeof(double) * f.W);
    double *pt = malloc(sizeof(double) * f.W), *gr = malloc(sizeof(double) * f.W);
    for (int i = 0; i < N; i++) {
        uint8_t mask[64];
        int32_t bids[64];
        if (f.token) {
            for (int t = 0; t < T; t++) mask[t] = f.ids[i * T + t] != EE_PAD;
            ref_embed(&f.ref, f.ids + i * T, ex);
        } else
            for (int q = 0; q < f.W; q++) ex[q] = f.x[i * f.W + q];
        double out[8];
        ref_net(&f.ref, ex, mask, out);
        int tg = 0;
        for (int k = 1; k < f.c->classes; k++) if (out[k] > out[tg]) tg = k;
        double phi[64] = {0};
        for (int k = 0; k < n; k++) {
            int b = base[i * n + k];
            if (f.token) {
                for (int t = 0; t < T; t++) bids[t] = EE_IS_SPECIAL(f.ids[i * T + t]) ? f.ids[i * T + t] : bg[b * T + t];
                ref_embed(&f.ref, bids, eb);
            } else
                for (int q = 0; q < f.W; q++) eb[q] = bx[b * f.W + q];
            for (int q = 0; q < f.W; q++) {
                et[q] = ex[q] + noise[((size_t)i * n + k) * f.W + q];
                pt[q] = eb[q] + alpha[i * n + k] * (et[q] - eb[q]);
            }
            ref_grad(&f.ref, mask, tg, pt, f.W, gr);
            for (int t = 0; t < f.cols; t++)
                for (int q = 0; q < per; q++) phi[t] += (et[t * per + q] - eb[t * per + q]) * gr[t * per + q] / n;
        }
        for (int t = 0; t < f.cols; t++) cmp_add(&cmp, A[i * f.cols + t], phi[t]);
    }
    CHECK_CMP(cmp, cmp_bound(&cmp, 2e-4, 1e-2), "%s gradientshap against the double reference: max err %.3g (scale %.3g)",
              f.kn, cmp.err, cmp.scale);
    /* bad input: no background, a token outside the vocabulary, a noise tunnel */
    g.K = 0;
    EeStatus st = ee_gradient_attribute(f.m, &f.in, &g, &o, A, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "'background'"), "%s gradientshap without background: %s (%s)",
          f.kn, ee_status_id(st), ee_last_error());
    g.K = K;
    if (f.token) {
        bg[5] = f.c->vocab;
        st = ee_gradient_attribute(f.m, &f.in, &g, &o, A, NULL);
        CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "'background'(1,6)"), "%s gradientshap, id out of range: %s (%s)",
              f.kn, ee_status_id(st), ee_last_error());
        bg[5] = 4;
    }
    g.noise = EE_NOISE_VARGRAD;
    st = ee_gradient_attribute(f.m, &f.in, &g, &o, A, NULL);
    CHECK(st == EE_ERR_INPUT, "%s gradientshap in a noise tunnel: %s (%s)", f.kn, ee_status_id(st), ee_last_error());
    free(ex); free(eb); free(et); free(pt); free(gr);
    free(bg); free(bx); free(noise); free(alpha); free(A); free(base);
    fixture_free(&f);
}

/* The reference sensitivity of row i for method mth: the largest over the
 * S given perturbations of ||A(e + z_k) - A(e)|| / ||A(e)||, from the
 * double reference maps; `mean` and `raw` are the mutations the test must
 * tell apart (the mean over k instead of the max; no division). */
static double ref_sensitivity(Ref *r, const int32_t *ids, const float *xf, const float *z, int S, int W, int cols,
                              int mth, int mean, int raw)
{
    double (*M0)[EE_NOISE_COUNT][64] = malloc(sizeof(double) * EE_GRAD_METHOD_COUNT * EE_NOISE_COUNT * 64);
    double (*Mk)[EE_NOISE_COUNT][64] = malloc(sizeof(double) * EE_GRAD_METHOD_COUNT * EE_NOISE_COUNT * 64);
    float *zero = calloc((size_t)W, sizeof(float));
    ref_maps(r, ids, xf, zero, 1, 0, M0);
    double n0 = 0, best = 0, sum = 0;
    for (int t = 0; t < cols; t++) n0 += M0[mth][EE_NOISE_NONE][t] * M0[mth][EE_NOISE_NONE][t];
    n0 = sqrt(n0);
    for (int k = 0; k < S; k++) {
        ref_maps(r, ids, xf, z + (size_t)k * W, 1, 0, Mk);
        double dn = 0;
        for (int t = 0; t < cols; t++) {
            double d = Mk[mth][EE_NOISE_SMOOTHGRAD][t] - M0[mth][EE_NOISE_NONE][t];
            dn += d * d;
        }
        dn = sqrt(dn) / (raw || n0 == 0 ? 1 : n0);
        sum += dn / S;
        if (k == 0 || dn > best) best = dn;
    }
    free(M0); free(Mk); free(zero);
    return mean ? sum : best;
}

/* Sensitivity-max (ee_sensitivity_max) of saliency, gradient x input and
 * IG against the double reference given the perturbations libcore drew;
 * the draws (uniform in [-r, r], 0 where not attended, the same for any
 * batch and for a row alone at its offset); its passes; mutations of the
 * definition (mean for max, no normalisation, a 1 % weight) that the
 * comparison must see; bad input. */
static void check_sensitivity(EeKind kind)
{
    const int N = 3, T = 9, lens[3] = {5, 2, 7}, S = 4;
    const double radius = 0.4;
    Fixture f;
    fixture_new(&f, kind, N, T, lens);
    float *z = calloc((size_t)N * S * f.W, sizeof(float)), *z2 = calloc((size_t)N * S * f.W, sizeof(float));
    double sens[3], sens2[3];
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.batch = 4;
    o.steps = 3;
    o.seed = 5;
    o.baseline = f.token ? EE_BASELINE_PAD : EE_BASELINE_ZERO;
    EeGradOptions g;
    ee_grad_options_defaults(&g);
    const EeGradMethod methods[3] = {EE_GRAD_SALIENCY, EE_GRAD_GRADXINPUT, EE_GRAD_IG};
    for (int q = 0; q < 3; q++) {
        g.method = methods[q];
        const char *mn = ee_grad_method_names[g.method];
        int s = g.method == EE_GRAD_IG ? 3 : 1;
        EeAttrInfo info = {0};
        CHECK_OK(ee_sensitivity_max(f.m, &f.in, &g, &o, S, radius, NULL, z, sens, &info));
        CHECK(info.forward == (long)N + N * s + N * S + (long)N * S * s && info.backward == (long)N * s + (long)N * S * s,
              "%s sensitivity %s: %ld forward, %ld backward passes", f.kn, mn, info.forward, info.backward);
        CheckCmp cmp = CMP_INIT, mean = CMP_INIT, raw = CMP_INIT;
        for (int i = 0; i < N; i++) {
            const int32_t *ri = f.token ? f.ids + i * T : NULL;
            const float *xi = f.token ? NULL : f.x + i * f.W, *zi = z + (size_t)i * S * f.W;
            cmp_add(&cmp, sens[i], ref_sensitivity(&f.ref, ri, xi, zi, S, f.W, f.cols, g.method, 0, 0));
            cmp_add(&mean, sens[i], ref_sensitivity(&f.ref, ri, xi, zi, S, f.W, f.cols, g.method, 1, 0));
            cmp_add(&raw, sens[i], ref_sensitivity(&f.ref, ri, xi, zi, S, f.W, f.cols, g.method, 0, 1));
        }
        /* the maps agree to ~1e-6 of their scale; a 1 % weight moves the ratio by ~1e-4 */
        double bound = cmp_bound(&cmp, 2e-5, 1e-2);
        CHECK_CMP(cmp, bound, "%s sensitivity %s against the double reference (scale %.3g)", f.kn, mn, cmp.scale);
        CHECK(!cmp_ok(&mean, bound) && !cmp_ok(&raw, bound),
              "%s sensitivity %s: the mean over k (err %.3g) and the unnormalised norm (err %.3g) are told apart", f.kn,
              mn, mean.err, raw.err);
        CHECK(sens[0] > 0 && sens[1] > 0 && sens[2] > 0, "%s sensitivity %s: > 0 at radius %g (%g %g %g)", f.kn, mn,
              radius, sens[0], sens[1], sens[2]);
        if (q == 0) {
            /* the draws: within [-r, r], spread over it, 0 where not attended */
            long off = 0, out = 0, cnt = 0;
            double sum2 = 0;
            for (int i = 0; i < N; i++)
                for (int k = 0; k < S; k++)
                    for (int e = 0; e < f.W; e++) {
                        float v = z[((size_t)i * S + k) * f.W + e];
                        int att = !f.token || f.ids[i * T + e / f.c->d] != EE_PAD;
                        if (!att) off += v != 0;
                        else { out += !(fabs(v) <= radius); sum2 += (double)v * v; cnt++; }
                    }
            double sd = sqrt(sum2 / cnt), want = radius / sqrt(3.0);
            CHECK(off == 0 && out == 0 && fabs(sd - want) < 0.15 * want,
                  "%s perturbations: %ld nonzero where not attended, %ld beyond r, sd %.4g (uniform: %.4g)", f.kn, off,
                  out, sd, want);
            /* the same draws and values with another batch, and for row 3 alone at its offset */
            EeAttrOptions o1 = o;
            o1.batch = 64;
            CHECK_OK(ee_sensitivity_max(f.m, &f.in, &g, &o1, S, radius, NULL, z2, sens2, NULL));
            CHECK(!memcmp(z, z2, sizeof(float) * N * S * f.W) && !memcmp(sens, sens2, sizeof sens),
                  "%s sensitivity: the same draws and values for batch 4 and 64", f.kn);
            EeInput last = {.n = 1, .ids = f.token ? f.ids + 2 * T : NULL, .x = f.token ? NULL : f.x + 2 * f.W};
            o1.row_offset = 2;
            CHECK_OK(ee_sensitivity_max(f.m, &last, &g, &o1, S, radius, NULL, z2, sens2, NULL));
            CHECK(!memcmp(z + (size_t)2 * S * f.W, z2, sizeof(float) * S * f.W) && sens2[0] == sens[2],
                  "%s sensitivity: row 3 alone at offset 2 draws what it draws among all rows", f.kn);
            /* given = drawn: the same values */
            CHECK_OK(ee_sensitivity_max(f.m, &f.in, &g, &o, S, radius, z, NULL, sens2, NULL));
            CHECK(!memcmp(sens, sens2, sizeof sens), "%s sensitivity: the drawn perturbations given back", f.kn);
            /* one weight of the reference 1 % off */
            int wi = kind == EE_KIND_MLP ? ee_model_find_param(f.m, "fc", 0, "W")
                     : kind == EE_KIND_CNN ? ee_model_find_param(f.m, "conv", 0, "W")
                                           : ee_model_find_param(f.m, "encoder", 0, "Wv");
            REQUIRE(wi >= 0, "a weight to change");
            if (wi >= 0) {
                size_t at = f.ref.count[wi] / 2;
                double keep = f.ref.p[wi][at];
                f.ref.p[wi][at] *= 1.01;
                CheckCmp w1 = CMP_INIT;
                for (int i = 0; i < N; i++)
                    cmp_add(&w1, sens[i], ref_sensitivity(&f.ref, f.token ? f.ids + i * T : NULL, f.token ? NULL : f.x + i * f.W,
                                                          z + (size_t)i * S * f.W, S, f.W, f.cols, g.method, 0, 0));
                CHECK(!cmp_ok(&w1, bound), "%s sensitivity: a 1 %% change of one reference weight is seen (err %.3g, "
                      "bound %.3g)", f.kn, w1.err, bound);
                f.ref.p[wi][at] = keep;
            }
        }
    }
    /* bad input */
    g.method = EE_GRAD_SALIENCY;
    EeStatus st = ee_sensitivity_max(f.m, &f.in, &g, &o, S, -0.1, NULL, NULL, sens, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "'radius'"), "%s: radius -0.1 is %s (%s)", f.kn,
          ee_status_id(st), ee_last_error());
    st = ee_sensitivity_max(f.m, &f.in, &g, &o, 0, radius, NULL, NULL, sens, NULL);
    CHECK(st == EE_ERR_INPUT, "%s: 0 perturbations is %s (%s)", f.kn, ee_status_id(st), ee_last_error());
    g.noise = EE_NOISE_SMOOTHGRAD;
    st = ee_sensitivity_max(f.m, &f.in, &g, &o, S, radius, NULL, NULL, sens, NULL);
    CHECK(st == EE_ERR_UNSUPPORTED, "%s: sensitivity of a noise tunnel is %s (%s)", f.kn, ee_status_id(st), ee_last_error());
    g.noise = EE_NOISE_NONE;
    z[7] = NAN;
    st = ee_sensitivity_max(f.m, &f.in, &g, &o, S, radius, z, NULL, sens, NULL);
    CHECK(st == EE_ERR_INPUT, "%s: NaN in the given perturbations is %s (%s)", f.kn, ee_status_id(st), ee_last_error());
    free(z); free(z2);
    fixture_free(&f);
}

int main(void)
{
    ee_threads_enter();
    ee_rng_seed(&rng, 31);
    check_kind(EE_KIND_TRANSFORMER);
    check_kind(EE_KIND_CNN);
    check_kind(EE_KIND_MLP);
    check_gradientshap(EE_KIND_TRANSFORMER);
    check_gradientshap(EE_KIND_CNN);
    check_gradientshap(EE_KIND_MLP);
    check_sensitivity(EE_KIND_TRANSFORMER);
    check_sensitivity(EE_KIND_CNN);
    check_sensitivity(EE_KIND_MLP);
    ee_threads_leave();
    return check_finish("test_grad");
}
