## main_job: the job that the README's first command runs on the embedded
## data: reproduces Figure 5 of the paper with the 'default' preset
## (scripts/paper/figure5.m: classifiers, expensive target maps, Empirical
## Explainers and convergence curves for IG on spam and wordnet, SV on
## fortunes and wordnet),
## then prints the figure's path, the crossing points and the runtime
## report.  It first checks that figures can be written (ee_check_graphics).
## Intermediate results are cached under results/default/, so a
## second run (or a run after an interruption) reuses them.
## main_job (preset, ...) passes its arguments on to figure5.
function varargout = main_job (varargin)
  ## OpenMP's wait policy is not set here: Octave links libgomp, which reads
  ## OMP_WAIT_POLICY when Octave starts, so a setenv here changes nothing
  ## (it used to be tried; doc/FIGURE5.md, "Measured times").  The job runs
  ## with OpenMP's default (threads spin a while before they sleep), which
  ## on an idle machine is what the gateways' many small parallel regions
  ## want; on a shared one start Octave with OMP_WAIT_POLICY=passive.
  root = fileparts (fileparts (fileparts (mfilename ('fullpath'))));   # the checkout: scripts/paper/ is two below it
  addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));   # the gateways and the toolbox
  ## Before half an hour of computing: can this machine write the figure?
  ## (an ee:noGraphics error names the missing Debian package)
  ee_check_graphics ();
  R = figure5 (varargin{:});
  printf ('\n== main_job: Figure 5 written to %s\n', R.files{1});
  printf ('   (also %s)\n', strjoin (R.files(2:end), ', '));
  m = @(v) mean (v(! isnan (v)));
  for k = 1:numel (R.panels)
    p = R.panels(k);
    C = p.curve;
    sel = [1 2 5 10](p.S > [1 2 5 10]);
    printf (['%s on %s (%s, test accuracy %.3f): Empirical Explainer (%g passes) MSE %.4g = %.2f x the floor %.3g, ' ...
             'Spearman %.3f, top-5 overlap %.3f; expensive MSE at s = %s: %s\n'], ...
            p.label, p.dataset, p.kind, p.test_accuracy, C.explainer_passes, C.explainer_curve, ...
            C.explainer_curve / C.floor, C.floor, m (C.explainer_spearman), m (C.explainer_top5), ...
            strjoin (arrayfun (@num2str, sel, 'uniformoutput', false), ', '), ...
            strjoin (arrayfun (@(v) sprintf ('%.4g', v), C.curve(sel), 'uniformoutput', false), ', '));
    printf ('   %s\n', p.speedup.text);
    cx = f5_crossing (C);
    if (isfinite (cx))
      printf ('   crossing: the expensive %s is closer to its target than the explainer from s = %d on (%.0f passes per explanation)\n', ...
              p.label, cx, C.passes(cx));
    else
      printf ('   no crossing: the expensive %s stays farther from its target than the explainer for every s < %d\n', ...
              p.label, p.S);
    end
  end
  printf ('\n%s', R.runtime_text);
  if (nargout > 0)
    varargout{1} = R;
  end
end

## main_job passes its arguments to figure5 (tests/octave/test_figure5.m
## runs the pipeline itself)
%!error <unknown preset> main_job ('nosuch')
