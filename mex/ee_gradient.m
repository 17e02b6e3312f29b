## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_gradient (@var{model}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_gradient (@var{model}, @var{X}, @dots{})
## Gradient maps of a classifier's target logit (saliency, gradient x
## input, Integrated Gradients, GradientSHAP, DeepLIFT) and the noise
## tunnel over them (SmoothGrad, SmoothGrad-squared, VarGrad), for the
## transformer, the cnn and the mlp (DeepLIFT: the cnn and the mlp).
## doc/MODELS.md ("Gradient maps and the noise tunnel", "DeepLIFT")
## defines them.
##
## g is the gradient of the target logit with respect to the
## embedding-layer output e (T x d; the input x of an mlp) at the point
## e~; each method gives one score per token (per feature of an mlp),
## @var{A} N x T single (N x D):
## @table @asis
## @item 'saliency' (default)
## sum over d of g (signed);
## @item 'saliency_abs'
## sum over d of |g|;
## @item 'saliency_l2'
## the Euclidean norm of g over d;
## @item 'gradxinput'
## sum over d of e~ .* g (@code{ee_ig}'s 'gradxinput' at e~ = e);
## @item 'ig'
## Integrated Gradients from the baseline to e~ (@code{ee_ig}'s at e~ = e).
## @item 'gradientshap'
## GradientSHAP: the mean over n samples of sum over d of
## (e~ - e_b) .* g(e_b + a (e~ - e_b)), with e_b the embedding of the
## row with its real tokens taken from a row of @code{'background'}
## drawn uniformly (an mlp: that row itself) and a uniform in [0, 1): an
## estimate of the mean of IG over the background's baselines (the
## expected gradients of SHAP's GradientExplainer and Captum's
## GradientShap).  Its noise (@code{'stdev'}) is optional, default 0.
## @item 'deeplift'
## DeepLIFT with the rescale rule, as Captum's DeepLift: sum over d of
## (e~ - e_b) .* m, m the multipliers of the backward pass in which each
## ReLU's derivative is replaced by (relu(z) - relu(z_b)) / (z - z_b)
## (the gradient where z = z_b) and the cnn's max over time by Captum's
## max-pooling rule; e_b the reference, @code{'baseline'} as for 'ig'.
## Complete: each row's map sums to f(e~) - f(e_b), which
## @code{info.fbaseline} and @code{info.delta} (the gap, float
## rounding) report.  The cnn and the mlp, on the CPU ('device' 'auto'
## is the CPU for it): a transformer or 'device' 'gpu' is
## @code{ee:notSupported} (doc/MODELS.md says why).  A pass of the row
## and its reference forward, the row's backward.
## @end table
## Without noise e~ = e.  A noise tunnel (@code{'noise'}) takes n samples
## e~_k = e + z_k, z_k Gaussian with standard deviation @code{'stdev'} on
## every attended position (every feature of an mlp; the positions the
## model does not attend keep their embedding), and aggregates the n maps
## a_k of the method per token: their mean ('smoothgrad'), the mean of
## a_k.^2 ('smoothgrad_sq') or their population variance mean (a_k.^2) -
## mean (a_k).^2 ('vargrad').  Row i's samples are drawn from its own
## stream (seed, i), so any batch, row split, thread count or device
## gives the same noise.
##
## Options:
## @table @asis
## @item 'method'
## as above (default 'saliency').
## @item 'noise'
## 'none' (default), 'smoothgrad', 'smoothgrad_sq' or 'vargrad'.
## @item 'samples'
## n (default 10).  @item 'stdev'
## of the noise (default 0.15, in the units of e: a LayerNorm output of
## the transformer has unit spread per token).  @item 'seed'
## (default 1).
## @item 'noise_values'
## the noise to add instead of drawing it: W x n x N (W = d T, position
## by position, or D), as @code{info.noise_values} returns it.
## @item 'return_noise'
## true: @code{info.noise_values} holds the noise added (to check a map
## from outside, or to reuse the draws with another method).
## @item 'background'
## the method 'gradientshap' only (and required there): K x T token ids
## (K x D for an mlp); @code{info.background_row} and @code{info.alpha}
## (n x N) say what each sample drew.  'samples' (default 10), 'stdev'
## (default 0), 'seed', 'noise_values' and 'return_noise' apply as for a
## noise tunnel.
## @item 'steps', 'rule', 'baseline'
## the method 'ig' only: nodes (default 20), the quadrature rule
## ('gausslegendre' (default), 'riemann_right', 'riemann_left',
## 'riemann_middle', 'riemann_trapezoid') and the baseline ('pad', 'zero'
## or ids) as for @code{ee_ig}; 'baseline' also for 'deeplift'.
## @item 'target', 'rows', 'batch', 'device', 'precision', 'verbose'
## as for @code{ee_ig}.
## @end table
##
## Cost: N forward passes for the targets, then N n s forward and
## backward passes (s = 1 but for 'ig'; n = 1 without noise and
## gradientshap; 'deeplift': 2 N n forward and N n backward), batched
## across rows.  @var{info}: @code{target}, @code{fx}, @code{passes},
## @code{forward_passes}, @code{backward_passes}, @code{seconds},
## @code{method}, @code{steps}, @code{noise}, @code{samples},
## @code{stdev}, @code{seed} (and @code{rule} for 'ig'; @code{fbaseline}
## and @code{delta} for 'deeplift').
##
## A gateway of its own rather than methods of @code{ee_ig}: the noise
## tunnel wraps every gradient method (IG among them) with options that
## mean nothing to @code{ee_ig}'s contract or to its function-handle form,
## and @code{ee_ig}'s numbers and info stay as they are.
##
## @example
## S = ee_gradient (clf, X);                                   # saliency
## G = ee_gradient (clf, X, 'method', 'ig', 'noise', 'smoothgrad', 'samples', 20);
## @end example
## @seealso{ee_ig, ee_faithfulness}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared vdir, v, c, mlp
%! vdir = fullfile (fileparts (which ('ee_gradient')), '..', 'tests', 'vectors');
%! v = load (fullfile (vdir, 'transformer_tiny.mat'));
%! c = load (fullfile (vdir, 'cnn_tiny.mat'));
%! mlp = load (fullfile (vdir, 'mlp_tiny.mat'));

