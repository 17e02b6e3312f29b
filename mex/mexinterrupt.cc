// mexinterrupt.cc: the gateways' side of Ctrl-C, the one piece in C++
// because Octave's interrupt state and exception are C++ (MATLAB's
// utIsInterruptPending has no Octave counterpart).
//
// Octave's SIGINT handler only raises octave_interrupt_state; the next
// octave_quit () in the interpreter throws octave::interrupt_exception.
// While libcore runs, nothing in the interpreter looks, so libcore asks
// ee_mx_interrupt_poll between passes (ee_set_interrupt): it takes the
// interrupt over (resets the state, so it does not fire again later) and
// libcore unwinds normally with EE_ERR_INTERRUPTED; the gateway then
// frees everything and raises ee:interrupted. Printing a progress line
// is the other place where Octave could throw (mexEvalString runs the
// interpreter): the exception is caught here, never crosses libcore, and
// becomes a pending interrupt.
#include "mex.h"
#include "quit.h"

static bool pending = false;

extern "C" int ee_mx_interrupt_poll (void *)
{
  if (! pending && octave_interrupt_state > 0)
    {
      octave_interrupt_state = 0;
      pending = true;
    }
  return pending;
}

extern "C" void ee_mx_interrupt_clear (void)
{
  pending = false;
}

extern "C" void ee_mx_print_line (const char *line)
{
  try
    {
      mexPrintf ("%s\n", line);
      if (! pending && octave_interrupt_state <= 0)
        mexEvalString ("fflush (stdout);");
    }
  catch (const octave::interrupt_exception&)
    {
      octave_interrupt_state = 0;
      pending = true;
    }
  catch (...)
    {
      // an error out of the printer must not cross libcore either: stop
      pending = true;
    }
}
