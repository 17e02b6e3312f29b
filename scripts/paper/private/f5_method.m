## -*- texinfo -*-
## @deftypefn {} {@var{M} =} f5_method (@var{q})
## What figure5 needs to know of a panel's attribution method
## (@var{q}.method; @var{q} one element of @var{P}.panels): how to run it
## on rows at s samples with a seed (@code{M.run (model, X, s, seed,
## @dots{})}, further options such as @qcode{'rows'} passed on), its names
## (@code{M.title}, @code{M.label}, @code{M.unit}: what one unit of s is),
## whether its maps sum to f(x) - f(baseline) (@code{M.complete}: the
## explainer's efficiency applies to these only), and the options of
## @code{ee_convergence} that reproduce @code{M.run}.  One place, so that
## the targets, the curve, the timing runs and the floor run the method
## the same way.
##
## The methods with a sample count: @qcode{'ig'} (steps), @qcode{'sv'}
## (permutations), @qcode{'kernelshap'} and @qcode{'lime'} (s x
## @var{q}.coalitions coalitions per row), @qcode{'smoothgrad'},
## @qcode{'smoothgrad_sq'}, @qcode{'vargrad'} (s noise samples of
## @code{ee_gradient}'s saliency, stdev @var{q}.stdev) and
## @qcode{'gradientshap'} (s samples, the background @var{q}.background:
## token rows).
##
## The deterministic methods (@code{M.exact} true): @qcode{'saliency'},
## @qcode{'saliency_abs'}, @qcode{'saliency_l2'}, @qcode{'gradxinput'},
## @qcode{'deeplift'} (@code{ee_gradient}'s, the cnn and the mlp only) and
## @qcode{'occlusion'} (@code{ee_occlusion}'s feature ablation: window 1,
## stride 1).  One run is their exact value: @code{M.run} takes s and the
## seed for the same call shape and ignores them.
## @end deftypefn
function M = f5_method (q)
  m = q.method;
  K = q.coalitions;
  ## complete: the maps sum to f(x) - f(baseline) (libcore's
  ## ee_map_method_complete says the same for ee_train (clf, X, METHOD))
  M = struct ('method', m, 'complete', any (strcmp (m, {'ig', 'sv', 'kernelshap', 'deeplift'})), ...
              'exact', false, 'convergence', {{}});
  switch (m)
    case 'ig'
      M.run = @(model, X, s, seed, varargin) ee_ig (model, X, 'steps', s, 'method', q.ig_method, ...
                                                      'verbose', false, varargin{:});
      M.title = sprintf ('Integrated Gradients (%s)', q.ig_method);
      M.label = 'IG';
      M.unit = 'IG steps';
      M.convergence = {'method', q.ig_method};
    case 'sv'
      M.run = @(model, X, s, seed, varargin) ee_sv (model, X, 'samples', s, 'seed', seed, 'verbose', false, ...
                                                      varargin{:});
      M.title = 'Shapley Value Sampling';
      M.label = 'SV';
      M.unit = 'SV permutations';
    case 'kernelshap'
      M.run = @(model, X, s, seed, varargin) ee_sv (model, X, 'method', 'kernelshap', 'samples', s * K, ...
                                                      'seed', seed, 'verbose', false, varargin{:});
      M.title = sprintf ('KernelSHAP (s x %d coalitions)', K);
      M.label = 'KernelSHAP';
      M.unit = sprintf ('%d coalitions each', K);
      M.convergence = {'coalitions', K};
    case 'lime'
      M.run = @(model, X, s, seed, varargin) ee_lime (model, X, 'samples', s * K, 'seed', seed, ...
                                                        'verbose', false, varargin{:});
      M.title = sprintf ('LIME (s x %d coalitions)', K);
      M.label = 'LIME';
      M.unit = sprintf ('%d coalitions each', K);
      M.convergence = {'coalitions', K};
    case {'smoothgrad', 'smoothgrad_sq', 'vargrad'}
      M.run = @(model, X, s, seed, varargin) ee_gradient (model, X, 'noise', m, 'samples', s, 'stdev', q.stdev, ...
                                                            'seed', seed, 'verbose', false, varargin{:});
      names = struct ('smoothgrad', 'SmoothGrad', 'smoothgrad_sq', 'SmoothGrad-squared', 'vargrad', 'VarGrad');
      M.title = sprintf ('%s of the saliency (stdev %g)', names.(m), q.stdev);
      M.label = names.(m);
      M.unit = 'noise samples';
      M.convergence = {'options', {'stdev', q.stdev}};
    case 'gradientshap'
      bg = q.background;
      M.run = @(model, X, s, seed, varargin) ee_gradient (model, X, 'method', 'gradientshap', 'background', bg, ...
                                                            'samples', s, 'seed', seed, 'verbose', false, varargin{:});
      M.title = sprintf ('GradientSHAP (%d background rows)', rows (bg));
      M.label = 'GradientSHAP';
      M.unit = 'samples';
      M.convergence = {'options', {'background', bg}};
    case {'saliency', 'saliency_abs', 'saliency_l2', 'gradxinput', 'deeplift'}
      M.run = @(model, X, s, seed, varargin) ee_gradient (model, X, 'method', m, 'verbose', false, varargin{:});
      names = struct ('saliency', 'Saliency (signed)', 'saliency_abs', 'Saliency (absolute)', ...
                      'saliency_l2', 'Saliency (L2 norm)', 'gradxinput', 'Gradient x Input', ...
                      'deeplift', 'DeepLIFT (rescale)');
      M.title = names.(m);
      M.label = strtok (names.(m), ' ');
      if (strcmp (m, 'gradxinput')) M.label = 'GradxInput'; end
      if (strncmp (m, 'saliency_', 9)) M.label = ['Saliency-' m(10:end)]; end
      M.unit = 'one run (exact)';
      M.exact = true;
    case 'occlusion'
      M.run = @(model, X, s, seed, varargin) ee_occlusion (model, X, 'verbose', false, varargin{:});
      M.title = 'Occlusion (leave-one-out)';
      M.label = 'Occlusion';
      M.unit = 'one run (exact)';
      M.exact = true;
    otherwise
      error ('ee:badInput', 'figure5: panel %s: no method ''%s''', q.name, m);
  end
end
