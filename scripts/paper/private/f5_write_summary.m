## -*- texinfo -*-
## @deftypefn {} {@var{file} =} f5_write_summary (@var{P}, @var{panels})
## figure5_summary.csv in @var{P}.figures: one row per panel with the
## equal-accuracy speed-up (ee_speedup) and the explainer's accuracy.
## Seconds are wall time per explanation on the test rows, measured in this
## run (medians of 3).  lower_bound = 1: no crossing before s = S, so
## crossing is S, the speed-ups are lower bounds and the break-evens upper
## bounds.  A deterministic method's panel (one run is exact): crossing
## NaN (not applicable), lower_bound 0, floor 0, expensive_seconds_at_crossing
## the method's own seconds, the speed-ups the plain ratios of its cost to
## the explainer's (at explainer_mse, not at equal accuracy).
## @end deftypefn
function file = f5_write_summary (P, panels)
  file = fullfile (P.figures, 'figure5_summary.csv');
  txt = sprintf (['panel,crossing,explainer_passes,explainer_seconds,expensive_seconds_at_crossing,' ...
                  'speedup_time,speedup_passes,break_even_time,break_even_passes,explainer_mse,floor,' ...
                  'spearman,top5,lower_bound\n']);
  m = @(v) mean (v(! isnan (v)));
  for k = 1:numel (panels)
    p = panels(k); C = p.curve; R = p.speedup;
    txt = [txt sprintf('%s,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6f,%.6f,%d\n', p.name, R.crossing, ...
                       C.explainer_passes, C.explainer_seconds / p.n.test, R.expensive_seconds, R.speedup_time, ...
                       R.speedup_passes, R.break_even_time, R.break_even_passes, C.explainer_curve, C.floor, ...
                       m (C.explainer_spearman), m (C.explainer_top5), R.bound)];
  end
  ee_atomic_text (file, txt);
end
