## test_interrupt: Ctrl-C (SIGINT) during a long gateway call, with and
## without progress output. Each case runs in a child octave-cli
## (interrupt_case.m) that starts the call; the parent sends SIGINT after a
## second, twice. Each time the child must catch ee:interrupted (the calls
## would run for hours to the end; they used to), and keep working
## afterwards (one more ee_predict, then the second round).
##
## How soon the error comes after the signal (libcore polls at least every
## 0.5 s of work) and that the process holds no more memory after an
## interrupted call are measured by bench/gateway_bounds.m: a latency and
## a memory size depend on the machine and its load: as test assertions
## they could fail on a busy machine without a fault in the code. libcore's
## interrupted paths are checked for leaks by tests/c/test_runtime under
## valgrind and AddressSanitizer (tests/run_all.sh).
1;

%!function check (r)
%!  assert (r.id, 'ee:interrupted', r.out);
%!  ## both rounds ran to their end: the process kept working after the first
%!  assert (numel (regexp (r.out, 'GREW -?\d+')), 2, r.out);
%!endfunction

%!test
%! check (interrupt_case ("ee_train ('transformer', X, y, 'epochs', 10000, 'patience', 1e5, 'verbose', false)"));
%!test
%! check (interrupt_case ("ee_train ('transformer', X, y, 'epochs', 10000, 'patience', 1e5, 'verbose', true)"));
%!test
%! check (interrupt_case ("ee_sv (m, X, 'samples', 50, 'verbose', false)"));
%!test
%! check (interrupt_case ("ee_sv (m, X, 'samples', 50, 'verbose', true)"));
%!test
%! check (interrupt_case ("ee_ig (m, repmat (X, 20, 1), 'steps', 50, 'verbose', false)"));
%!test
%! check (interrupt_case ("ee_predict (m, repmat (X, 300, 1))"));
%!test
%! c = "e = ee_train (m, X(1:20,:), zeros (20, columns (X), 'single'), 'epochs', 1, 'verbose', false); ee_explain (e, repmat (X, 300, 1))";
%! check (interrupt_case (c));
%!test
%! c = "ee_train (m, repmat (X, 10, 1), zeros (3000, columns (X), 'single'), 'epochs', 10000, 'patience', 1e5, 'verbose', false)";
%! check (interrupt_case (c));
%!test
%! check (interrupt_case ("ee_faithfulness (m, repmat (X, 20, 1), rand (6000, columns (X)), 'steps', 0, 'verbose', false)"));
%!test
%! check (interrupt_case ("ee_gradient (m, repmat (X, 20, 1), 'method', 'ig', 'noise', 'vargrad', 'samples', 50, 'verbose', true)"));
%!test
%! ## a function handle as the model: Ctrl-C inside f (f sleeps 0.2 s a
%! ## call in pause, which Octave interrupts: the gateway catches Octave's
%! ## interrupt inside f), and between the calls of a fast f (the poll)
%! check (interrupt_case ("ee_sv (@(x) x(:,1) + 0 * numel (evalc ('pause (0.2)')), randn (3, 8), 'samples', 1e4, 'verbose', false)"));
%!test
%! check (interrupt_case ("ee_sv (@(x) x * ones (8, 1), randn (200, 8), 'samples', 1e5, 'batch', 256, 'verbose', false)"));
%!test
%! ## the coalition methods of a handle: the same generator, polled between calls
%! check (interrupt_case ("ee_sv (@(x) x * ones (30, 1), randn (200, 30), 'method', 'kernelshap', 'samples', 1e5, 'batch', 256, 'verbose', false)"));
%!test
%! check (interrupt_case ("ee_lime (@(x) x(:,1) + 0 * numel (evalc ('pause (0.2)')), randn (3, 8), 'samples', 1e4, 'verbose', false)"));
%!test
%! ## the coalition methods of a built-in model: polled between their passes
%! check (interrupt_case ("ee_sv (m, X, 'method', 'kernelshap', 'samples', 2000, 'verbose', true)"));
%!test
%! check (interrupt_case ("ee_lime (m, repmat (X, 4, 1), 'samples', 500, 'verbose', false)"));
%!test
%! check (interrupt_case ("ee_occlusion (m, repmat (X, 20, 1), 'window', 2, 'verbose', false)"));
