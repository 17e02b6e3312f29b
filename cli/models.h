/* models.h: model files for cli/ee. A model file holds one struct
 * variable (any name), as `save -v7 f.mat model` writes what ee_train
 * returns; for `ee explain` it may be a struct array or cell of
 * explainers (an ensemble), and several files may be given. Every model
 * goes through libcore's validating loader; messages name the file and
 * the field. The checks are the gateways' (mex/ee_explain.c). */
#ifndef EE_CLI_MODELS_H
#define EE_CLI_MODELS_H

#include "matfile.h"

#define EE_MAX_MEMBERS 1024

typedef struct {
    int K;
    EeModel *m[EE_MAX_MEMBERS];        /* classifiers or explainers */
    matvar_t *s[EE_MAX_MEMBERS];       /* the struct of each (element of its variable) */
    size_t index[EE_MAX_MEMBERS];      /* its element in that variable */
    EeMatIn *files[EE_MAX_MEMBERS];
    int nfiles;
    /* explainers that read the classifier's gradient: the classifier they
     * carry (explainer.classifier of the first member) */
    EeModel *clf;
    char explains[32];                 /* explains.classifier of the members */
} EeModels;

/* One classifier (a trained model that is not an explainer). */
EeStatus ee_models_classifier(const char *path, EeModels *out);
/* Explainers from one or more files (an ensemble when more than one). */
EeStatus ee_models_explainers(const char *const *paths, int npaths, EeModels *out);
void ee_models_free(EeModels *ms);

#endif
