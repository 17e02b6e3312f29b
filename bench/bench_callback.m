## bench_callback: the callback overhead of the handle forms (issue 21's
## target: per batch of M rows, the time spent outside f stays under 10 %
## of a trivial f's own time for M >= 256). A benchmark, not a test.
##
##   octave-cli --eval "addpath ('mex', 'bench'); bench_callback ()"
##   R = bench_callback ('f', 'column')   % f = @(x) x(:,1) instead of x * w
##
## What is measured, for F = 10, 100, 784 columns and M = 256, 1024, 4096
## (f = @(x) x * w by default, w a random F x 1 vector), in CPU seconds of
## the Octave process (cputime: on a shared machine the wall clock counts
## the time other processes hold the cores; run with OPENBLAS_NUM_THREADS=1
## for a one-thread f, or 'clock', 'wall'):
##  - per batch: ee_sv (f, X, 'batch', M, 'groups', G, 'samples', s) with
##    P = 10 players (G: 10 groups of consecutive columns) on N = M rows,
##    once with s = 1 and once with s = 3 permutations: N (1 + s (P - 1))
##    perturbed rows, P and 3 P - 2 full batches of M rows after the first
##    pass (one batch of the N rows). The difference of the two calls'
##    times over the difference of their calls of f is the cost of one
##    more batch of M rows: drawing the permutations, generating the
##    perturbed rows, handing them to f, f, reading its scores back, the
##    values. What the gateway and the run do once per call (reading X,
##    allocating f's argument, the first pass, writing A) cancels out.
##  - f's own time: the same f called from Octave on an M x F matrix
##    (y = f (Z)), per call, in the same process between the runs: the
##    time of f in a loop of the interpreter, its call included.
##  - outside f: (per batch - f's own) / f's own, in %; the issue's target
##    is under 10 % for M >= 256.
## Each time is the best of `reps` alternations (the two runs, then f
## alone), each run repeated to last at least 0.2 s. Prints one line per
## (F, M) and returns R with columns F, M, per batch us, f alone us,
## outside f %, and the whole s = 3 call per call of f us.
function R = bench_callback (varargin)
  opt = struct ('f', 'matvec', 'reps', 3, 'F', [10 100 784], 'M', [256 1024 4096], 'clock', 'cpu');
  for k = 1:2:numel (varargin)
    if (! isfield (opt, varargin{k}) || k == numel (varargin))
      error ('ee:badInput', 'bench_callback: options are ''f'' (''matvec'' or ''column''), ''reps'', ''F'', ''M'', ''clock''');
    end
    opt.(varargin{k}) = varargin{k+1};
  end
  switch (opt.clock)
    case 'cpu', now = @() cputime ();
    case 'wall', t00 = tic; now = @() toc (t00);
    otherwise, error ('ee:badInput', 'bench_callback: ''clock'' is ''cpu'' or ''wall''');
  end
  rand ('seed', 1); randn ('seed', 1);
  R = zeros (0, 6);
  printf ('f = %s; %s time per call of f (us)\n', opt.f, opt.clock);
  printf ('%5s %5s | %10s %10s | %9s | %12s\n', 'F', 'M', 'per batch', 'f alone', 'outside f', 'call / calls');
  for F = opt.F
    w = randn (F, 1);
    switch (opt.f)
      case 'matvec', f = @(x) x * w;
      case 'column', f = @(x) x(:, 1);
      otherwise, error ('ee:badInput', 'bench_callback: ''f'' is ''matvec'' or ''column''');
    end
    groups = ceil ((1:F) * 10 / F);         # 10 players
    for M = opt.M
      X = randn (M, F);
      Z = randn (M, F);
      run = [Inf Inf]; calls = [0 0]; alone = Inf; n = [1 1];
      for rep = 1:opt.reps
        for k = 1:2
          t = now ();
          for r = 1:n(k)
            [~, info] = ee_sv (f, X, 'samples', 2 * k - 1, 'batch', M, 'groups', groups, 'seed', rep, ...
                               'verbose', false);
          end
          dt = (now () - t) / n(k);
          if (info.passes != M * info.calls)
            error ('ee:badInput', 'bench_callback: %d rows in %d calls, not %d per call', info.passes, info.calls, M);
          end
          run(k) = min (run(k), dt);
          calls(k) = info.calls;
          n(k) = max (1, ceil (0.2 / max (dt, 1e-6)));   # the next repetitions last >= 0.2 s
        end
        m = max (3, ceil (0.2 / max (run(1) / calls(1), 1e-6)));
        t = now (); for k = 1:m, y = f (Z); end
        alone = min (alone, (now () - t) / m);
      end
      batch = (run(2) - run(1)) / (calls(2) - calls(1));
      over = 100 * (batch - alone) / alone;
      printf ('%5d %5d | %10.1f %10.1f | %8.0f %% | %12.1f\n', F, M, 1e6 * batch, 1e6 * alone, over, ...
              1e6 * run(2) / calls(2));
      R(end+1, :) = [F, M, 1e6 * batch, 1e6 * alone, over, 1e6 * run(2) / calls(2)];
    end
  end
end
