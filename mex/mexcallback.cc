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

static EeStatus bad_result (long call, int M, const mxArray *y, const char *what)
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

extern "C" EeStatus ee_mx_fn_eval (void *ctx, const double *rows, int M, int F, long call,
                                   const double **scores, int *C)
{
  EeMxFn *fn = static_cast<EeMxFn *> (ctx);
  *scores = nullptr;
  *C = 0;
  try
    {
      if (fn->last)
        {
          mxDestroyArray (fn->last);
          fn->last = nullptr;
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
      mxArray *out[1] = { nullptr };
      mexSetTrapFlag (0);
      double t0 = ee_now ();
      mexCallMATLAB (1, out, 2, args, "feval");
      fn->seconds_f += ee_now () - t0;
      mxArray *y = out[0];
      if (! y)
        return bad_result (call, M, y, "nothing");
      char what[96];
      std::snprintf (what, sizeof what, "a %zux%zu %s%s matrix", mxGetM (y), mxGetN (y),
                     mxIsComplex (y) ? "complex " : mxIsSparse (y) ? "sparse " : "", mxGetClassName (y));
      bool cls_ok = (mxIsDouble (y) || mxIsSingle (y)) && ! mxIsComplex (y) && ! mxIsSparse (y);
      if (! cls_ok || mxGetNumberOfDimensions (y) != 2 || mxGetM (y) != static_cast<size_t> (M)
          || mxGetN (y) < 1)
        {
          EeStatus st = bad_result (call, M, y, what);
          mxDestroyArray (y);
          return st;
        }
      *C = static_cast<int> (mxGetN (y));
      if (mxIsDouble (y))
        {
          fn->last = y;   // f's own array: no copy
          *scores = mxGetPr (y);
          return EE_OK;
        }
      size_t n = mxGetNumberOfElements (y);
      if (n > fn->conv_n)
        {
          double *p = static_cast<double *> (std::realloc (fn->conv, sizeof (double) * n));
          if (! p)
            {
              mxDestroyArray (y);
              return ee_fail (EE_ERR_NOMEM, "out of memory converting the scores of call %ld of f", call);
            }
          fn->conv = p;
          fn->conv_n = n;
        }
      const float *src = static_cast<const float *> (mxGetData (y));
      for (size_t i = 0; i < n; i++)
        fn->conv[i] = src[i];
      mxDestroyArray (y);
      *scores = fn->conv;
      return EE_OK;
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

extern "C" void ee_mx_fn_release (EeMxFn *fn)
{
  if (fn->last)
    mxDestroyArray (fn->last);
  if (fn->arg)
    mxDestroyArray (fn->arg);
  std::free (fn->conv);
  fn->last = fn->arg = nullptr;
  fn->conv = nullptr;
  fn->conv_n = 0;
}