%!test
%! ## without noise, gradxinput and ig are ee_ig's
%! for w = {v, c, mlp}
%!   w = w{1};
%!   [A, info] = ee_gradient (w.model, w.X, 'method', 'gradxinput', 'verbose', false);
%!   B = ee_ig (w.model, w.X, 'method', 'gradxinput', 'verbose', false);
%!   assert (A, B, 1e-5 * max (abs (B(:))));
%!   assert (info.passes, 3 * rows (w.X));
%!   A = ee_gradient (w.model, w.X, 'method', 'ig', 'steps', 5, 'rule', 'riemann_middle', 'verbose', false);
%!   B = ee_ig (w.model, w.X, 'steps', 5, 'method', 'riemann_middle', 'verbose', false);
%!   assert (A, B, 1e-5 * max (abs (B(:))));
%! end

%!test
%! ## the transformer's saliency: the gradient at e, where the pads are
%! ## never read; the sum of |g| is at least the norm, and the norm >= 0
%! S = ee_gradient (v.model, v.X, 'verbose', false);
%! L2 = ee_gradient (v.model, v.X, 'method', 'saliency_l2', 'verbose', false);
%! Ab = ee_gradient (v.model, v.X, 'method', 'saliency_abs', 'verbose', false);
%! assert (all (S(v.X == 1) == 0) && all (L2(v.X == 1) == 0));
%! assert (all (Ab(:) >= L2(:) - 1e-6) && all (L2(:) >= 0));
%! assert (any (abs (S(v.X ~= 1)) > 1e-3));

