## -*- texinfo -*-
## @deftypefn {} {@var{file} =} f5_write_csv (@var{P}, @var{panels})
## figure5.csv: one row per panel and s = 1..S with the expensive
## explainer's MSE (mean and quartiles over the test sequences), its mean
## Spearman correlation and top-5 overlap with the target, and the same for
## the Empirical Explainer, its passes per explanation, the floor and the
## explainer's multiple of it, seconds per s and the crossing.  A
## deterministic method's panel has one row, s = 1: its exact run (MSE 0),
## floor 0, explainer_over_floor and crossing NaN (not applicable).
## @end deftypefn
function file = f5_write_csv (P, panels)
  file = fullfile (P.figures, 'figure5.csv');
  txt = sprintf (['panel,dataset,method,s,passes,expensive_mse,expensive_q25,expensive_median,' ...
                  'expensive_q75,expensive_spearman,expensive_top5,explainer_mse,explainer_q25,' ...
                  'explainer_median,explainer_q75,explainer_spearman,explainer_top5,explainer_passes,' ...
                  'floor,explainer_over_floor,seconds,crossing\n']);
  m = @(v) mean (v(! isnan (v)));
  for k = 1:numel (panels)
    p = panels(k); C = p.curve;
    eq = C.explainer_quartiles;
    over = C.explainer_curve / C.floor;
    if (C.floor == 0)
      over = NaN;                      # a deterministic method: no floor
    end
    for s = 1:p.S
      txt = [txt sprintf('%s,%s,%s,%d,%.10g,%.10g,%.10g,%.10g,%.10g,%.6f,%.6f,%.10g,%.10g,%.10g,%.10g,%.6f,%.6f,%g,%.10g,%.6g,%.6g,%g\n', ...
                         p.name, p.dataset, p.method, s, C.passes(s), C.curve(s), C.quartiles(:, s), ...
                         m (C.spearman(:, s)), m (C.top5(:, s)), C.explainer_curve, eq, ...
                         m (C.explainer_spearman), m (C.explainer_top5), C.explainer_passes, C.floor, ...
                         over, C.seconds(s), C.crossing)];
    end
  end
  ee_atomic_text (file, txt);
end
