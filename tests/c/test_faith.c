/* test_faith.c: the faithfulness measures (ee_faithfulness) against an
 * independent double-precision computation from their definition in
 * doc/MODELS.md, with the reference model of refmodel.h:
 * - every field (comprehensiveness, sufficiency and their bins, deletion
 *   and insertion areas and curves, the log-odds drop, targets, scores)
 *   on a transformer, a cnn and an mlp, for the probability and the logit
 *   score, every-count and 7-step curves, pad and given baseline ids,
 *   several rows per pass; and that the same comparison fails when one
 *   weight of the reference is 1 % off;
 * - the passes: one per distinct perturbed copy and one per row;
 * - the same bits for any batch size;
 * - a model whose true ranking is known: a linear bag-of-words classifier
 *   (an mlp without hidden layers, 2 classes), whose exact attribution of
 *   the log-odds, x_f (W_f,t - W_f,o), gives for every bin the largest
 *   comprehensiveness and the smallest sufficiency any map can give, and
 *   the smallest deletion and largest insertion areas among the maps
 *   tested; it beats a random map by a margin over 200 rows;
 * - bad input: non-finite maps, the zero baseline of a token model, the
 *   curve steps and the log-odds percentage out of range. */
#include "refmodel.h"

static EeRng rng;

static EeModel *make_model(EeKind kind, int T)
{
    EeConfig c;
    refm_config(&c, kind, T, 11, 8, 6);
    return refm_model(&c, 7, 0.6, &rng);
}

/* ---- the reference, from the definition ------------------------------------------- */
typedef struct {
    double comp, suff, dauc, iauc, lod, cb[5], sb[5], *dcurve, *icurve, fx, fb, infd, infn;
    int target, n;
} RefRow;

static double ref_score(const double *z, int C, int t, int logit)
{
    if (logit) return z[t];
    double mx = z[0], s = 0;
    for (int c = 1; c < C; c++) mx = fmax(mx, z[c]);
    for (int c = 0; c < C; c++) s += exp(z[c] - mx);
    return exp(z[t] - mx) / s;
}

static double ref_log_odds(const double *z, int C, int t)
{
    double p = ref_score(z, C, t, 0);
    return log(p) - log1p(-p);
}

/* Row i: players = real tokens (or all D features), ranked by A (largest
 * first, ties to the lower position, by selection); removed players take
 * the baseline; every D_j and I_j evaluated (j = 0..n). */