%!test
%! ## the noise tunnel: given noise reproduces the drawn noise's map, bit
%! ## for bit; 'rows' draws each row's own noise; zero noise is no noise
%! [A, info] = ee_gradient (c.model, c.X, 'noise', 'smoothgrad', 'samples', 4, 'stdev', 0.2, 'seed', 3, ...
%!                          'return_noise', true, 'verbose', false);
%! assert (size (info.noise_values), [8 * 12, 4, 5]);
%! assert (info.passes, 5 + 2 * 5 * 4);
%! B = ee_gradient (c.model, c.X, 'noise', 'smoothgrad', 'samples', 4, 'noise_values', info.noise_values, 'verbose', false);
%! assert (isequal (A, B));
%! C = ee_gradient (c.model, c.X, 'noise', 'smoothgrad', 'samples', 4, 'stdev', 0.2, 'seed', 3, 'rows', [4 5], 'verbose', false);
%! assert (isequal (C, A([4 5], :)));
%! z = reshape (info.noise_values, 8, 12, 4, 5);
%! pads = reshape (c.X' == 1, 1, 12, 1, 5);
%! assert (all (z(repmat (pads, 8, 1, 4, 1)) == 0));
%! assert (std (z(! repmat (pads, 8, 1, 4, 1))), 0.2, 0.03);
%! S0 = ee_gradient (c.model, c.X, 'noise', 'smoothgrad', 'samples', 3, 'stdev', 0, 'verbose', false);
%! S = ee_gradient (c.model, c.X, 'verbose', false);
%! assert (S0, S, 1e-6 * max (abs (S(:))));

%!test
%! ## VarGrad is the variance and SmoothGrad-squared the second moment of
%! ## the samples' maps: E a^2 - (E a)^2 >= 0 up to rounding
%! o = {'samples', 6, 'stdev', 0.3, 'seed', 5, 'verbose', false};
%! M = ee_gradient (mlp.model, mlp.X, 'method', 'gradxinput', 'noise', 'smoothgrad', o{:});
%! Q = ee_gradient (mlp.model, mlp.X, 'method', 'gradxinput', 'noise', 'smoothgrad_sq', o{:});
%! V = ee_gradient (mlp.model, mlp.X, 'method', 'gradxinput', 'noise', 'vargrad', o{:});
%! assert (V, Q - M .^ 2, 1e-5 * max (abs (Q(:))));
%! assert (all (V(:) >= 0));   # Welford's variance: never below 0
%! assert (any (V(:) > 1e-4));

%!test
%! ## GradientSHAP with the pad baseline as its one background row and no
%! ## noise: a Monte Carlo estimate of IG over a ~ U[0, 1), which it
%! ## approaches; the draws it reports and reproduces
%! bg = ones (1, 12, 'int32');
%! [G, info] = ee_gradient (v.model, v.X, 'method', 'gradientshap', 'background', bg, 'samples', 1500, ...
%!                          'seed', 4, 'verbose', false);
%! I = ee_ig (v.model, v.X, 'steps', 40, 'verbose', false);
%! assert (G, I, 0.05 * max (abs (I(:))));
%! assert (info.passes, 5 + 2 * 5 * 1500);
%! assert (size (info.alpha), [1500 5]);
%! assert (all (info.background_row(:) == 1) && all (info.alpha(:) >= 0 & info.alpha(:) < 1));
%! assert (abs (mean (info.alpha(:)) - 0.5) < 0.02);
%! bg2 = [bg; c.X(4,:)];
%! [A, i2] = ee_gradient (c.model, c.X, 'method', 'gradientshap', 'background', bg2, 'samples', 6, 'stdev', 0.1, ...
%!                        'return_noise', true, 'verbose', false);
%! B = ee_gradient (c.model, c.X, 'method', 'gradientshap', 'background', bg2, 'samples', 6, ...
%!                  'noise_values', i2.noise_values, 'verbose', false);
%! assert (isequal (A, B));
%! assert (all (ismember (i2.background_row(:), [1 2])) && any (i2.background_row(:) == 2));
%! M = ee_gradient (mlp.model, mlp.X, 'method', 'gradientshap', 'background', zeros (1, 6), 'samples', 1500, ...
%!                  'verbose', false);
%! J = ee_ig (mlp.model, mlp.X, 'steps', 40, 'baseline', 'zero', 'verbose', false);
%! assert (M, J, 0.05 * max (abs (J(:))));

%!test
%! ## DeepLIFT: complete (the map sums to f(x) - f(reference), info.delta
%! ## the gap), ee_ig's reference, its passes
%! for w = {c, mlp}
%!   w = w{1};
%!   [A, info] = ee_gradient (w.model, w.X, 'method', 'deeplift', 'verbose', false);
%!   [~, iinfo] = ee_ig (w.model, w.X, 'steps', 2, 'verbose', false);
%!   assert (info.fbaseline, iinfo.fbaseline, 1e-5 * max (abs (iinfo.fbaseline)));
%!   gap = info.fx - info.fbaseline;
%!   assert (sum (A, 2), gap, 1e-4 * max (abs (gap)));
%!   assert (all (abs (info.delta) <= 1e-4 * max (abs (gap))));
%!   assert (info.passes, 4 * rows (w.X));
%!   assert (any (abs (A(:)) > 1e-3));
%! end
%! ## a reference equal to the row: the map is 0; the zero reference is
%! ## complete too
%! A = ee_gradient (c.model, c.X, 'method', 'deeplift', 'baseline', c.X, 'verbose', false);
%! assert (all (A(:) == 0));
%! [Z, zi] = ee_gradient (c.model, c.X, 'method', 'deeplift', 'baseline', 'zero', 'verbose', false);
%! assert (sum (Z, 2), zi.fx - zi.fbaseline, 1e-4 * max (abs (zi.fx - zi.fbaseline)));

%!test
%! ## DeepLIFT differs from gradient x (x - reference) where ReLUs switch,
%! ## and is its own SmoothGrad at zero noise
%! D = ee_gradient (mlp.model, mlp.X, 'method', 'deeplift', 'verbose', false);
%! G = ee_gradient (mlp.model, mlp.X, 'method', 'gradxinput', 'verbose', false);
%! assert (max (abs (D(:) - G(:))) > 1e-3 * max (abs (D(:))));
%! S = ee_gradient (mlp.model, mlp.X, 'method', 'deeplift', 'noise', 'smoothgrad', 'samples', 2, 'stdev', 0, ...
%!                  'verbose', false);
%! assert (S, D, 1e-6 * max (abs (D(:))));

%!test
%! ## where DeepLIFT is not defined: ee:notSupported
%! try
%!   ee_gradient (v.model, v.X, 'method', 'deeplift', 'verbose', false);
%!   error ('no error');
%! catch err
%!   assert (err.identifier, 'ee:notSupported', err.message);
%! end
%! ## on the GPU where there is one (the rescale rule has CUDA kernels);
%! ## without one, the request is ee:noDevice
%! try
%!   G = ee_gradient (c.model, c.X, 'method', 'deeplift', 'device', 'gpu', 'verbose', false);
%!   C = ee_gradient (c.model, c.X, 'method', 'deeplift', 'device', 'cpu', 'verbose', false);
%!   assert (max (abs (G(:) - C(:))) <= 1e-4 * max (abs (C(:))));
%! catch err
%!   assert (err.identifier, 'ee:noDevice', err.message);
%! end

%!error <needs 'background'> ee_gradient (v.model, v.X, 'method', 'gradientshap')
%!error <'background' applies> ee_gradient (v.model, v.X, 'background', ones (1, 12, 'int32'))
%!error <'noise' must be none> ee_gradient (v.model, v.X, 'method', 'gradientshap', 'noise', 'vargrad', 'background', ones (1, 12, 'int32'))
%!error <'method'> ee_gradient (v.model, v.X, 'method', 'lrp')
%!error <'steps' applies to the method 'ig'> ee_gradient (c.model, c.X, 'method', 'deeplift', 'steps', 4)
%!error <'noise'> ee_gradient (v.model, v.X, 'noise', 'gaussian')
%!error <'stdev'> ee_gradient (v.model, v.X, 'noise', 'smoothgrad', 'stdev', -1)
%!error <'samples' applies to a noise tunnel> ee_gradient (v.model, v.X, 'samples', 4)
%!error <'steps' applies to the method 'ig'> ee_gradient (v.model, v.X, 'steps', 4)
%!error <'noise_values' must have> ee_gradient (v.model, v.X, 'noise', 'vargrad', 'samples', 2, 'noise_values', zeros (3, 2))
%!error <usage> ee_gradient (v.model)
%!test
%! try
%!   ee_gradient (v.model, v.X, 'noise', 'smoothgrad', 'stdev', -1);
%!   error ('no error');
%! catch err
%!   assert (err.identifier, 'ee:badInput');
%! end
