// mexfeval.cc: f (X) for the handle forms, through the interpreter's own
// feval rather than mexCallMATLAB. mexCallMATLAB copies its arguments
// (Octave 7 converts each mxArray into a new octave_value element by
// element) and looks f up by the name "feval" on every call; here the
// argument is one NDArray kept from call to call and filled in place, and
// the scores are read from the NDArray f returned (no copy for double).
// What mexCallMATLAB does besides is done the same way: f runs with no
// lvalue list of the gateway's caller, so a user function's nargout and
// isargout are those of its own call.
#include "mexfeval.h"

#include <octave/oct.h>
#include <octave/interpreter.h>
#include <octave/mxarray.h>
#include <octave/parse.h>
#include <octave/pt-eval.h>
#include <octave/unwind-prot.h>

#include <cstdio>
#include <new>

struct EeFeval
{
  octave_value fh;
  NDArray arg;                  // the rows, kept between calls
  octave_value_list out;        // the last call's outputs
  NDArray val[2];               // their data as doubles (double: shared)
};

EeFeval *ee_feval_new (const void *fh)
{
  EeFeval *ev = new EeFeval;
  ev->fh = mxArray::as_octave_value (static_cast<const mxArray *> (fh));
  return ev;
}

void ee_feval_free (EeFeval *ev)
{
  delete ev;
}

double *ee_feval_arg (EeFeval *ev, int M, int F)
{
  // the last outputs may share the argument's data (f = @(x) x): let go
  // of them first, so the array is unique again unless f kept it
  ev->out = octave_value_list ();
  ev->val[0] = ev->val[1] = NDArray ();
  dim_vector dv (M, F);
  if (ev->arg.dims () != dv)
    ev->arg = NDArray (dv);
  // fortran_vec makes the data unique: a copy only when f kept the array
  return ev->arg.fortran_vec ();
}

void ee_feval_call (EeFeval *ev, int nargout)
{
  octave::interpreter *interp = octave::interpreter::the_interpreter ();
  octave::tree_evaluator& tw = interp->get_evaluator ();
  octave::unwind_action restore ([&tw] (const std::list<octave::octave_lvalue> *lvl)
                                 { tw.set_lvalue_list (lvl); }, tw.lvalue_list ());
  tw.set_lvalue_list (nullptr);
  octave_value_list args;
  args(0) = ev->arg;
  ev->out = interp->feval (ev->fh, args, nargout);
}

void ee_feval_out (EeFeval *ev, int k, EeFevalOut *o)
{
  o->present = k < ev->out.length () && ev->out(k).is_defined ();
  o->real_full = false;
  o->ndims = 0;
  o->dims[0] = o->dims[1] = o->dims[2] = 1;
  o->data = nullptr;
  if (! o->present)
    {
      std::snprintf (o->what, sizeof o->what, "nothing");
      return;
    }
  const octave_value& v = ev->out(k);
  dim_vector d = v.dims ();
  o->ndims = d.ndims ();
  for (int t = 0; t < 3 && t < o->ndims; t++)
    o->dims[t] = d(t);
  const char *kind = v.iscomplex () ? "complex " : v.issparse () ? "sparse " : "";
  std::string cls = v.class_name ();
  if (o->ndims > 2)
    std::snprintf (o->what, sizeof o->what, "a %zux%zux%zu%s %s%s array", o->dims[0], o->dims[1], o->dims[2],
                   o->ndims > 3 ? "x..." : "", kind, cls.c_str ());
  else
    std::snprintf (o->what, sizeof o->what, "a %zux%zu %s%s matrix", o->dims[0], o->dims[1], kind, cls.c_str ());
  o->real_full = (v.is_double_type () || v.is_single_type ()) && ! v.iscomplex () && ! v.issparse ();
  if (! o->real_full || k > 1)
    return;
  // a full double matrix shares its data; single (and a range or a
  // diagonal matrix) is converted once, into the array held here
  ev->val[k] = v.array_value ();
  o->data = ev->val[k].data ();
}
