// mexcallback.cc: calls an Octave function handle on behalf of libcore
// (EeScoreFn), in C++ because what f can throw is C++: an error in f is
// octave::execution_exception, Ctrl-C inside f is
// octave::interrupt_exception. Both are caught here, before they could
// unwind through libcore's C frames, and become a status that libcore
// returns normally (it frees what it holds); the gateway then raises
// ee:callbackError or ee:interrupted.
//
// mexCallMATLABWithTrap is not used: Octave 7's replaces f's message and
// identifier by a generic "function call <feval> failed". With the trap
// flag off mexCallMATLAB rethrows f's own exception, which carries both.
#include "mexfn.h"

#include "quit.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

// After an exception caught here rather than at the interpreter's top
// level: an interrupt left octave_interrupt_state at -1 ("being
// handled"); it is handled, as mexinterrupt.cc does. (interpreter.h and
// its recover_from_exception cannot be included beside mex.h, which
// declares mxArray as void.)
static void recover (void)
{
  octave_interrupt_state = 0;
}

static EeStatus bad_result (long call, int M, const char *what)
{
  return ee_fail (EE_ERR_INPUT,
                  "call %ld of f (%d rows): f must return a real %d x C (or %d x 1) double matrix "
                  "of scores, one row per row it gets; it returned %s",
                  call, M, M, M, what);
}

// rows (M x F row-major) into Octave's column-major M x F, in blocks that
// stay in cache on both sides
static void transpose_into (double *dst, const double *rows, int M, int F)
{
  const int blk = 32;
  for (int j0 = 0; j0 < M; j0 += blk)
    for (int f0 = 0; f0 < F; f0 += blk)
      {
        int j1 = j0 + blk < M ? j0 + blk : M, f1 = f0 + blk < F ? f0 + blk : F;
        for (int f = f0; f < f1; f++)
          for (int j = j0; j < j1; j++)
            dst[static_cast<size_t> (f) * M + j] = rows[static_cast<size_t> (j) * F + f];
      }
}

static void describe (const mxArray *a, char *buf, size_t n)
{
  if (! a)
    {
      std::snprintf (buf, n, "nothing");
      return;
    }
  const mwSize *d = mxGetDimensions (a);
  if (mxGetNumberOfDimensions (a) > 2)
    std::snprintf (buf, n, "a %zux%zux%zu%s %s%s array", static_cast<size_t> (d[0]), static_cast<size_t> (d[1]),
                   static_cast<size_t> (d[2]), mxGetNumberOfDimensions (a) > 3 ? "x..." : "",
                   mxIsComplex (a) ? "complex " : mxIsSparse (a) ? "sparse " : "", mxGetClassName (a));
  else
    std::snprintf (buf, n, "a %zux%zu %s%s matrix", mxGetM (a), mxGetN (a),
                   mxIsComplex (a) ? "complex " : mxIsSparse (a) ? "sparse " : "", mxGetClassName (a));
}

static bool real_full (const mxArray *a)
{
  return (mxIsDouble (a) || mxIsSingle (a)) && ! mxIsComplex (a) && ! mxIsSparse (a);
}

// The data of a real double/single array as doubles: its own data when
// double (held in *keep until the next call), else converted into *buf.
static EeStatus as_doubles (mxArray *a, mxArray **keep, double **buf, size_t *cap, const double **out, long call)
{
  if (mxIsDouble (a))
    {
      *keep = a;
      *out = mxGetPr (a);
      return EE_OK;
    }
  size_t n = mxGetNumberOfElements (a);
  if (n > *cap)
    {
      double *p = static_cast<double *> (std::realloc (*buf, sizeof (double) * (n ? n : 1)));
      if (! p)
        {
          mxDestroyArray (a);
          return ee_fail (EE_ERR_NOMEM, "out of memory converting what call %ld of f returned", call);
        }
      *buf = p;
      *cap = n;
    }
  const float *src = static_cast<const float *> (mxGetData (a));
  for (size_t i = 0; i < n; i++)
    (*buf)[i] = src[i];
  mxDestroyArray (a);
  *out = *buf;
  return EE_OK;
}

