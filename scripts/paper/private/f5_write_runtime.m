## -*- texinfo -*-
## @deftypefn {} {[@var{txt}, @var{file}] =} f5_write_runtime (@var{P}, @var{panels})
## The runtime report (runtime_<preset>.txt in @var{P}.figures): per panel
## the time and model passes of each step, the cost of one explanation,
## empirical and expensive, the break-even number of explanations, and the
## explainer's accuracy (MSE, floor, Spearman, top-5 overlap, crossing; a
## deterministic method: the MSE against the target's mean square, the
## speed ratio).
## @end deftypefn
function [txt, file] = f5_write_runtime (P, panels)
  L = {};
  L{end+1} = sprintf ('Runtime report, figure5 preset ''%s'' (%s)', P.preset, datestr (now ()));
  L{end+1} = sprintf ('Seconds are wall-clock on this machine (%d cores visible; shared machines give noisy numbers),', nproc ());
  L{end+1} = 'measured when each item was computed (cached items keep their original time).';
  L{end+1} = 'Model passes: the gateways'' info.passes (IG: s forward + s backward + 2 forward; SV: 2 + s n forward;';
  L{end+1} = 'explainer training: epochs x (forward+backward per training row + forward per valid row) through the';
  L{end+1} = 'explainer, plus 1 forward + 1 backward per row through the classifier when the explainer reads its gradient';
  L{end+1} = '(and 2 n + 2 forward per row of n real tokens when it reads the occlusion scores, 3 forward + 3 backward';
  L{end+1} = 'per row when it reads the gradient inside the IG path);';
  L{end+1} = 'an explanation by the explainer: its passes, those of the classifier included).';
  m = @(v) mean (v(! isnan (v)));
  for k = 1:numel (panels)
    p = panels(k); r = p.runtime; C = p.curve;
    L{end+1} = '';
    L{end+1} = sprintf ('== %s on %s (%s classifier, %s; test accuracy %.3f)', p.label, p.dataset, p.kind, ...
                        model_text (p.spec), p.test_accuracy);
    L{end+1} = sprintf ('  classifier training (%d rows):             %9.1f s', p.n.clf_train, r.classifier_seconds);
    L{end+1} = sprintf ('  target generation, %s:', p.label);
    for q = {'train', 'unlabelled', 'valid', 'test'}
      n = p.n.(q{1});
      L{end+1} = sprintf ('    %-10s %6d rows, s = %2d:           %9.1f s  %12d passes  (%.4f s, %.0f passes per explanation)', ...
                          q{1}, n, p.targets_s.(q{1}), r.(['targets_' q{1} '_seconds']), r.(['targets_' q{1} '_passes']), ...
                          r.(['targets_' q{1} '_seconds']) / max (n, 1), r.(['targets_' q{1} '_passes']) / max (n, 1));
    end
    L{end+1} = sprintf ('    total:                                  %9.1f s  %12d passes', r.targets_seconds, r.targets_passes);
    L{end+1} = sprintf ('  explainer training (%s):  %9.1f s  %12d passes', training_text (p), ...
                        r.explainer_seconds, r.explainer_passes);
    L{end+1} = sprintf ('  empirical explanation of the test subset: %8.3f s  %12d passes  (%.5f s per explanation)', ...
                        r.empirical_seconds, r.empirical_passes, r.empirical_seconds_per);
    L{end+1} = sprintf ('  expensive explanation of the test subset: %8.3f s  %12d passes  (%.5f s per explanation)', ...
                        r.targets_test_seconds, r.targets_test_passes, r.expensive_seconds_per);
    L{end+1} = sprintf ('  speed-up per explanation: %.0fx in time, %.0fx in passes (%s %s against the explainer)', ...
                        r.expensive_seconds_per / r.empirical_seconds_per, r.expensive_passes_per / r.empirical_passes_per, ...
                        p.label, ifelse (isfield (p, 'exact') && p.exact, 'exact', sprintf ('s = %d', p.S)));
    R = p.speedup;
    if (isfield (p, 'exact') && p.exact)
      ## a deterministic method: no curve, no floor, no crossing
      L{end+1} = sprintf ('  %s is deterministic (one run is exact): no curve, no floor, no crossing', p.label);
      L{end+1} = sprintf ('  timed in this run (medians of 3): explainer %.5f s, %s %.5f s per explanation', ...
                          C.explainer_seconds / p.n.test, p.label, R.expensive_seconds);
      L{end+1} = sprintf ('    speed ratio: %.3gx in time, %.3gx in passes; break-even %.0f explanations by time, %.0f by passes', ...
                          R.speedup_time, R.speedup_passes, R.break_even_time, R.break_even_passes);
      L{end+1} = sprintf ('  accuracy on %d test sequences: explainer MSE %.4g = %.3g x the target''s mean square %.4g;', ...
                          p.n.test, C.explainer_curve, C.explainer_curve / C.target_mean_square, C.target_mean_square);
      L{end+1} = sprintf ('    Spearman %.3f, top-5 overlap %.3f', m (C.explainer_spearman), m (C.explainer_top5));
      continue;
    end
    gt = ''; lt = '';
    if (R.bound) gt = '>'; lt = '<'; end
    L{end+1} = sprintf ('  at equal accuracy (%s; medians of 3 runs in this run): explainer %.5f s, expensive %s at s = %d %.5f s', ...
                        ifelse (R.bound, sprintf ('no crossing before s = %d', p.S), sprintf ('crossing at s = %d', R.crossing)), ...
                        C.explainer_seconds / p.n.test, p.label, R.crossing, R.expensive_seconds);
    L{end+1} = sprintf ('    equal-accuracy speed-up: %s%.3gx in time, %s%.3gx in passes; break-even %s%.0f explanations by time, %s%.0f by passes', ...
                        gt, R.speedup_time, gt, R.speedup_passes, lt, R.break_even_time, lt, R.break_even_passes);
    L{end+1} = sprintf ('  break-even (train+unlabelled+valid targets + explainer training, / saving per explanation):');
    L{end+1} = sprintf ('    %.0f explanations by time, %.0f by model passes', r.break_even_seconds, r.break_even_passes);
    L{end+1} = sprintf ('  convergence curve s = 1..%d on the test subset: %.1f s', p.S, r.curve_seconds);
    L{end+1} = sprintf ('  accuracy on %d test sequences: explainer MSE %.4g = %.2f x the floor %.4g (%s);', ...
                        p.n.test, C.explainer_curve, C.explainer_curve / C.floor, C.floor, C.floor_method);
    cx = f5_crossing (C);
    if (isfinite (cx))
      ctext = sprintf ('crossing at s = %d (%.0f passes)', cx, C.passes(cx));
    else
      ctext = sprintf ('no crossing before s = %d', p.S);
    end
    L{end+1} = sprintf ('    Spearman %.3f, top-5 overlap %.3f; %s', m (C.explainer_spearman), m (C.explainer_top5), ctext);
    sel = [1 2 5 10](p.S > [1 2 5 10]);
    L{end+1} = sprintf ('    expensive %s at s = %s: MSE %s; Spearman %s; top-5 %s', p.label, ...
                        strjoin (arrayfun (@num2str, sel, 'uniformoutput', false), '/'), ...
                        strjoin (arrayfun (@(s) sprintf ('%.3g', C.curve(s)), sel, 'uniformoutput', false), '/'), ...
                        strjoin (arrayfun (@(s) sprintf ('%.3f', m (C.spearman(:, s))), sel, 'uniformoutput', false), '/'), ...
                        strjoin (arrayfun (@(s) sprintf ('%.3f', m (C.top5(:, s))), sel, 'uniformoutput', false), '/'));
  end
  txt = sprintf ('%s\n', L{:});
  file = fullfile (P.figures, sprintf ('runtime_%s.txt', P.preset));
  ee_atomic_text (file, txt);
end

function t = training_text (p)
  t = sprintf ('%d epochs', p.explainer_epochs);
  if (p.explainer.ensemble > 1)
    t = sprintf ('%d members, %d epochs', p.explainer.ensemble, p.explainer_epochs);
  end
  t = sprintf ('%-18s', t);
end

