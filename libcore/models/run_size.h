/* run_size.h: the host bytes a run allocates (run_size.c). */
#ifndef EE_RUN_SIZE_H
#define EE_RUN_SIZE_H

#include "model_impl.h"

/* What ee_run_new(m, backend of dev, Bmax, keep, with_grads) allocates
 * on the host, plus the input staging of ee_run_set_input: counted by
 * building the run on a backend that hands out no memory. 0 for a GPU
 * (its memory is the device's). */
double ee_run_bytes(EeModel *m, EeDevice dev, int Bmax, int keep, int with_grads);

#endif
