// mexfeval.h: calls an Octave function handle on a batch of rows through
// the interpreter itself (mexfeval.cc), for mexcallback.cc. A C++ header
// without mex.h's types: mex.h declares mxArray as void, the interpreter's
// headers as a class, and the two cannot meet in one file.
#ifndef EE_MEXFEVAL_H
#define EE_MEXFEVAL_H

#include <cstddef>

struct EeFeval;

// One output of the last call, as doubles.
struct EeFevalOut
{
  bool present;        // f returned it
  bool real_full;      // a real, full (not sparse) double or single array
  int ndims;
  std::size_t dims[3]; // the first three dimensions (1 beyond ndims)
  const double *data;  // column-major; valid until the next call or free
  char what[128];      // "a 5x3 single matrix", for the error messages
};

// fh: the function handle's mxArray (the gateway's prhs[0]).
EeFeval *ee_feval_new (const void *fh);
void ee_feval_free (EeFeval *ev);
// The M x F column-major array the next call hands to f, to be filled in
// place. Not shared with anything f kept from an earlier call (Octave's
// copy-on-write: a kept copy is left as f saw it). Throws std::bad_alloc.
double *ee_feval_arg (EeFeval *ev, int M, int F);
// f (arg) with nargout outputs. f's errors and Ctrl-C propagate as
// Octave's exceptions (octave::execution_exception,
// octave::interrupt_exception): the caller catches them.
void ee_feval_call (EeFeval *ev, int nargout);
// Output k (0-based) of the last call.
void ee_feval_out (EeFeval *ev, int k, EeFevalOut *out);

#endif
