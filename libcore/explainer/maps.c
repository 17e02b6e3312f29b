/* maps.c: the attribution maps an Empirical Explainer trains on, computed
 * from a method's name with that method's defaults. ee_train (clf, X,
 * METHOD) and `ee train-explainer --targets METHOD` both call these, so
 * that one table decides which libcore call and which settings a name
 * stands for, and the two front ends' explainers agree bit for bit. */
#include "explainer.h"

#include <string.h>

const char *const ee_map_method_names[EE_MAP_METHOD_COUNT] = {
    "ig",         "sv",         "saliency",      "saliency_abs", "saliency_l2", "gradxinput", "deeplift",
    "smoothgrad", "smoothgrad_sq", "vargrad",   "occlusion",    "kernelshap",  "lime"};

int ee_map_method_find(const char *name)
{
    for (int k = 0; name && k < EE_MAP_METHOD_COUNT; k++)
        if (!strcmp(name, ee_map_method_names[k])) return k;
    return -1;
}

static int valid(int k) { return k >= 0 && k < EE_MAP_METHOD_COUNT; }
static int coalition(int k) { return k >= EE_MAP_OCCLUSION && k < EE_MAP_METHOD_COUNT; }
static int tunnel(int k) { return k >= EE_MAP_SMOOTHGRAD && k <= EE_MAP_VARGRAD; }

long ee_map_method_max_samples(int k)
{
    if (k == EE_MAP_IG || k == EE_MAP_SV) return 1L << 20;
    if (k == EE_MAP_KERNELSHAP || k == EE_MAP_LIME) return 1L << 24;
    return 0; /* deterministic, or noise samples fixed at ee_gradient's default */
}

EeMapsSource ee_map_method_source(int k)
{
    /* the coalition methods' maps are read like Shapley maps: by default
     * with each token's occlusion scores (feature ablation's own values) */
    return k == EE_MAP_IG ? EE_MAPS_IG : k == EE_MAP_SV || coalition(k) ? EE_MAPS_SV : EE_MAPS_GIVEN;
}

int ee_map_method_complete(int k)
{
    /* maps that sum to f(x) - f(baseline): the explainer's efficiency
     * projection applies by default to these only */
    return k == EE_MAP_IG || k == EE_MAP_SV || k == EE_MAP_DEEPLIFT || k == EE_MAP_KERNELSHAP;
}

int ee_map_method_signed(int k)
{
    return valid(k) && k != EE_MAP_SALIENCY_ABS && k != EE_MAP_SALIENCY_L2 && k != EE_MAP_SMOOTHGRAD_SQ &&
           k != EE_MAP_VARGRAD;
}

/* The ee_gradient options of a gradient method (its defaults; the noise
 * tunnels over the signed saliency with 10 samples of stdev 0.15). */
static void gradient_options(int k, EeGradOptions *g)
{
    ee_grad_options_defaults(g);
    if (tunnel(k)) {
        g->noise = (EeNoiseKind)(EE_NOISE_SMOOTHGRAD + (k - EE_MAP_SMOOTHGRAD));
        g->samples = 10;
        g->stdev = 0.15;
        return;
    }
    for (int m = 0; m < EE_GRAD_METHOD_COUNT; m++)
        if (!strcmp(ee_grad_method_names[m], ee_map_method_names[k])) g->method = (EeGradMethod)m;
}

static void coalition_options(int k, long samples, EeCoalitionModelOptions *c)
{
    memset(c, 0, sizeof *c);
    c->m.kind = k == EE_MAP_OCCLUSION ? EE_COAL_OCCLUSION : k == EE_MAP_KERNELSHAP ? EE_COAL_KERNELSHAP : EE_COAL_LIME;
    if (samples > 0) c->m.samples = samples; /* else the method's 2 n + 2048 per row */
}

static EeStatus check(int k, long samples)
{
    if (!valid(k)) return ee_fail(EE_ERR_INPUT, "unknown map method %d", k);
    long max = ee_map_method_max_samples(k);
    if (samples > 0 && !max)
        return ee_fail(EE_ERR_INPUT, "the samples apply to the maps of ig, sv, kernelshap or lime, not %s",
                       ee_map_method_names[k]);
    if (samples > max) return ee_fail(EE_ERR_INPUT, "%s takes at most %ld samples, got %ld", ee_map_method_names[k],
                                      max, samples);
    return EE_OK;
}

/* The caller's options with the method's samples (ig, sv: its steps). */
static void options(int k, const EeAttrOptions *o, long samples, EeAttrOptions *a)
{
    *a = *o;
    if ((k == EE_MAP_IG || k == EE_MAP_SV) && samples > 0) a->steps = (int)samples;
}

double ee_map_method_bytes(const EeModel *clf, int k, const EeInput *in, const EeAttrOptions *o, long samples)
{
    if (check(k, samples)) return 0;
    EeAttrOptions a;
    options(k, o, samples, &a);
    if (k == EE_MAP_IG) return ee_ig_bytes(clf, in->n, &a);
    if (k == EE_MAP_SV) return ee_sv_bytes(clf, in, &a, 0);
    if (coalition(k)) {
        EeCoalitionModelOptions c;
        coalition_options(k, samples, &c);
        return ee_coalition_attribute_bytes(clf, in, &a, &c);
    }
    EeGradOptions g;
    gradient_options(k, &g);
    return ee_gradient_bytes(clf, in->n, &g, &a);
}

EeStatus ee_map_method_maps(EeModel *clf, int k, const EeInput *in, const EeAttrOptions *o, long samples, float *A,
                            EeAttrInfo *info)
{
    EeStatus st = check(k, samples);
    if (st) return st;
    EeAttrOptions a;
    options(k, o, samples, &a);
    if (k == EE_MAP_IG) return ee_ig_attribute(clf, in, &a, A, info);
    if (k == EE_MAP_SV) return ee_sv_attribute(clf, in, &a, A, info);
    if (coalition(k)) {
        EeCoalitionModelOptions c;
        coalition_options(k, samples, &c);
        return ee_coalition_attribute(clf, in, &a, &c, A, info);
    }
    EeGradOptions g;
    gradient_options(k, &g);
    return ee_gradient_attribute(clf, in, &g, &a, A, info);
}

int ee_map_method_settings(int k, long samples, const char **names, double *values)
{
    int n = 0;
#define SET(name, value) (names[n] = (name), values[n++] = (value))
    if (k == EE_MAP_IG || k == EE_MAP_SV) {
        SET("steps", samples > 0 ? (double)samples : 20);
    } else if (coalition(k)) {
        if (samples > 0) SET("samples", (double)samples);
        if (k == EE_MAP_OCCLUSION) {
            SET("window", 1);
            SET("stride", 1);
        } else
            SET("seed", 1);
    } else if (tunnel(k)) {
        EeGradOptions g;
        gradient_options(k, &g);
        SET("samples", g.samples);
        SET("stdev", g.stdev);
    }
#undef SET
    return n;
}