static void ref_row(Ref *r, const int32_t *ids, const int32_t *bids, const double *x, const float *A, int steps,
                    int logodds_pct, int logit, int ninf, uint64_t seed, long row, RefRow *o)
{
    const EeConfig *c = &r->c;
    int token = c->kind != EE_KIND_MLP, W = token ? c->T : c->D, C = c->classes;
    int pos[64], n = 0;
    for (int t = 0; t < W; t++)
        if (!token || !EE_IS_SPECIAL(ids[t])) pos[n++] = t;
    for (int a = 0; a < n; a++) { /* selection sort: largest score, then lowest position */
        int best = a;
        for (int b = a + 1; b < n; b++)
            if (A[pos[b]] > A[pos[best]] || (A[pos[b]] == A[pos[best]] && pos[b] < pos[best])) best = b;
        int tmp = pos[a]; pos[a] = pos[best]; pos[best] = tmp;
    }
    uint8_t mask[64];
    for (int t = 0; token && t < W; t++) mask[t] = ids[t] != EE_PAD;
    double z[8], D[65], I[65], lo[65];
    ref_logits(r, ids, mask, x, z);
    int tg = 0;
    for (int k = 1; k < C; k++) if (z[k] > z[tg]) tg = k;
    o->target = tg;
    o->n = n;
    int32_t cur[64];
    double xd[64];
    for (int del = 0; del <= 1; del++)
        for (int j = 0; j <= n; j++) {
            /* the copy: x without its top j (del), or the baseline with them */
            char top[64] = {0};
            for (int q = 0; q < j; q++) top[pos[q]] = 1;
            for (int t = 0; t < W; t++) {
                int from_x = del ? !top[t] : top[t];
                if (token) cur[t] = EE_IS_SPECIAL(ids[t]) ? ids[t] : from_x ? ids[t] : bids[t];
                else xd[t] = from_x ? x[t] : 0;
            }
            ref_logits(r, cur, mask, xd, z);
            (del ? D : I)[j] = ref_score(z, C, tg, logit);
            if (del) lo[j] = ref_log_odds(z, C, tg);
        }
    o->fx = D[0];
    o->fb = D[n];
    if (n == 0) return;
    const int bins[5] = {1, 5, 10, 20, 50};
    o->comp = o->suff = 0;
    for (int k = 0; k < 5; k++) {
        int m = (int)ceil(bins[k] * n / 100.0 - 1e-12);
        o->cb[k] = D[0] - D[m];
        o->sb[k] = D[0] - I[m];
        o->comp += o->cb[k] / 5;
        o->suff += o->sb[k] / 5;
    }
    int K = steps ? steps : n;
    o->dauc = o->iauc = 0;
    for (int q = 0; q <= K; q++) {
        int j = steps ? (int)floor((double)q * n / K + 0.5) : q;
        if (steps) { o->dcurve[q] = D[j]; o->icurve[q] = I[j]; }
        if (q == K) break;
        int j1 = steps ? (int)floor((double)(q + 1) * n / K + 0.5) : q + 1;
        o->dauc += (j1 - j) / (double)n * (D[j] + D[j1]) / 2;
        o->iauc += (j1 - j) / (double)n * (I[j] + I[j1]) / 2;
    }
    int m = (int)ceil(logodds_pct * n / 100.0 - 1e-12);
    o->lod = lo[0] - lo[m];
    /* infidelity: subsets from the documented stream, the target logit */
    double zx[8];
    ref_logits(r, ids, mask, x, zx);
    o->infd = 0;
    double sk[64], dk[64];
    for (int k = 0; k < ninf && k < 64; k++) {
        EeRng g;
        ee_rng_stream(&g, seed, (uint64_t)row, (3ULL << 32) + (uint64_t)k);
        double sa = 0;
        for (int t = 0; t < W; t++) {
            if (token) cur[t] = ids[t];
            else xd[t] = x[t];
            if ((!token || !EE_IS_SPECIAL(ids[t])) && ee_rng_uniform(&g) < 0.5) {
                if (token) cur[t] = bids[t];
                else xd[t] = 0;
                sa += A[t];
            }
        }
        ref_logits(r, cur, mask, xd, z);
        double e = sa - (zx[tg] - z[tg]);
        o->infd += e * e / ninf;
        sk[k] = sa;
        dk[k] = zx[tg] - z[tg];
    }
    /* normalised: beta minimising sum (beta s - d)^2, then the mean square */
    double num = 0, den = 0;
    for (int k = 0; k < ninf; k++) { num += sk[k] * dk[k]; den += sk[k] * sk[k]; }
    double beta = den > 0 ? num / den : 0;
    o->infn = 0;
    for (int k = 0; k < ninf; k++) o->infn += (beta * sk[k] - dk[k]) * (beta * sk[k] - dk[k]) / ninf;
}

/* ---- libcore against the reference --------------------------------------------------- */
typedef struct {
    double comp[8], suff[8], dauc[8], iauc[8], lod[8], cb[40], sb[40], dc[8 * 8], ic[8 * 8], fx[8], fb[8], inf[8], infn[8];
    int32_t tg[8], nreal[8];
} Got;

static EeStatus run_faith(EeModel *m, const EeInput *in, const float *A, const EeAttrOptions *o,
                          const EeFaithOptions *f, Got *g, long *fwd)
{
    EeFaithResult res = {g->comp, g->suff, g->dauc, g->iauc, g->lod, g->cb, g->sb,
                         f->steps ? g->dc : NULL, f->steps ? g->ic : NULL, g->tg, g->nreal, g->fx, g->fb, g->inf, g->infn, 0, 0};
    EeStatus st = ee_faithfulness(m, in, A, o, f, &res);
    if (fwd) *fwd = res.forward;
    return st;
}

