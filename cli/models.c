/* models.c: model files for cli/ee (see models.h). */
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ee_models_free(EeModels *ms)
{
    for (int j = 0; j < ms->K; j++) ee_model_free(ms->m[j]);
    ee_model_free(ms->clf);
    for (int f = 0; f < ms->nfiles; f++) ee_matin_close(ms->files[f]);
    memset(ms, 0, sizeof *ms);
}

/* Opens the file at path (kept in out, closed with it) and finds its one
 * model variable: *v, named *name. */
static EeStatus open_model_var(EeModels *out, const char *path, matvar_t **v, const char **name)
{
    EeMatIn *f;
    EeStatus st = ee_matin_open(path, &f);
    if (st) return st;
    out->files[out->nfiles++] = f;
    return ee_matin_only_model(f, v, name);
}

EeStatus ee_models_classifier(const char *path, EeModels *out)
{
    memset(out, 0, sizeof *out);
    matvar_t *v;
    const char *name;
    EeStatus st = open_model_var(out, path, &v, &name);
    if (st) return st;
    char what[512];
    snprintf(what, sizeof what, "%s: %s", path, name);
    if (v->class_type != MAT_C_STRUCT || ee_mv_numel(v) != 1)
        return ee_fail(EE_ERR_MODEL, "%s must be a scalar model struct (as ee_train returns it), got a %zux%zu %s",
                       what, ee_mv_rows(v), ee_mv_cols(v), ee_mv_class_name(v));
    if ((st = ee_mv_load_model(v, 0, what, &out->m[0]))) return st;
    out->K = 1;
    out->s[0] = v;
    if (ee_model_config(out->m[0])->head != EE_HEAD_CLASSIFIER)
        return ee_fail(EE_ERR_MODEL, "%s is an Empirical Explainer; this command needs the classifier (use "
                       "ee explain for explainers)", what);
    return EE_OK;
}

/* The explains.classifier fingerprint a member stores ("" when absent). */
static void explained(matvar_t *s, size_t index, char *out, size_t n)
{
    out[0] = 0;
    matvar_t *x = ee_mv_field(s, "explains", index);
    matvar_t *f = x && ee_mv_numel(x) == 1 ? ee_mv_field(x, "classifier", 0) : NULL;
    char *t;
    size_t len;
    if (f && !ee_mv_text(f, "", &t, &len)) {
        snprintf(out, n, "%s", t);
        free(t);
    }
}

/* Adds the members of one file's model variable. */
static EeStatus add_file(EeModels *out, const char *path)
{
    matvar_t *v;
    const char *name;
    EeStatus st = open_model_var(out, path, &v, &name);
    if (st) return st;
    size_t n = ee_mv_numel(v);
    if (n < 1) return ee_fail(EE_ERR_MODEL, "%s: %s is empty: expected an explainer struct", path, name);
    for (size_t j = 0; j < n; j++) {
        if (out->K >= EE_MAX_MEMBERS)
            return ee_fail(EE_ERR_INPUT, "an ensemble of more than %d explainers", EE_MAX_MEMBERS);
        matvar_t *s = v;
        size_t index = j;
        char what[600];
        if (v->class_type == MAT_C_CELL) {
            snprintf(what, sizeof what, "%s: %s{%zu}", path, name, j + 1);
            s = ee_mv_cell(v, j);
            index = 0;
            if (!s || s->class_type != MAT_C_STRUCT || ee_mv_numel(s) != 1)
                return ee_fail(EE_ERR_MODEL, "%s must be a scalar model struct", what);
        } else if (n > 1) snprintf(what, sizeof what, "%s: %s(%zu)", path, name, j + 1);
        else snprintf(what, sizeof what, "%s: %s", path, name);
        int k = out->K;
        if ((st = ee_mv_load_model(s, index, what, &out->m[k]))) return st;
        out->s[k] = s;
        out->index[k] = index;
        out->K++;
        if (ee_model_config(out->m[k])->head == EE_HEAD_CLASSIFIER)
            return ee_fail(EE_ERR_MODEL, "%s is a classifier, not an Empirical Explainer: train one with "
                           "ee train-explainer, or explain the classifier with ee ig / ee sv", what);
        char fp[32];
        explained(s, index, fp, sizeof fp);
        if (k == 0) snprintf(out->explains, sizeof out->explains, "%s", fp);
        else if (out->explains[0] && fp[0] && strcmp(out->explains, fp))
            return ee_fail(EE_ERR_MODEL, "%s explains another classifier (%s) than the first explainer (%s): "
                           "the explainers of an ensemble must explain the same classifier", what, fp, out->explains);
    }
    return EE_OK;
}

EeStatus ee_models_explainers(const char *const *paths, int npaths, EeModels *out)
{
    memset(out, 0, sizeof *out);
    EeStatus st;
    for (int i = 0; i < npaths; i++)
        if ((st = add_file(out, paths[i]))) return st;
    const EeConfig *c = ee_model_config(out->m[0]);
    if (!ee_config_reads_classifier(c)) return EE_OK;
    /* it reads the classifier's gradient (or, a margin explainer, its
     * margin at the baseline): the classifier it carries must be the one
     * it was trained on */
    char what[600];
    snprintf(what, sizeof what, "%s: explainer.classifier", paths[0]);
    matvar_t *cs = ee_mv_field(out->s[0], "classifier", out->index[0]);
    if (!cs)
        return ee_fail(EE_ERR_MODEL, "%s is missing: an explainer with inputs '%s'%s carries the classifier it "
                       "reads", what, ee_inputs_name(c->inputs), c->margin ? " and margin" : "");
    if (ee_mv_numel(cs) != 1) return ee_fail(EE_ERR_MODEL, "%s must be a scalar model struct", what);
    if ((st = ee_mv_load_model(cs, 0, what, &out->clf))) return st;
    char fp[32];
    if ((st = ee_model_fingerprint(out->clf, fp, sizeof fp))) return st;
    if (!out->explains[0] || strcmp(fp, out->explains))
        return ee_fail(EE_ERR_MODEL, "%s is not the classifier the explainer was trained on (weight fingerprint %s, "
                       "explains.classifier %s)", what, fp, out->explains[0] ? out->explains : "missing");
    return EE_OK;
}
