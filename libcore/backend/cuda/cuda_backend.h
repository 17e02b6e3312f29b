/* cuda_backend.h: what the CUDA backend offers beyond the op table.
 *
 * The op table itself comes from ee_backend_cuda() (backend.h). These
 * functions manage the backend's process-wide state (the cuBLAS handle and
 * a device workspace, both created lazily), report errors that happened
 * inside ops (which cannot return a status), and time device work.
 *
 * Without EE_HAVE_CUDA they are inline no-ops, so callers (the MEX
 * gateways' mexAtExit, the trainer, the tests) need no #ifdefs. */
#ifndef EE_CUDA_BACKEND_H
#define EE_CUDA_BACKEND_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef EE_HAVE_CUDA

/* Destroys the cuBLAS handle, frees the workspace and the timing events.
 * Safe to call at any time, also when no device was ever used; a later op
 * recreates what it needs. Device buffers returned by alloc stay valid. */
void ee_cuda_shutdown(void);

/* Nonzero when a CUDA or cuBLAS call failed inside an op since the last
 * call (the failure was printed to stderr); clears the flag. A failed
 * kernel can leave the device unusable for the rest of the process. */
int ee_cuda_check_error(void);

/* One line about the device in use ("NVIDIA H100 80GB HBM3, sm_90, ...")
 * or why there is none. */
const char *ee_cuda_describe(void);

/* Makes device (index modulo the number of visible devices) the one this
 * process uses; call it before anything else touches CUDA (cli/ee gives
 * each MPI rank the GPU of its local rank). Returns the device chosen, or
 * -1 when there is none. */
int ee_cuda_select(int index);

/* Device timing with CUDA events on the backend's stream (tests and
 * benchmarks): start records an event; stop records another, waits for it
 * and returns the milliseconds in between (negative on error). */
void ee_cuda_timer_start(void);
double ee_cuda_timer_stop(void);

/* cuDNN: 1 on (the default in a build with cuDNN, unless EE_CUDNN=0): an op
 * with a cuDNN path and an own one runs whichever was faster the first time
 * its shape class came up; 2 cuDNN wherever it can (tests); 0 off (the
 * backend's own kernels); on < 0 only asks. Returns the setting before the
 * call, or -1 when the build has no cuDNN. */
int ee_cuda_use_cudnn(int on);
/* One line: the cuDNN version in use, or why none is. */
const char *ee_cuda_cudnn_describe(void);
/* How many operations cuDNN has run in this process (tests: was it used). */
long ee_cuda_cudnn_calls(void);

/* With EE_CUDA_OPTIME=1 in the environment: prints the device time of each
 * op of the backend since the last report, largest first, under `title`,
 * and clears the totals (cuda_optime.cuh); a NULL title only clears them.
 * Nothing without EE_CUDA_OPTIME. */
void ee_cuda_optime_report(const char *title);

/* The most device memory the backend held at once (its buffers and its
 * workspace; not cuBLAS's own) since the last reset, in bytes; reset != 0
 * starts a new period at what is held now. */
size_t ee_cuda_memory_peak(int reset);

#else

static inline void ee_cuda_shutdown(void) {}
static inline int ee_cuda_check_error(void) { return 0; }
static inline int ee_cuda_select(int index) { (void)index; return -1; }
static inline const char *ee_cuda_describe(void) { return "this build has no CUDA backend (configure --with-cuda)"; }
static inline void ee_cuda_timer_start(void) {}
static inline double ee_cuda_timer_stop(void) { return -1.0; }
static inline size_t ee_cuda_memory_peak(int reset) { (void)reset; return 0; }
static inline int ee_cuda_use_cudnn(int on) { (void)on; return -1; }
static inline void ee_cuda_optime_report(const char *title) { (void)title; }
static inline long ee_cuda_cudnn_calls(void) { return 0; }
static inline const char *ee_cuda_cudnn_describe(void) { return "this build has no CUDA backend"; }

#endif

#ifdef __cplusplus
}
#endif
#endif