/* Adds every field of rows 0..N-1 to cmp; *tmis counts wrong targets. */
static void compare(Ref *ref, const Got *g, const int32_t *ids, const int32_t *bids, const float *xf, const float *A,
                    int N, const EeFaithOptions *f, uint64_t seed, CheckCmp *cmp, int *tmis, long *copies)
{
    const EeConfig *c = &ref->c;
    int token = c->kind != EE_KIND_MLP, W = token ? c->T : c->D;
    double dcurve[8], icurve[8], xd[64];
    for (int i = 0; i < N; i++) {
        RefRow r = {.dcurve = dcurve, .icurve = icurve};
        for (int t = 0; !token && t < W; t++) xd[t] = xf[i * W + t];
        ref_row(ref, token ? ids + i * W : NULL, token ? bids + i * W : NULL, xd, A + i * W, f->steps,
                f->logodds_percent, f->score == EE_FAITH_LOGIT, f->infidelity_samples, seed, i, &r);
        *tmis += g->tg[i] != r.target || g->nreal[i] != r.n;
        cmp_add(cmp, g->fx[i], r.fx);
        cmp_add(cmp, g->fb[i], r.fb);
        cmp_add(cmp, g->comp[i], r.comp);
        cmp_add(cmp, g->suff[i], r.suff);
        cmp_add(cmp, g->dauc[i], r.dauc);
        cmp_add(cmp, g->iauc[i], r.iauc);
        cmp_add(cmp, g->lod[i], r.lod);
        if (f->infidelity_samples) {
            cmp_add(cmp, g->inf[i], r.infd);
            cmp_add(cmp, g->infn[i], r.infn);
        }
        for (int k = 0; k < 5; k++) {
            cmp_add(cmp, g->cb[i * 5 + k], r.cb[k]);
            cmp_add(cmp, g->sb[i * 5 + k], r.sb[k]);
        }
        for (int q = 0; f->steps && q <= f->steps; q++) {
            cmp_add(cmp, g->dc[i * (f->steps + 1) + q], dcurve[q]);
            cmp_add(cmp, g->ic[i * (f->steps + 1) + q], icurve[q]);
        }
        /* the distinct copies the definition asks for: deletion at the
         * curve points, bins and log-odds count (j = n: the baseline),
         * insertion at the curve points and bins (not j = 0 or n) */
        int n = r.n;
        char need[66] = {0};
        int K = f->steps ? f->steps : n;
        for (int q = 0; q <= K && n; q++) need[f->steps ? (int)floor((double)q * n / K + 0.5) : q] |= 3;
        const int bins[5] = {1, 5, 10, 20, 50};
        for (int k = 0; k < 5 && n; k++) need[(int)ceil(bins[k] * n / 100.0 - 1e-12)] |= 3;
        if (n) need[(int)ceil(f->logodds_percent * n / 100.0 - 1e-12)] |= 1;
        if (n) need[n] |= 1;
        *copies += 1; /* the row itself */
        for (int j = 1; j <= n; j++) *copies += (need[j] & 1) + (j < n && (need[j] & 2));
        if (n) *copies += f->infidelity_samples;
    }
}

