## gateway_bounds: the gateways' memory and interruption targets, measured
## on this machine (a benchmark, not a test: the numbers depend on the
## machine, its allocator and its load, so they are reported against their
## targets instead of asserted in %!test blocks).
##
##   octave-cli --eval "addpath ('bench'); gateway_bounds ()"
##   R = gateway_bounds ('interrupt', false)   % the memory loops alone
##
## Measures, with the target each had as a test assertion:
##  - ee_predict: growth of the process (RSS) over 20000 calls on a loaded
##    model, after 2000 warm-up calls (target < 1000 kB; Octave 7 never
##    frees mxArrayToString's buffers, and 30000 loads grew it by 3.3 MB
##    before the gateways freed their own copies);
##  - ee_ig refused by the memory budget (EE_MEMORY_MB = 300, 5e6 rows): growth over
##    30 refusals after 3 warm-up ones (target < 2000 kB; the model leaked
##    on this path before);
##  - SIGINT during eight long gateway calls (tests/octave/interrupt_case.m,
##    the cases of tests/octave/test_interrupt.m): the slower of two rounds'
##    seconds from the signal to ee:interrupted (target < 2.5 s: libcore
##    polls at least every 0.5 s of work) and the larger growth of the
##    child over a round (target < 8000 kB).
## Prints one line per measurement, "ok" or "OVER", and returns them in R
## (name, value, target, unit) and how many missed their target in OVER. Needs the built gateways and
## datasets/spam.mat (for the interrupt cases).
function [R, over] = gateway_bounds (varargin)
  opt = struct ('interrupt', true);
  for k = 1:2:numel (varargin)
    if (! isfield (opt, varargin{k}) || k == numel (varargin))
      error ('ee:badInput', 'gateway_bounds: options are ''interrupt'' (true/false)');
    end
    opt.(varargin{k}) = varargin{k+1};
  end
  root = fileparts (fileparts (mfilename ('fullpath')));
  addpath (fullfile (root, 'mex'));
  addpath (fullfile (root, 'tests', 'octave'));
  R = struct ('name', {}, 'value', {}, 'target', {}, 'unit', {});

  ## ee_predict: loads of a model, 20000 calls
  m = ee_train ('mlp', single ([1 2; 3 1; 0 2]), [1; 2; 1], 'epochs', 1, 'verbose', false, 'hidden', 2);
  x = single ([1 2]);
  for i = 1:2000, ee_predict (m, x); end
  r0 = rss ();
  for i = 1:20000, ee_predict (m, x); end
  R = note (R, 'ee_predict: growth over 20000 calls', rss () - r0, 1000, 'kB');

  ## ee_ig refused by the memory budget, 30 calls
  v = load (fullfile (root, 'tests', 'vectors', 'transformer_tiny.mat'));
  old = getenv ('EE_MEMORY_MB');
  unwind_protect
    setenv ('EE_MEMORY_MB', '300');
    rows = ones (1, 5e6);
    for k = 1:3   # glibc keeps one freed 20 MB block for reuse: warm it up
      try, ee_ig (v.model, v.X, 'rows', rows); catch, end
    end
    r0 = rss ();
    for k = 1:30
      try, ee_ig (v.model, v.X, 'rows', rows); catch, end
    end
    R = note (R, 'ee_ig refused (ee:outOfMemory): growth over 30 calls', rss () - r0, 2000, 'kB');
  unwind_protect_cleanup
    setenv ('EE_MEMORY_MB', old);
  end_unwind_protect

  ## SIGINT during long calls (a child octave-cli each)
  if (opt.interrupt)
    calls = {"ee_train ('transformer', X, y, 'epochs', 10000, 'patience', 1e5, 'verbose', false)", ...
             "ee_train ('transformer', X, y, 'epochs', 10000, 'patience', 1e5, 'verbose', true)", ...
             "ee_sv (m, X, 'samples', 50, 'verbose', false)", ...
             "ee_sv (m, X, 'samples', 50, 'verbose', true)", ...
             "ee_ig (m, repmat (X, 20, 1), 'steps', 50, 'verbose', false)", ...
             "ee_predict (m, repmat (X, 300, 1))", ...
             "e = ee_train (m, X(1:20,:), zeros (20, columns (X), 'single'), 'epochs', 1, 'verbose', false); ee_explain (e, repmat (X, 300, 1))", ...
             "ee_train (m, repmat (X, 10, 1), zeros (3000, columns (X), 'single'), 'epochs', 10000, 'patience', 1e5, 'verbose', false)"};
    for k = 1:numel (calls)
      r = interrupt_case (calls{k});
      what = strtok (calls{k}, '(');
      if (! strcmp (r.id, 'ee:interrupted'))
        printf ('  (case %d, %s: no ee:interrupted, got ''%s'')\n', k, what, r.id);
      end
      R = note (R, sprintf ('SIGINT case %d (%s): seconds to ee:interrupted', k, strtrim (what)), r.latency, 2.5, 's');
      R = note (R, sprintf ('SIGINT case %d (%s): growth over a round', k, strtrim (what)), r.grew, 8000, 'kB');
    end
  end
  over = sum ([R.value] >= [R.target]);
  printf ('gateway_bounds: %d of %d within target\n', numel (R) - over, numel (R));
end

function kb = rss ()
  kb = sscanf (regexp (fileread ('/proc/self/status'), 'VmRSS:\s*(\d+)', 'tokens', 'once'){1}, '%d');
end

function R = note (R, name, value, target, unit)
  ok = value < target;
  printf ('%-4s %-62s %10.3g %s (target < %g)\n', ifelse_str (ok, 'ok', 'OVER'), name, value, unit, target);
  fflush (stdout);
  R(end+1) = struct ('name', name, 'value', value, 'target', target, 'unit', unit);
end

function s = ifelse_str (c, a, b)
  if (c) s = a; else s = b; end
end