// Calls f on the rows with nargout outputs (1: scores; 2: scores and
// gradients) and checks them; no Octave exception leaves it.
static EeStatus call_f (EeMxFn *fn, const double *rows, int M, int F, long call, int nargout,
                        const double **scores, const double **grads, int *C)
{
  *scores = nullptr;
  if (grads)
    *grads = nullptr;
  *C = 0;
  try
    {
      for (mxArray **a : { &fn->last, &fn->last_grad })
        if (*a)
          {
            mxDestroyArray (*a);
            *a = nullptr;
          }
      // one array for the largest batch, its row count set per call
      if (fn->arg && fn->arg_rows < M)
        {
          mxDestroyArray (fn->arg);
          fn->arg = nullptr;
        }
      if (! fn->arg)
        {
          fn->arg = mxCreateDoubleMatrix (M, F, mxREAL);
          fn->arg_rows = M;
        }
      mxSetM (fn->arg, M);
      transpose_into (mxGetPr (fn->arg), rows, M, F);
      mxArray *args[2] = { const_cast<mxArray *> (fn->fh), fn->arg };
      mxArray *out[2] = { nullptr, nullptr };
      mexSetTrapFlag (0);
      double t0 = ee_now ();
      mexCallMATLAB (nargout, out, 2, args, "feval");
      fn->seconds_f += ee_now () - t0;
      char what[128];
      mxArray *y = out[0], *g = nargout > 1 ? out[1] : nullptr;
      describe (y, what, sizeof what);
      if (! y || ! real_full (y) || mxGetNumberOfDimensions (y) != 2
          || mxGetM (y) != static_cast<size_t> (M) || mxGetN (y) < 1)
        {
          if (y) mxDestroyArray (y);
          if (g) mxDestroyArray (g);
          return bad_result (call, M, what);
        }
      int nc = static_cast<int> (mxGetN (y));
      if (nargout > 1)
        {
          // M x F for one score, M x F x C for C
          const mwSize *d = g ? mxGetDimensions (g) : nullptr;
          size_t nd = g ? mxGetNumberOfDimensions (g) : 0;
          bool ok = g && real_full (g) && d[0] == static_cast<mwSize> (M) && d[1] == static_cast<mwSize> (F)
                    && ((nd == 2 && nc == 1) || (nd == 3 && d[2] == static_cast<mwSize> (nc)));
          if (! ok)
            {
              describe (g, what, sizeof what);
              mxDestroyArray (y);
              if (g) mxDestroyArray (g);
              return ee_fail (EE_ERR_INPUT,
                              "call %ld of f (%d rows): f's second output must be the gradient of its %d "
                              "score%s, a real %d x %d%s double array (or ask for central differences: "
                              "'gradient', 'fd'); it returned %s",
                              call, M, nc, nc == 1 ? "" : "s", M, F, nc == 1 ? "" : " x C", what);
            }
          EeStatus st = as_doubles (g, &fn->last_grad, &fn->conv_grad, &fn->conv_grad_n, grads, call);
          if (st)
            {
              mxDestroyArray (y);
              return st;
            }
        }
      *C = nc;
      return as_doubles (y, &fn->last, &fn->conv, &fn->conv_n, scores, call);
    }
  catch (const octave::execution_exception& e)
    {
      std::string msg = e.message (), id = e.identifier ();
      recover ();
      fn->failed = 1;
      if (id.empty ())
        return ee_fail (EE_ERR_INPUT, "f failed in call %ld (%d rows): %s", call, M, msg.c_str ());
      return ee_fail (EE_ERR_INPUT, "f failed in call %ld (%d rows): %s [f's identifier: %s]", call, M,
                      msg.c_str (), id.c_str ());
    }
  catch (const octave::interrupt_exception&)
    {
      recover ();
      return ee_fail (EE_ERR_INTERRUPTED, "interrupted inside f (call %ld)", call);
    }
  catch (const std::bad_alloc&)
    {
      recover ();
      return ee_fail (EE_ERR_NOMEM, "out of memory in call %ld of f", call);
    }
  catch (...)
    {
      // e.g. exit inside f: it cannot pass through libcore; stop the call
      recover ();
      fn->failed = 1;
      return ee_fail (EE_ERR_INPUT, "f failed in call %ld (%d rows): it raised an exception that is not an error",
                      call, M);
    }
}

extern "C" EeStatus ee_mx_fn_eval (void *ctx, const double *rows, int M, int F, long call,
                                   const double **scores, int *C)
{
  return call_f (static_cast<EeMxFn *> (ctx), rows, M, F, call, 1, scores, nullptr, C);
}

extern "C" EeStatus ee_mx_fn_eval_grad (void *ctx, const double *rows, int M, int F, long call,
                                        const double **scores, const double **grads, int *C)
{
  return call_f (static_cast<EeMxFn *> (ctx), rows, M, F, call, 2, scores, grads, C);
}

extern "C" void ee_mx_fn_release (EeMxFn *fn)
{
  for (mxArray **a : { &fn->last, &fn->last_grad, &fn->arg })
    if (*a)
      {
        mxDestroyArray (*a);
        *a = nullptr;
      }
  std::free (fn->conv);
  std::free (fn->conv_grad);
  fn->conv = fn->conv_grad = nullptr;
  fn->conv_n = fn->conv_grad_n = 0;
}
