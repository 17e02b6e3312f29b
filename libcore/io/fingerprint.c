/* fingerprint.c: the weight fingerprint of the exchange format: an
 * explainer stores its classifier's (explains.classifier) and every
 * front end (the gateways, cli/ee) checks it before reading features from
 * a classifier. */
#include "../ee_model_io.h"

#include <stdio.h>
#include <stdlib.h>

EeStatus ee_model_fingerprint(const EeModel *m, char *out, size_t n)
{
    /* FNV-1a over the bytes of every weight, in exchange order */
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < ee_model_nparams(m); i++) {
        EeParamInfo pi;
        ee_model_param_info(m, i, &pi);
        float *buf = malloc(sizeof(float) * (pi.count + 1));
        if (!buf) return ee_fail(EE_ERR_NOMEM, "out of memory fingerprinting a model");
        ee_param_get(m, i, buf, pi.count);
        const unsigned char *b = (const unsigned char *)buf;
        for (size_t k = 0; k < pi.count * sizeof(float); k++) h = (h ^ b[k]) * 0x100000001b3ULL;
        free(buf);
    }
    snprintf(out, n, "%016llx", (unsigned long long)h);
    return EE_OK;
}
