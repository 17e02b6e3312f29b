/* model_source.h (io internal): the two halves of ee_model_load, for the
 * loader that keeps models between calls (kept_models.c), and the
 * fingerprint of a model whose weights will not change. */
#ifndef EE_IO_MODEL_SOURCE_H
#define EE_IO_MODEL_SOURCE_H

#include "../ee_model_io.h"

/* Reads and checks the configuration and every field's class and dims
 * (not the weights' values): on EE_OK, cfg is the model's configuration,
 * and each tensor of it is a single array of its exchange dims in src.
 * cfg starts zeroed (ee_config_defaults), padding included, so two
 * configurations read this way compare with memcmp. */
EeStatus ee_model_source_check(const EeFieldSource *src, const char *what, EeConfig *cfg);

/* The model of a source that passed ee_model_source_check with cfg: its
 * weights checked (finite, the [PAD] rows zero) and copied in. */
EeStatus ee_model_source_weights(const EeFieldSource *src, const char *what, const EeConfig *cfg, EeModel **out);

/* Marks m's weights as fixed for good (a kept model): its fingerprint is
 * computed once, on its first request, and remembered on m. Only a model
 * that no one writes may be marked; ee_param_set forgets the fingerprint
 * all the same. */
void ee_model_freeze(EeModel *m);

#endif
