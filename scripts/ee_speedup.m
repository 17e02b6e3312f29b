## -*- texinfo -*-
## @deftypefn  {} {@var{R} =} ee_speedup (@var{curve}, @var{expl})
## @deftypefnx {} {@var{R} =} ee_speedup (@var{curve}, @var{expl}, @var{build})
## The equal-accuracy speed-up of an Empirical Explainer over the expensive
## explainer it replaces.
##
## @var{curve} describes the expensive explainer at s = 1..S samples (a
## struct with fields of length S): @code{mse}, its mean squared error
## against the target (the expensive explainer at s = S, so @code{mse(S)}
## is 0), @code{seconds} and @code{passes}, its wall time and model passes
## per explanation.  Entries that were not measured are NaN (the time at
## the crossing is what counts).  @var{expl} has the explainer's @code{mse},
## @code{seconds} and @code{passes} per explanation, measured on the same
## rows.  @var{build} (optional) has @code{seconds} and @code{passes}: the
## whole cost of making the explainer (its training targets and its
## training).
##
## The crossing is the smallest s < S whose MSE is at or below the
## explainer's: from there on the expensive explainer is as accurate.  The
## speed-up is the expensive explainer's cost per explanation at the
## crossing over the explainer's, in wall time and in passes.  Without a
## crossing before S the expensive explainer needs at least S samples to be
## as accurate, so its cost at s = S gives a lower bound on the speed-up
## (@code{R.bound} true, printed with ">").  The break-even is the number
## of explanations after which the explainer has paid for itself:
## @var{build} over the saving per explanation (Inf when there is no
## saving; an upper bound when @code{R.bound}).
##
## A curve of one entry (S = 1) is a deterministic method (saliency,
## occlusion, @dots{}): its one run is exact, so there is no cheaper run
## to cross, and no accuracy to equal; @code{R.crossing} is NaN (not
## applicable), @code{R.bound} false, and the speed-ups are the plain
## ratios of the method's cost to the explainer's (at the explainer's
## @code{mse}, which the caller reports beside them).
##
## @var{R} has the fields @code{crossing} (the s used; S when there is no
## crossing), @code{bound}, @code{expensive_seconds},
## @code{expensive_passes}, @code{speedup_time}, @code{speedup_passes},
## @code{break_even_time}, @code{break_even_passes} and @code{text}, a
## one-line summary.
##
## @example
## C = ee_convergence (clf, X, 'sv', 20, 'explainer', expl);
## R = ee_speedup (struct ('mse', C.curve, 'seconds', C.seconds / C.N, ...
##                         'passes', C.passes), ...
##                 struct ('mse', C.explainer_curve, 'seconds', ...
##                         C.explainer_seconds / C.N, 'passes', C.explainer_passes));
## @end example
## @seealso{ee_convergence, figure5}
## @end deftypefn
function R = ee_speedup (curve, expl, build)
  if (nargin < 2)
    print_usage ();
  end
  if (nargin < 3)
    build = struct ('seconds', NaN, 'passes', NaN);
  end
  need (curve, 'curve', {'mse', 'seconds', 'passes'});
  need (expl, 'expl', {'mse', 'seconds', 'passes'});
  need (build, 'build', {'seconds', 'passes'});
  S = numel (curve.mse);
  if (S < 1 || numel (curve.seconds) != S || numel (curve.passes) != S)
    error ('ee:badInput', 'ee_speedup: curve.mse, .seconds and .passes must have one entry per s');
  end
  for f = {'mse', 'seconds', 'passes'}
    v = expl.(f{1});
    if (! (isnumeric (v) && isscalar (v) && isreal (v) && isfinite (v) && v >= 0))
      error ('ee:badInput', 'ee_speedup: expl.%s must be a finite nonnegative scalar', f{1});
    end
  end
  if (expl.seconds <= 0 || expl.passes <= 0)
    error ('ee:badInput', 'ee_speedup: the explainer''s seconds and passes must be positive');
  end
  mse = double (curve.mse(:)');
  if (any (! isreal (mse)) || any (isinf (mse)) || any (mse(! isnan (mse)) < 0))
    error ('ee:badInput', 'ee_speedup: curve.mse must be real and nonnegative (NaN where not measured)');
  end

  ## NaN never compares true: an unmeasured s is never the crossing
  c = find (mse(1:S-1) <= expl.mse, 1);
  exact = S == 1;                      # a deterministic method: nothing to cross
  R.bound = isempty (c) && ! exact;
  if (isempty (c))
    c = S;
  end
  R.crossing = c;
  if (exact)
    R.crossing = NaN;
  end
  R.expensive_seconds = double (curve.seconds(c));
  R.expensive_passes = double (curve.passes(c));
  R.speedup_time = R.expensive_seconds / expl.seconds;
  R.speedup_passes = R.expensive_passes / expl.passes;
  R.break_even_time = break_even (build.seconds, R.expensive_seconds - expl.seconds);
  R.break_even_passes = break_even (build.passes, R.expensive_passes - expl.passes);
  gt = '';
  if (R.bound)
    gt = '>';
  end
  if (exact)
    R.text = sprintf (['speed-up %.3g x in time, %.3g x in passes (a deterministic method: its one run ' ...
                       'is exact, no crossing; the explainer at MSE %.3g)'], R.speedup_time, R.speedup_passes, ...
                      expl.mse);
    return;
  elseif (R.bound)
    where = sprintf ('no crossing before s = %d, its cost at s = %d', S, S);
  else
    where = sprintf ('crossing at s = %d', c);
  end
  R.text = sprintf ('equal-accuracy speed-up %s%.3g x in time, %s%.3g x in passes (%s)', ...
                    gt, R.speedup_time, gt, R.speedup_passes, where);
end

function n = break_even (cost, saving)
  if (! (isfinite (cost) && isfinite (saving)))
    n = NaN;
  elseif (saving <= 0)
    n = Inf;
  else
    n = cost / saving;
  end
end

function need (s, name, fields)
  if (! (isstruct (s) && isscalar (s)))
    error ('ee:badInput', 'ee_speedup: %s must be a struct', name);
  end
  for f = fields
    if (! isfield (s, f{1}))
      error ('ee:badInput', 'ee_speedup: %s.%s is missing', name, f{1});
    end
    v = s.(f{1});
    if (! (isnumeric (v) && isreal (v)) || isempty (v))
      error ('ee:badInput', 'ee_speedup: %s.%s must be real numbers', name, f{1});
    end
  end
end

%!shared C, E
%! ## a curve whose answers are known: MSE 10 / s^2, 1 ms and 2 s + 2 passes per s
%! S = 8;
%! C = struct ('mse', [10 ./ (1:S-1) .^ 2, 0], 'seconds', 1e-3 * (1:S), 'passes', 2 * (1:S) + 2);
%! E = struct ('mse', 0.5, 'seconds', 2e-4, 'passes', 3);
%!test
%! ## 10 / s^2 <= 0.5 from s = 5 (0.4) on; at s = 4 it is 0.625
%! R = ee_speedup (C, E, struct ('seconds', 10, 'passes', 3000));
%! assert (R.crossing, 5);
%! assert (R.bound, false);
%! assert (R.expensive_seconds, 5e-3, 1e-15);
%! assert (R.speedup_time, 25, 1e-12);
%! assert (R.speedup_passes, 12 / 3, 1e-12);
%! assert (R.break_even_time, 10 / (5e-3 - 2e-4), 1e-9);
%! assert (R.break_even_passes, 3000 / 9, 1e-12);
%! assert (! isempty (strfind (R.text, 'crossing at s = 5')));
%!test
%! ## "at or below": an MSE equal to the explainer's is a crossing
%! E2 = E; E2.mse = 10 / 16;
%! assert (ee_speedup (C, E2).crossing, 4);
%!test
%! ## no crossing before S: the cost at S is a lower bound, printed with '>'
%! E2 = E; E2.mse = 0.1;       # 10 / 49 = 0.204 at s = 7 is still above it
%! R = ee_speedup (C, E2, struct ('seconds', 1, 'passes', 100));
%! assert (R.crossing, 8);
%! assert (R.bound, true);
%! assert (R.speedup_time, 8e-3 / 2e-4, 1e-12);
%! assert (R.speedup_passes, 18 / 3, 1e-12);
%! assert (! isempty (strfind (R.text, '>40 x in time')));
%!test
%! ## an explainer better than every s: crossing at s = 1 is not a bound
%! E2 = E; E2.mse = 20;
%! R = ee_speedup (C, E2);
%! assert ([R.crossing R.bound], [1 0]);
%! assert (isnan (R.break_even_time));          # no build cost given
%!test
%! ## an explainer slower than the expensive explainer at the crossing never breaks even
%! E2 = E; E2.seconds = 1;
%! R = ee_speedup (C, E2, struct ('seconds', 10, 'passes', 10));
%! assert (R.break_even_time, Inf);
%! assert (R.speedup_time < 1);
%!test
%! ## an unmeasured s (NaN) is never the crossing; NaN times give NaN speed-ups, not numbers
%! C2 = C; C2.mse(5) = NaN;
%! assert (ee_speedup (C2, E).crossing, 6);
%! C2 = C; C2.seconds(5) = NaN;
%! assert (isnan (ee_speedup (C2, E).speedup_time));
%!test
%! ## a deterministic method (S = 1): no crossing (NaN), not a bound, the plain ratios
%! R = ee_speedup (struct ('mse', 0, 'seconds', 3e-3, 'passes', 2), E, struct ('seconds', 1, 'passes', 10));
%! assert (isnan (R.crossing));
%! assert (R.bound, false);
%! assert ([R.speedup_time R.speedup_passes], [3e-3 / 2e-4, 2 / 3], 1e-12);
%! assert (R.break_even_time, 1 / (3e-3 - 2e-4), 1e-9);
%! assert (R.break_even_passes, Inf);           # 2 passes against the explainer's 3: no saving
%! assert (! isempty (strfind (R.text, 'deterministic')) && isempty (strfind (R.text, '>')));
%!error <ee_speedup: expl.mse must be a finite> ee_speedup (C, setfield (E, 'mse', NaN))
%!error <expl.seconds and passes must be positive|must be positive> ee_speedup (C, setfield (E, 'seconds', 0))
%!error <one entry per s> ee_speedup (setfield (C, 'seconds', 1), E)
%!error <curve.passes is missing> ee_speedup (rmfield (C, 'passes'), E)
%!error <must be a struct> ee_speedup (1, E)
