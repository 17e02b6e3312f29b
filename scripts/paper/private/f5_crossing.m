## -*- texinfo -*-
## @deftypefn {} {@var{s} =} f5_crossing (@var{C})
## The crossing of a convergence curve @var{C} (from @code{ee_convergence})
## as figure5 reports it: the smallest s < S at which the expensive
## explainer is closer to the target than the Empirical Explainer, or NaN.
## At s = S the expensive run is the target itself (MSE 0), so
## @code{C.crossing} = S means no crossing.
## @end deftypefn
function s = f5_crossing (C)
  s = C.crossing;
  if (! (isfinite (s) && s < numel (C.curve)))
    s = NaN;
  end
end