static void check_reference(EeKind kind)
{
    const int N = 5, T = 12, lens[5] = {9, 3, 10, 1, 6};
    EeModel *m = make_model(kind, T);
    const EeConfig *c = ee_model_config(m);
    Ref ref;
    ref_load(&ref, m);
    int token = kind != EE_KIND_MLP, W = token ? T : c->D;
    int32_t *ids = token ? refm_ids(N, T, lens, &rng) : NULL, *bids = malloc(sizeof(int32_t) * N * T);
    float *x = NULL, *A = malloc(sizeof(float) * N * W);
    if (!token) {
        x = malloc(sizeof(float) * N * W);
        for (int k = 0; k < N * W; k++) x[k] = (float)ee_rng_normal(&rng);
    }
    for (int k = 0; k < N * W; k++) A[k] = (float)ee_rng_normal(&rng);
    A[1 * W + 2] = A[1 * W + 3]; /* a tie: the lower position first */
    EeInput in = {.n = N, .ids = ids, .x = x};
    const char *kn = ee_kind_name(kind);
    for (int variant = 0; variant < 4; variant++) {
        EeAttrOptions o;
        gc_cpu_options(&o);
        o.batch = 3; /* copies of several rows share a pass */
        o.baseline = token ? EE_BASELINE_PAD : EE_BASELINE_ZERO;
        EeFaithOptions f;
        ee_faith_options_defaults(&f);
        f.steps = variant & 1 ? 7 : 0;
        f.score = variant & 2 ? EE_FAITH_LOGIT : EE_FAITH_PROBABILITY;
        f.logodds_percent = variant == 3 ? 100 : 20;
        f.infidelity_samples = variant == 0 || variant == 3 ? 6 : 0;
        /* the given-ids baseline (a real token in every real position) */
        for (int k = 0; k < N * T; k++) bids[k] = EE_PAD;
        if (token && variant == 2) {
            for (int k = 0; k < N * T; k++) bids[k] = 4 + (int)ee_rng_below(&rng, 26);
            o.baseline = EE_BASELINE_IDS;
            o.baseline_ids = bids;
        }
        Got g;
        long fwd = 0, copies = 0;
        CHECK_OK(run_faith(m, &in, A, &o, &f, &g, &fwd));
        CheckCmp cmp = CMP_INIT;
        int tmis = 0;
        compare(&ref, &g, ids, bids, x, A, N, &f, o.seed, &cmp, &tmis, &copies);
        CHECK(tmis == 0, "%s faithfulness variant %d: %d rows with another target or player count than the reference",
              kn, variant, tmis);
        CHECK_CMP(cmp, cmp_bound(&cmp, 1e-4, 1e-2), "%s faithfulness variant %d (steps %d, %s) against the double "
                  "reference: max err %.3g (scale %.3g)", kn, variant, f.steps, ee_faith_score_names[f.score], cmp.err,
                  cmp.scale);
        CHECK(fwd == copies, "%s faithfulness variant %d: %ld forward passes, %ld distinct copies and rows", kn, variant,
              fwd, copies);
        if (variant != 0) continue;
        /* the comparison fails when the reference is 1 % off in one weight
         * (a classifier weight of the target class of row 0) */
        int wi = ee_model_find_param(m, NULL, 0, "Wc");
        if (kind == EE_KIND_MLP) wi = ee_model_find_param(m, "fc", c->nhidden, "W");
        REQUIRE(wi >= 0, "the classifier weight exists");
        if (wi < 0) continue;
        size_t at = (size_t)ref.count[wi] / 2;
        double keep = ref.p[wi][at];
        ref.p[wi][at] *= 1.01;
        CheckCmp off = CMP_INIT;
        int tmis2 = 0;
        long copies2 = 0;
        compare(&ref, &g, ids, bids, x, A, N, &f, o.seed, &off, &tmis2, &copies2);
        CHECK(!cmp_ok(&off, cmp_bound(&off, 1e-4, 1e-2)) || tmis2,
              "%s faithfulness: a 1 %% change of one weight of the reference is seen (err %.3g against bound %.3g)", kn,
              off.err, cmp_bound(&off, 1e-4, 1e-2));
        ref.p[wi][at] = keep;
    }
    /* the same bits for any batch size */
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.baseline = token ? EE_BASELINE_PAD : EE_BASELINE_ZERO;
    EeFaithOptions f;
    ee_faith_options_defaults(&f);
    f.steps = 5;
    Got g1, g2;
    memset(&g1, 0, sizeof g1);
    memset(&g2, 0, sizeof g2);
    o.batch = 1;
    CHECK_OK(run_faith(m, &in, A, &o, &f, &g1, NULL));
    o.batch = 64;
    CHECK_OK(run_faith(m, &in, A, &o, &f, &g2, NULL));
    CHECK(!memcmp(&g1, &g2, sizeof g1), "%s faithfulness: batch 1 and batch 64 give the same bits", kn);
    /* bad input: nothing computed */
    Got g3;
    float keep = A[2];
    A[2] = NAN;
    EeStatus st = run_faith(m, &in, A, &o, &f, &g3, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "A(1,3)"), "%s faithfulness: a NaN in the map is %s (%s)", kn,
          ee_status_id(st), ee_last_error());
    A[2] = keep;
    f.steps = -1;
    st = run_faith(m, &in, A, &o, &f, &g3, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "'steps'"), "%s faithfulness: steps -1 is %s (%s)", kn,
          ee_status_id(st), ee_last_error());
    f.steps = 5;
    f.logodds_percent = 0;
    st = run_faith(m, &in, A, &o, &f, &g3, NULL);
    CHECK(st == EE_ERR_INPUT && strstr(ee_last_error(), "'logodds'"), "%s faithfulness: logodds 0 is %s (%s)", kn,
          ee_status_id(st), ee_last_error());
    f.logodds_percent = 20;
    o.baseline = token ? EE_BASELINE_ZERO : EE_BASELINE_PAD;
    st = run_faith(m, &in, A, &o, &f, &g3, NULL);
    CHECK(st == EE_ERR_INPUT, "%s faithfulness: the %s baseline is %s (%s)", kn, token ? "zero" : "pad",
          ee_status_id(st), ee_last_error());
    free(ids); free(bids); free(x); free(A);
    ref_free(&ref);
    ee_model_free(m);
}

