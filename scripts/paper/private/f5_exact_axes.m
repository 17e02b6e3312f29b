## -*- texinfo -*-
## @deftypefn {} {@var{ax} =} f5_exact_axes (@var{p}, @var{pos})
## The axes of a deterministic method's panel (@var{p} from f5_panel with
## @code{p.exact}), at the pixel position @var{pos}, for figure5.png and
## figure5_cost.png alike: there is no curve (one run of the method is
## exact), so the panel is the cost plane, MSE against the method's maps
## (log) over wall seconds per explanation (log).  The method is a black
## triangle on the bottom edge at its own cost (its MSE is 0, off the log
## axis), the Empirical Explainer a green star at its cost and MSE with
## its line, the target's mean square (the MSE of a map of zeros: the
## scale, there being no floor) a dotted blue line, and the speed ratio
## in red.  Seconds are the medians of 3 runs in this run (p.speedup).
## @end deftypefn
function ax = f5_exact_axes (p, pos)
  red = [0.85 0 0]; green = [0 0.6 0]; blue = [0.2 0.35 0.8];
  C = p.curve; R = p.speedup;
  xm = R.expensive_seconds;                  # the method, per explanation
  xe = C.explainer_seconds / p.n.test;       # the explainer, per explanation
  e = C.explainer_curve;
  ms = C.target_mean_square;
  ax = axes ('units', 'pixels', 'position', pos);
  hold (ax, 'on');
  xs = [xm xe]; xs = xs(xs > 0 & isfinite (xs));
  ys = [e ms]; ys = ys(ys > 0 & isfinite (ys));
  if (isempty (xs)) xs = 1; end
  if (isempty (ys)) ys = 1; end
  xl = [10 ^ floor(log10 (min (xs)) - 0.5), 10 ^ ceil(log10 (max (xs)) + 0.5)];
  yl = [10 ^ (floor (log10 (min (ys))) - 1), 10 ^ (ceil (log10 (max (ys))) + 0.5)];
  ## the two lines' labels centred, the upper one above its line and the
  ## lower one below (they are often close)
  xmid = sqrt (xl(1) * xl(2));
  up = 10 ^ (0.05 * diff (log10 (yl)));
  e_above = ! (ms > e);
  if (ms > 0 && isfinite (ms))
    h = plot (ax, xl, [ms ms], ':');
    set (h, 'color', blue, 'linewidth', 2.5);
    text (ax, xmid, ms * up ^ ifelse (e_above, -1.2, 1), sprintf ('the target''s mean square (a map of zeros): %.3g', ms), ...
          'color', blue, 'fontsize', 10, 'horizontalalignment', 'center');
  end
  if (isfinite (e) && e > 0)
    h = plot (ax, xl, [e e], '--');
    set (h, 'color', green, 'linewidth', 2.5);
    h = plot (ax, xe, e, 'p');
    set (h, 'color', green, 'markerfacecolor', green, 'markersize', 14);
    text (ax, xmid, e * up ^ ifelse (e_above, 1, -1.2), ...
          sprintf ('Empirical Explainer (%s): %.3g = %.2g x the mean square', pass_text (C.explainer_passes), ...
                   e, e / ms), ...
          'color', green, 'fontsize', 10, 'fontweight', 'bold', 'horizontalalignment', 'center');
  end
  if (isfinite (xm) && xm > 0)
    h = plot (ax, [xm xm], yl, ':');
    set (h, 'color', 'k', 'linewidth', 1.5);
    h = plot (ax, xm, yl(1), '^');
    set (h, 'color', 'k', 'markerfacecolor', 'k', 'markersize', 12);
    left = log (xm / xl(1)) > log (xl(2) / xm);
    text (ax, xm * ifelse (left, 1 / 1.2, 1.2), yl(1) * 10 ^ (0.08 * diff (log10 (yl))), ...
          sprintf ('%s: exact (MSE 0), %.0f passes', p.label, C.passes(1)), 'fontsize', 10, ...
          'fontweight', 'bold', 'horizontalalignment', ifelse (left, 'right', 'left'));
    if (isfinite (xe) && xe > 0)
      text (ax, sqrt (xm * xe), yl(1) * 10 ^ (0.2 * diff (log10 (yl))), ...
            sprintf ('explainer %.3gx %s than the method', ...
                     ifelse (xm >= xe, R.speedup_time, 1 / R.speedup_time), ifelse (xm >= xe, 'faster', 'slower')), ...
            'color', red, 'fontsize', 10, 'horizontalalignment', 'center');
    end
  end
  set (ax, 'xscale', 'log', 'yscale', 'log', 'xlim', xl, 'ylim', yl, 'box', 'on', 'fontsize', 11);
  xlabel (ax, 'wall seconds per explanation (no curve: one run is exact)');
  ylabel (ax, sprintf ('MSE against %s, log scale', p.label));
  title (ax, sprintf ('%s, %s', p.method_title, p.dataset), 'fontsize', 13, 'fontweight', 'bold');
  hold (ax, 'off');
end
