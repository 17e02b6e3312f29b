// mexcallback.cc: calls an Octave function handle on behalf of libcore
// (EeScoreFn), in C++ because what f can throw is C++: an error in f is
// octave::execution_exception, Ctrl-C inside f is
// octave::interrupt_exception. Both are caught here, before they could
// unwind through libcore's C frames, and become a status that libcore
// returns normally (it frees what it holds); the gateway then raises
// ee:callbackError or ee:interrupted.
//
// f runs through the interpreter's feval (mexfeval.cc), not
// mexCallMATLAB, which copied the rows once more on every call; f's own
// exception, with its message and identifier, reaches the catch blocks
// here as it did through mexCallMATLAB with the trap flag off.
#include "mexfn.h"
#include "mexfeval.h"

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
      if (! fn->ev)
        fn->ev = ee_feval_new (fn->fh);
      // rows NULL: libcore wrote them into that array (ee_mx_fn_columns);
      // else they go into it here, transposed (column-major)
      if (rows)
        transpose_into (ee_feval_arg (fn->ev, M, F), rows, M, F);
      double t0 = ee_now ();
      ee_feval_call (fn->ev, nargout);
      fn->seconds_f += ee_now () - t0;
      EeFevalOut y, g;
      ee_feval_out (fn->ev, 0, &y);
      if (! y.real_full || y.ndims != 2 || y.dims[0] != static_cast<size_t> (M) || y.dims[1] < 1)
        return bad_result (call, M, y.what);
      int nc = static_cast<int> (y.dims[1]);
      if (nargout > 1)
        {
          // M x F for one score, M x F x C for C
          ee_feval_out (fn->ev, 1, &g);
          bool ok = g.real_full && g.dims[0] == static_cast<size_t> (M) && g.dims[1] == static_cast<size_t> (F)
                    && ((g.ndims == 2 && nc == 1) || (g.ndims == 3 && g.dims[2] == static_cast<size_t> (nc)));
          if (! ok)
            return ee_fail (EE_ERR_INPUT,
                            "call %ld of f (%d rows): f's second output must be the gradient of its %d "
                            "score%s, a real %d x %d%s double array (or ask for central differences: "
                            "'gradient', 'fd'); it returned %s",
                            call, M, nc, nc == 1 ? "" : "s", M, F, nc == 1 ? "" : " x C", g.what);
          *grads = g.data;
        }
      *C = nc;
      *scores = y.data;
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

extern "C" EeStatus ee_mx_fn_eval (void *ctx, const double *rows, int M, int F, long call,
                                   const double **scores, int *C)
{
  EeMxFn *fn = static_cast<EeMxFn *> (ctx);
  const double *grads;          // (asked for and checked, not used)
  return call_f (fn, rows, M, F, call, fn->outputs > 1 ? 2 : 1, scores, fn->outputs > 1 ? &grads : nullptr, C);
}

extern "C" double *ee_mx_fn_columns (void *ctx, int M, int F)
{
  EeMxFn *fn = static_cast<EeMxFn *> (ctx);
  try
    {
      if (! fn->ev)
        fn->ev = ee_feval_new (fn->fh);
      return ee_feval_arg (fn->ev, M, F);
    }
  catch (...)
    {
      // only allocation fails here; libcore reports it as out of memory
      return nullptr;
    }
}

extern "C" EeStatus ee_mx_fn_eval_grad (void *ctx, const double *rows, int M, int F, long call,
                                        const double **scores, const double **grads, int *C)
{
  return call_f (static_cast<EeMxFn *> (ctx), rows, M, F, call, 2, scores, grads, C);
}

extern "C" void ee_mx_fn_release (EeMxFn *fn)
{
  ee_feval_free (fn->ev);
  fn->ev = nullptr;
}