/* ---- a model whose true ranking is known -------------------------------------------- */
static void check_known_ranking(void)
{
    const int N = 200, D = 40;
    EeConfig c;
    ee_config_defaults(&c, EE_KIND_MLP);
    c.D = D;
    c.classes = 2;
    c.nhidden = 0; /* logits = x W + b: a linear bag-of-words classifier */
    EeModel *m;
    CHECK_OK(ee_model_new(&c, &m));
    if (!m) return;
    int wi = ee_model_find_param(m, "fc", 0, "W"), bi = ee_model_find_param(m, "fc", 0, "b");
    REQUIRE(wi >= 0 && bi >= 0, "the linear model's W and b");
    float W[80], b[2] = {0.3f, -0.2f};
    for (int k = 0; k < 2 * D; k++) W[k] = (float)ee_rng_normal(&rng); /* D x 2, column-major */
    CHECK_OK(ee_param_set(m, wi, W, 2 * D));
    CHECK_OK(ee_param_set(m, bi, b, 2));
    /* word counts: most words absent, some once or a few times */
    float *x = malloc(sizeof(float) * N * D), *exact = malloc(sizeof(float) * N * D);
    float *rnd = malloc(sizeof(float) * N * D), *worst = malloc(sizeof(float) * N * D);
    for (int k = 0; k < N * D; k++) {
        double u = ee_rng_uniform(&rng);
        x[k] = u < 0.6 ? 0 : u < 0.85 ? 1 : (float)(2 + ee_rng_below(&rng, 3));
        rnd[k] = (float)ee_rng_normal(&rng);
    }
    float z[2 * 200];
    CHECK_OK(ee_model_predict(m, &(EeInput){.n = N, .x = x}, z, 0, EE_DEVICE_CPU));
    for (int i = 0; i < N; i++) {
        int t = ee_argmax(z + 2 * i, 2), o = 1 - t;
        for (int f = 0; f < D; f++) {
            /* each word's exact share of the log-odds z_t - z_o */
            exact[i * D + f] = x[i * D + f] * (W[f + D * t] - W[f + D * o]);
            worst[i * D + f] = -exact[i * D + f];
        }
    }
    EeAttrOptions o;
    gc_cpu_options(&o);
    o.baseline = EE_BASELINE_ZERO;
    EeFaithOptions f;
    ee_faith_options_defaults(&f);
    f.steps = 0; /* the whole curves */
    double *v[3][6];
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 6; k++) v[a][k] = calloc((size_t)N * 5, sizeof(double));
    const float *maps[3] = {exact, rnd, worst};
    for (int a = 0; a < 3; a++) {
        EeFaithResult res = {.comprehensiveness = v[a][0], .sufficiency = v[a][1], .deletion_auc = v[a][2],
                             .insertion_auc = v[a][3], .comp_bins = v[a][4], .suff_bins = v[a][5]};
        CHECK_OK(ee_faithfulness(m, &(EeInput){.n = N, .x = x}, maps[a], &o, &f, &res));
    }
    /* for every row and bin: no map removes more of the target's
     * probability than the exact one, none keeps more (tolerance: float
     * rounding of the passes) */
    int bad_comp = 0, bad_suff = 0, bad_del = 0, bad_ins = 0;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 5; k++) {
            bad_comp += !(v[0][4][i * 5 + k] >= v[1][4][i * 5 + k] - 1e-6 && v[0][4][i * 5 + k] >= v[2][4][i * 5 + k] - 1e-6);
            bad_suff += !(v[0][5][i * 5 + k] <= v[1][5][i * 5 + k] + 1e-6 && v[0][5][i * 5 + k] <= v[2][5][i * 5 + k] + 1e-6);
        }
        bad_del += !(v[0][2][i] <= v[1][2][i] + 1e-6 && v[1][2][i] <= v[2][2][i] + 1e-6);
        bad_ins += !(v[0][3][i] >= v[1][3][i] - 1e-6 && v[1][3][i] >= v[2][3][i] - 1e-6);
    }
    CHECK(bad_comp == 0, "known ranking: the exact map's comprehensiveness is the largest in every bin (%d of %d "
          "row-bins not)", bad_comp, N * 5);
    CHECK(bad_suff == 0, "known ranking: the exact map's sufficiency is the smallest in every bin (%d of %d not)",
          bad_suff, N * 5);
    CHECK(bad_del == 0, "known ranking: deletion area exact <= random <= reversed (%d of %d rows not)", bad_del, N);
    CHECK(bad_ins == 0, "known ranking: insertion area exact >= random >= reversed (%d of %d rows not)", bad_ins, N);
    /* the margin over the random map: the mean paired difference in
     * comprehensiveness, more than 5 standard errors above 0 */
    double mean = 0, m2 = 0;
    for (int i = 0; i < N; i++) mean += (v[0][0][i] - v[1][0][i]) / N;
    for (int i = 0; i < N; i++) m2 += pow(v[0][0][i] - v[1][0][i] - mean, 2) / (N - 1);
    double se = sqrt(m2 / N);
    printf("known ranking: exact - random comprehensiveness %.4f (se %.4f)\n", mean, se);
    CHECK(isfinite(mean) && mean > 5 * se && mean > 0.05,
          "known ranking: exact beats random in comprehensiveness by %.4g (standard error %.3g) over %d rows", mean, se, N);
    /* infidelity: the exact attribution of the target logit z_t, x_f W_ft
     * (baseline 0), is additive: every subset's sum is z(x) - z(x without
     * it), so its infidelity is 0 up to rounding; a random map's is not */
    float *lin = malloc(sizeof(float) * N * D);
    for (int i = 0; i < N; i++) {
        int t = ee_argmax(z + 2 * i, 2);
        for (int f2 = 0; f2 < D; f2++) lin[i * D + f2] = x[i * D + f2] * W[f2 + D * t];
    }
    double *inf0 = calloc(N, sizeof(double)), *inf1 = calloc(N, sizeof(double));
    f.infidelity_samples = 8;
    EeFaithResult r0 = {.infidelity = inf0}, r1 = {.infidelity = inf1};
    CHECK_OK(ee_faithfulness(m, &(EeInput){.n = N, .x = x}, lin, &o, &f, &r0));
    CHECK_OK(ee_faithfulness(m, &(EeInput){.n = N, .x = x}, rnd, &o, &f, &r1));
    double worst0 = 0, mean1 = 0;
    for (int i = 0; i < N; i++) {
        worst0 = isfinite(inf0[i]) ? fmax(worst0, inf0[i]) : INFINITY;
        mean1 += inf1[i] / N;
    }
    CHECK(worst0 < 1e-8 && mean1 > 1, "known ranking: infidelity of the exact logit map %.3g (largest), of a random map "
          "%.3g (mean)", worst0, mean1);
    /* normalised: a map scaled by any c > 0 scores the same (beta takes c
     * back), and the exact map 10 times larger is still 0 */
    double *n0 = calloc(N, sizeof(double)), *n1 = calloc(N, sizeof(double)), *n2 = calloc(N, sizeof(double));
    EeFaithResult q0 = {.infidelity_normalized = n0}, q1 = {.infidelity_normalized = n1}, q2 = {.infidelity_normalized = n2};
    float *lin10 = malloc(sizeof(float) * N * D), *rnd3 = malloc(sizeof(float) * N * D);
    for (int k = 0; k < N * D; k++) { lin10[k] = 10 * lin[k]; rnd3[k] = 3 * rnd[k]; }
    CHECK_OK(ee_faithfulness(m, &(EeInput){.n = N, .x = x}, lin10, &o, &f, &q0));
    CHECK_OK(ee_faithfulness(m, &(EeInput){.n = N, .x = x}, rnd, &o, &f, &q1));
    CHECK_OK(ee_faithfulness(m, &(EeInput){.n = N, .x = x}, rnd3, &o, &f, &q2));
    CheckCmp sc = CMP_INIT;
    double w0 = 0;
    for (int i = 0; i < N; i++) {
        cmp_add(&sc, n2[i], n1[i]);
        w0 = isfinite(n0[i]) ? fmax(w0, n0[i]) : INFINITY;
    }
    CHECK(w0 < 1e-6 && cmp_ok(&sc, 1e-6 * fmax(sc.scale, 1)) && sc.scale > 0,
          "known ranking: normalised infidelity of 10 x the exact map %.3g, of a random map and 3 x it differ by %.3g "
          "(scale %.3g)", w0, sc.err, sc.scale);
    free(n0); free(n1); free(n2); free(lin10); free(rnd3);
    free(lin); free(inf0); free(inf1);
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 6; k++) free(v[a][k]);
    free(x); free(exact); free(rnd); free(worst);
    ee_model_free(m);
}

int main(void)
{
    ee_threads_enter();
    ee_rng_seed(&rng, 77);
    check_reference(EE_KIND_TRANSFORMER);
    check_reference(EE_KIND_CNN);
    check_reference(EE_KIND_MLP);
    check_known_ranking();
    ee_threads_leave();
    return check_finish("test_faith");
}
