## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_explain (@var{explainer}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_explain (@var{explainer}, @var{X}, @dots{})
## Attribution maps predicted by an Empirical Explainer in one forward pass.
##
## @var{explainer} comes from @code{ee_train (classifier, X, A, @dots{})};
## @var{X} is N x T int32 token ids; @var{A} is N x T single, one score per
## token (0 at [CLS], [SEP] and PAD when the explainer fixes them there).
## An explainer that reads the classifier's gradient (@code{inputs}
## @qcode{'gradient_ends'}, the default, or @qcode{'gradient'}) runs its
## classifier first, one forward and one backward pass per row (and one
## of each per distinct baseline and class for the baseline end, which
## the process keeps: a later call on the same classifier reads them
## instead of running them again, and counts them all the same); one that
## reads the occlusion scores (@qcode{'occlusion'}, the default for
## Shapley maps) adds 2 n + 2 forward passes per row of n real tokens,
## one that reads the gradient inside the IG path (@qcode{'path'}) a
## forward and a backward pass per row for each of its 3 nodes.  A margin
## explainer (@code{ee_train}'s @qcode{'margin'}) gives each map the sign of
## the class its classifier predicts, estimated from the map's sum and the
## classifier's margin at the row's pad baseline (one forward pass per
## distinct baseline, kept by the process as above) unless its features'
## classifier pass says it.  A cell or struct array of explainers of
## the same classifier is an ensemble: @var{A} is the mean of their maps.
## Options: @qcode{'batch'} (rows per pass), @qcode{'device'},
## @qcode{'precision'} ('fp32' default; 'tf32' or 'bf16' on a GPU, as for
## @code{ee_ig}).
## @var{info}: @code{passes} (every pass through the classifier and the
## explainers), @code{forward_passes}, @code{backward_passes},
## @code{members}, @code{inputs}, @code{target} (the explained class, when
## the classifier ran), @code{seconds}.
##
## @strong{Explainer of a function handle} (from @code{ee_train (@@f, X,
## @dots{})}): @var{X} is N x F double or single rows; @var{A} is N x F
## double, following @code{ee_sv (@@f, @dots{})}: with groups a player's
## value is spread equally over its columns (0 at columns of group 0), so
## a row's sum is the players' sum.  Without @qcode{'model'} @var{A} is
## the explainer's output as it is (no efficiency).  An explainer of one
## map per class (@code{ee_train}'s @qcode{'per_class'}, the default for a
## classifier of 2 to 16 classes) gives the map of the class f predicts
## with @qcode{'model'}, of the class @qcode{'target'} names (with or
## without @qcode{'model'}), else of the class c whose score as its maps
## tell it, @code{explains.fempty(c)} + the sum of class c's map, is
## highest (@var{info}.@code{target} says which).  With
## @code{'model', @@f} (the handle it explains), each row's players are
## shifted by the same amount so that they sum to f(x) - v(empty) at the
## target class (@qcode{'target'}: @qcode{'argmax'} of f(x), the default,
## one class, or one per row), v(empty) the mean of f over the recorded
## background rows (the baseline row; a row of zeros when neither was
## given): one call of f for X, and one for those rows unless
## @code{explains.fempty} (@code{ee_train} keeps it where it computed
## the maps) already holds their value.  @var{info}:
## @code{players} (N x P), @code{projected}, and with @qcode{'model'}
## @code{target}, @code{fx}, @code{fbaseline} and @code{delta} (the
## explainer's sum minus f(x) - v(empty), before the shift), @code{seconds}.
## Such an explainer scales each column of @var{X} as it was trained to
## (@code{explainer.input_scaling}: the training rows' median and robust
## spread, tails compressed beyond 3 spreads; @code{ee_train}'s
## @qcode{'scale_inputs'}), so @var{X} is given in its own units.
##
## @strong{Reading the check.}  @code{ee_train} measures every explainer it
## trains on its validation rows (else on its first 512 training rows; the
## maps it learnt from there) and keeps the result in
## @code{explainer.history.check}: @code{explainer_mse}, the MSE of the
## explainer's maps (as this function gives them; for an explainer of a
## function handle whose maps @code{ee_train} computed, with
## @code{'model', @@f}) against the target
## maps, per row over its positions or players and averaged over the
## rows; @code{zero_mse}, the same for a map of zeros (the maps' mean
## square); @code{sampled_mse}, the same for the expensive method's
## cheapest run on those rows (@code{sampled}: SV with one permutation,
## IG with one step; NaN when the maps were given, not computed by
## @code{ee_train}).  An explainer is worth its single pass where
## @code{explainer_mse} is well below both; @code{zero_mse /
## explainer_mse} says how much of the maps it explains.  When it is not
## below either, @code{check.weak} is true and @code{ee_train} warns with
## the id @code{ee:weakExplainer} (the warning can be turned off with
## @code{warning ('off', 'ee:weakExplainer')}): more rows, more epochs,
## inputs that carry the classifier's gradient or attention, or (for
## feature vectors) inputs on comparable scales usually help; on training
## rows the check is optimistic, so give @qcode{'validation'} rows.
## @seealso{ee_train, ee_ig, ee_sv}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared X, A, clf, ex
%! addpath (fullfile (fileparts (which ('ee_explain')), '..', 'tests', 'octave'));   # assert_budget_refusal
%! ## a synthetic task: the attribution of a token is a fixed function of its id
%! rand ('seed', 1);
%! N = 300; T = 12; V = 24;
%! X = ones (N, T, 'int32');
%! for i = 1:N
%!   L = randi ([3 T-2]);
%!   X(i, 1) = 3; X(i, 2:L+1) = randi ([5 V], 1, L); X(i, L+2) = 4;
%! end
%! w = mod ((1:V)', 5) - 2; w(1:4) = 0;
%! A = single (w(X));
%! y = int32 (1 + (sum (X == 7, 2) > 0));
%! clf = ee_train (struct ('kind', 'transformer', 'd', 16, 'heads', 2, 'layers', 1, 'ffn', 32), ...
%!                 X, y, 'epochs', 2, 'verbose', false, 'vocab', V);
%! ex = ee_train (clf, X(1:200,:), A(1:200,:), 'validation', {X(201:250,:), A(201:250,:)}, ...
%!                'epochs', 40, 'patience', 40, 'verbose', false, 'explains', struct ('method', 'synthetic'), ...
%!                'freeze', 'none', 'efficiency', false, 'inputs', 'gradient');   # an arbitrary map of token ids, not an
%!                                                         # attribution: the embeddings must learn it

%!test
%! ## the explainer learns the map: test MSE far below the variance of A
%! [P, info] = ee_explain (ex, X(251:end,:));
%! assert (size (P), [50 12]);
%! assert (class (P), 'single');
%! ## the default design reads the classifier's gradient (1 forward + 1
%! ## backward per row), then runs the explainer (1 forward per row)
%! assert (info.passes, 150);
%! assert (info.forward_passes, 100);
%! assert (info.inputs, 'gradient');
%! assert (isstruct (ex.classifier)); assert (size (ex.feat_W), [1 16]);
%! mse = mean ((P(:) - reshape (A(251:end,:), [], 1)) .^ 2);
%! assert (mse < 0.05 * var (A(:)));
%! assert (ex.head, 'token');        # the default design (ee_train)
%! assert (ex.attend, 'tokens');
%! assert (ex.zero_special, true);
%! assert (all (P(X(251:end,:) == 1 | X(251:end,:) == 3 | X(251:end,:) == 4) == 0));
%! assert (ex.explains.method, 'synthetic');
%! assert (ischar (ex.explains.classifier));
%! ## the encoder was copied from the classifier, then trained
%! assert (size (ex.encoder(1).Wq), size (clf.encoder(1).Wq));
%! assert (! isfield (ex, 'Wp'));

%!test
%! ## save/load keeps the outputs bit-identical
%! f = [tempname() '.mat'];
%! save ('-v7', f, 'ex'); r = load (f); delete (f);
%! assert (ee_explain (r.ex, X), ee_explain (ex, X));
%! assert (ee_explain (ex, X, 'batch', 7), ee_explain (ex, X));

%!test
%! ex2 = ee_train (clf, X(1:200,:), A(1:200,:), 'head', 'token', 'epochs', 30, 'verbose', false, ...
%!                'freeze', 'none', 'efficiency', false);
%! assert (ex2.head, 'token');
%! assert (size (ex2.head_W), [16 1]);
%! P = ee_explain (ex2, X(251:end,:));
%! assert (mean ((P(:) - reshape (A(251:end,:), [], 1)) .^ 2) < 0.1 * var (A(:)));

%!test
%! ## efficiency (the default with gradient inputs): the real tokens' scores
%! ## sum to f(x) - f(pad baseline) of the explained class, as SV maps do
%! [~, sv] = ee_sv (clf, X(251:end,:), 'samples', 1, 'verbose', false);
%! real = X(251:end,:) > 4 | X(251:end,:) == 2;
%! [~, info] = ee_explain (ex, X(251:end,:));
%! assert (info.target, sv.target);
%! e1 = ee_train (clf, X(1:50,:), A(1:50,:), 'epochs', 1, 'verbose', false);
%! assert (e1.efficiency, true);
%! [E, info] = ee_explain (e1, X(251:end,:));
%! assert (sum (double (E) .* real, 2), sv.fx - sv.fbaseline, 1e-4 * max (abs (sv.fx)) + 1e-5);
%! ## ... with the default inputs (Gradient x Input at the text and at the
%! ## baseline): a forward and a backward pass at the baseline per distinct
%! ## baseline (sequence length) and explained class
%! assert (info.inputs, 'gradient_ends'); assert (size (e1.feat_W), [2 16]);
%! nD = rows (unique ([sum(X(251:end,:) != 1, 2), double(info.target)], 'rows'));
%! assert ([info.forward_passes info.backward_passes], [100 + nD, 50 + nD]);
%! e1 = ee_train (clf, X(1:50,:), A(1:50,:), 'epochs', 1, 'verbose', false, 'inputs', 'gradient');
%! [E, info] = ee_explain (e1, X(251:end,:));
%! assert (sum (double (E) .* real, 2), sv.fx - sv.fbaseline, 1e-4 * max (abs (sv.fx)) + 1e-5);
%! ## with the gradient at the text only, one forward pass per distinct baseline
%! nL = numel (unique (sum (X(251:end,:) != 1, 2)));
%! assert ([info.forward_passes info.backward_passes], [100 + nL, 50]);
%! ## occlusion (the default for maps computed with 'sv'): the ends' passes
%! ## and 2 n + 2 forward passes per row of n real tokens, efficiency kept
%! e4 = ee_train (clf, X(1:30,:), 'sv', 'steps', 2, 'epochs', 1, 'verbose', false);
%! assert (e4.inputs, 'occlusion'); assert (size (e4.feat_W), [4 16]);
%! [E, info] = ee_explain (e4, X(251:end,:));
%! assert (sum (double (E) .* real, 2), sv.fx - sv.fbaseline, 1e-4 * max (abs (sv.fx)) + 1e-5);
%! occl = sum (2 * sum (real, 2) + 2);
%! assert ([info.forward_passes info.backward_passes], [100 + nD + occl, 50 + nD]);
%! e4 = ee_train (clf, X(1:30,:), 'sv', 'steps', 2, 'epochs', 1, 'verbose', false, 'inputs', 'gradient_ends');
%! assert (e4.inputs, 'gradient_ends');
%! ## the gradient inside the IG path: the ends' passes and a forward and a
%! ## backward pass per row at each of the 3 nodes, efficiency kept
%! e5 = ee_train (clf, X(1:30,:), A(1:30,:), 'inputs', 'path', 'epochs', 1, 'verbose', false);
%! assert (e5.inputs, 'path'); assert (size (e5.feat_W), [5 16]);
%! [E, info] = ee_explain (e5, X(251:end,:));
%! assert (sum (double (E) .* real, 2), sv.fx - sv.fbaseline, 1e-4 * max (abs (sv.fx)) + 1e-5);
%! assert ([info.forward_passes info.backward_passes], [100 + nD + 150, 50 + nD + 150]);
%! ## the classifier's attention and value paths: the ends' passes only
%! e6 = ee_train (clf, X(1:30,:), A(1:30,:), 'inputs', 'attention', 'epochs', 1, 'verbose', false);
%! H = double (clf.heads); L = numel (clf.encoder);
%! assert (e6.inputs, 'attention'); assert (size (e6.feat_W), [2 + H + L * H, 16]);
%! [E, info] = ee_explain (e6, X(251:end,:));
%! assert (sum (double (E) .* real, 2), sv.fx - sv.fbaseline, 1e-4 * max (abs (sv.fx)) + 1e-5);
%! assert ([info.forward_passes info.backward_passes], [100 + nD, 50 + nD]);
%! ## the forward pass and the last layer's [CLS] row: the baseline end,
%! ## the attention and the last layer's value paths (the backward at x
%! ## counted as one), the same maps' efficiency
%! e7 = ee_train (clf, X(1:30,:), A(1:30,:), 'inputs', 'attention_top', 'epochs', 1, 'verbose', false);
%! assert (e7.inputs, 'attention_top'); assert (size (e7.feat_W), [1 + 2 * H, 16]);
%! [E, info] = ee_explain (e7, X(251:end,:));
%! assert (sum (double (E) .* real, 2), sv.fx - sv.fbaseline, 1e-4 * max (abs (sv.fx)) + 1e-5);
%! assert ([info.forward_passes info.backward_passes], [100 + nD, 50 + nD]);
%! e = ex;
%! assert (e.efficiency, false);                # the shared explainer: efficiency off
%! E2 = ee_explain (e, X(251:end,:));
%! assert (max (abs (sum (double (E2) .* real, 2) - (sv.fx - sv.fbaseline))) > 1e-3);

%!test
%! ## 'layers': an explainer that keeps the first of its classifier's two
%! ## encoder layers; its maps keep their efficiency and pass counts, and
%! ## come back the same from a .mat file
%! clf2 = ee_train (struct ('kind', 'transformer', 'd', 16, 'heads', 2, 'layers', 2, 'ffn', 32), ...
%!                  X, int32 (1 + (sum (X == 7, 2) > 0)), 'epochs', 1, 'verbose', false, 'vocab', 24);
%! e = ee_train (clf2, X(1:30,:), A(1:30,:), 'inputs', 'attention_top', 'layers', 1, 'epochs', 1, 'verbose', false);
%! assert ([e.layers, numel(e.encoder), clf2.layers, numel(clf2.encoder)], [1 1 2 2]);
%! [~, sv] = ee_sv (clf2, X(251:end,:), 'samples', 1, 'verbose', false);
%! real = X(251:end,:) > 4 | X(251:end,:) == 2;
%! [E, info] = ee_explain (e, X(251:end,:));
%! assert (sum (double (E) .* real, 2), sv.fx - sv.fbaseline, 1e-4 * max (abs (sv.fx)) + 1e-5);
%! nD = rows (unique ([sum(X(251:end,:) != 1, 2), double(info.target)], 'rows'));
%! assert ([info.forward_passes info.backward_passes], [100 + nD, 50 + nD]);
%! f = [tempname() '.mat'];
%! save ('-v7', f, 'e'); r = load (f); delete (f);
%! assert (ee_explain (r.e, X(251:end,:)), E);
%! ## at least one layer, at most the classifier's; a transformer's only
%! for k = {0, 3, -1}
%!   try
%!     ee_train (clf2, X(1:30,:), A(1:30,:), 'layers', k{1}, 'epochs', 1, 'verbose', false);
%!     error ('no error');
%!   catch err
%!     assert (err.identifier, 'ee:badInput');
%!   end
%! end

%!test
%! ## the paper's design, one option away: flat head, token ids only, every
%! ## position attended and predicted; one pass per explanation
%! p = ee_train (clf, X(1:200,:), A(1:200,:), 'design', 'paper', 'epochs', 2, 'verbose', false);
%! assert ({p.head, p.inputs, p.attend, p.zero_special, p.efficiency}, {'flat', 'tokens', 'all', false, false});
%! assert (! isfield (p, 'classifier'));
%! [~, info] = ee_explain (p, X(1:10,:));
%! assert (info.passes, 10);

%!test
%! ## outputs 'auto': maps that credit [CLS]/[SEP] keep every output
%! B = A; B(:, 1) = 0.5;
%! e = ee_train (clf, X(1:50,:), B(1:50,:), 'epochs', 1, 'verbose', false, 'inputs', 'tokens');
%! assert (e.zero_special, false);
%! e = ee_train (clf, X(1:50,:), A(1:50,:), 'epochs', 1, 'verbose', false, 'inputs', 'tokens');
%! assert (e.zero_special, true);

%!test
%! ## an ensemble (cell or struct array) is the mean of its members' maps,
%! ## the classifier's gradient computed once
%! e2 = ee_train (clf, X(1:200,:), A(1:200,:), 'epochs', 3, 'seed', 2, 'verbose', false, 'efficiency', false, ...
%!                'inputs', 'gradient');
%! [E, info] = ee_explain ({ex, e2}, X(251:end,:));
%! M = (double (ee_explain (ex, X(251:end,:))) + double (ee_explain (e2, X(251:end,:)))) / 2;
%! assert (double (E), M, 1e-6 * max (abs (M(:))));
%! assert ([info.members info.forward_passes info.backward_passes], [2 150 50]);
%! assert (ee_explain ([ex e2], X(251:end,:)), E);

%!test
%! ## without validation data: every epoch runs, the last weights are kept,
%! ## and the progress lines carry no NaN
%! out = evalc ("e = ee_train (clf, X(1:50,:), A(1:50,:), 'epochs', 3);");
%! assert (isempty (strfind (lower (out), 'nan')));
%! assert (e.history.epochs_run, 3);

%!test
%! ## 'freeze', 'embeddings': the explainer's embeddings stay the classifier's
%! e = ee_train (clf, X(1:50,:), A(1:50,:), 'epochs', 2, 'verbose', false, 'freeze', 'embeddings');
%! assert ({e.E_tok, e.E_pos, e.ln_emb_g}, {clf.E_tok, clf.E_pos, clf.ln_emb_g});
%! assert (e.settings.freeze, 'embeddings');
%! assert (! isequal (e.encoder(1).W1, clf.encoder(1).W1));
%! assert (! isequal (ex.E_tok, clf.E_tok));

%!test
%! ## maps computed by ee_train itself: the same explainer as from ee_ig's maps
%! a = ee_train (clf, X(1:60,:), 'ig', 'validation', {X(201:230,:)}, 'steps', 5, 'epochs', 2, 'verbose', false);
%! b = ee_train (clf, X(1:60,:), ee_ig (clf, X(1:60,:), 'steps', 5, 'verbose', false), ...
%!               'validation', {X(201:230,:), ee_ig(clf, X(201:230,:), 'steps', 5, 'verbose', false)}, ...
%!               'epochs', 2, 'verbose', false);
%! assert (ee_explain (a, X(251:end,:)), ee_explain (b, X(251:end,:)));
%! assert ({a.explains.method, a.explains.steps}, {'ig', 5});
%! s = ee_train (clf, X(1:30,:), 'sv', 'steps', 3, 'epochs', 1, 'verbose', false);
%! assert (s.explains.method, 'sv');

%!error id=ee:badInput ee_train (clf, X, 'shap')  # not a method name (kernelshap is)
%!error id=ee:notSupported ee_explain (ex, X(1:3,:), 'device', 'cpu', 'precision', 'bf16')
%!error id=ee:badInput ee_explain (ex, X(1:3,:), 'precision', 'int8')
%!error id=ee:notSupported ee_train (clf, X(1:20,:), 'ig', 'device', 'cpu', 'precision', 'tf32', 'verbose', false)
%!error id=ee:badModel ee_train (clf, X, A, 'inputs', 'tokens', 'efficiency', true)
%!error id=ee:badInput ee_train (clf, X, A, 'freeze', 'head')
%!error id=ee:badInput ee_train (clf, X, A, 'steps', 5)
%!error id=ee:badInput ee_train (clf, X, A, 'validation', {X})
%!error <not the classifier the explainer was trained on>
%! e = ex; e.classifier.Wc(1) = e.classifier.Wc(1) + 1;
%! ee_explain (e, X(1:3,:));
%!error <explainer.classifier is missing> ee_explain (rmfield (ex, 'classifier'), X(1:3,:))
%!error id=ee:badInput ee_train (clf, X, A, 'inputs', 'hessian')
%!error id=ee:badModel ee_train (clf, X, A, 'head', 'flat', 'attend', 'tokens')
%!error id=ee:badInput ee_train (clf, X, A, 'schedule', 'step')
%!error id=ee:badInput ee_train ('cnn', X, int32 (1 + mod ((1:rows (X))', 2)), 'inputs', 'gradient')
%!error id=ee:badModel ee_explain ({ex, 3}, X)
%!error <share> ee_explain ({ex, ee_train(clf, X(1:20,:), A(1:20,:), 'epochs', 1, 'verbose', false)}, X)

%!test
%! ## a cnn's explainer learns the synthetic map too (held-out rows), from
%! ## the embedding and convolutions copied from its classifier, the
%! ## tokens alone; with each kind of classifier features it runs and is 0
%! ## at [CLS], [SEP] and PAD, and its features cost the classifier's passes
%! V = 24;
%! y = int32 (1 + (sum (X == 7, 2) > 0));
%! clfc = ee_train (struct ('kind', 'cnn', 'd', 16, 'filters', 16, 'widths', [1 2]), X, y, 'epochs', 2, ...
%!                  'verbose', false, 'vocab', V);
%! exc = ee_train (clfc, X(1:200,:), A(1:200,:), 'validation', {X(201:250,:), A(201:250,:)}, ...
%!                 'epochs', 40, 'patience', 40, 'verbose', false, 'explains', struct ('method', 'synthetic'), ...
%!                 'efficiency', false, 'inputs', 'tokens', 'lr', 1e-2);
%! assert ({exc.kind, exc.head, exc.attend}, {'cnn', 'token', 'tokens'});
%! assert (! isfield (exc, 'Wc'));
%! [P, info] = ee_explain (exc, X(251:end,:));
%! assert (info.passes, 50);
%! assert (mean ((P(:) - reshape (A(251:end,:), [], 1)) .^ 2) < 0.05 * var (A(:)));
%! special = X(251:end,:) == 1 | X(251:end,:) == 3 | X(251:end,:) == 4;
%! assert (all (P(special) == 0));
%! for in = {'gradient', 'gradient_vector', 'gradient_ends', 'occlusion', 'path'}
%!   e = ee_train (clfc, X(1:50,:), A(1:50,:), 'inputs', in{1}, 'epochs', 2, 'verbose', false, ...
%!                 'explains', struct ('method', 'synthetic'), 'efficiency', false);
%!   [P, info] = ee_explain (e, X(251:end,:));
%!   assert (info.inputs, in{1});
%!   assert (info.passes >= 150);   # 50 rows: a forward and a backward pass of the classifier each, and more
%!   assert (all (isfinite (P(:))) && all (P(special) == 0) && any (P(! special) != 0));
%! end

%!test
%! ## the memory budget: refused before allocating, with ee:outOfMemory and
%! ## the estimate; the loaded model is freed (no growth over many refusals)
%! assert_budget_refusal (@() ee_explain (ex, repmat (X, 5000, 1)));

%!error id=ee:badInput ee_train (clf, X, A(:, 1:5))
%!error id=ee:badInput ee_train (clf, X, A(1:10, :))
%!error id=ee:badInput
%! B = A; B(3, 4) = NaN;
%! ee_train (clf, X, B);
%!error id=ee:badInput ee_train (clf, X, A, 'head', 'wide')
%!error id=ee:badInput ee_train (clf, X, A, 'd', 8)
%!error id=ee:badInput ee_train (clf, X(:, 1:10), A(:, 1:10))
%!error id=ee:badModel ee_train (ex, X, A)
%!error id=ee:badModel ee_train (rmfield (clf, 'E_pos'), X, A)
%!error id=ee:badModel ee_explain (clf, X)
%!error id=ee:badModel ee_explain (struct ('kind', 'transformer'), X)
%!error id=ee:badInput ee_explain (ex, X(:, 1:5))
%!error id=ee:badInput ee_explain (ex, X, 'batch', -1)
%!error id=ee:badModel ee_predict (ex, X)
%!error id=ee:badModel ee_ig (ex, X)

%!test
%! ## explainer of a function handle: plain output, then the projection
%! w = [1 -2 0.5]; f = @(x) x * w';
%! X = [1 2 3; -1 0 2; 0.5 0.5 0.5; 2 -1 0];
%! e = ee_train (f, X, X .* w, 'hidden', [], 'epochs', 2, 'verbose', false);
%! [A, info] = ee_explain (e, X);
%! assert (size (A), [4 3]);
%! assert (info.players, A);
%! assert (! info.projected);
%! [B, info] = ee_explain (e, X, 'model', f);
%! assert (info.projected);
%! assert (sum (B, 2), X * w', 1e-9);        # no baseline: v(empty) = f(0) = 0
%! assert (B - A, repmat ((X * w' - sum (A, 2)) / 3, 1, 3), 1e-9);
%! assert (info.target, ones (4, 1));
%!test
%! ## an explainer of one map per class: the class f predicts with 'model',
%! ## the class given with 'target' (with or without 'model'), else the
%! ## class of highest fempty + sum of its map, read here from the three
%! ## maps that 'target' gives
%! f = @(x) [x(:,1) - x(:,2), x(:,2) .* x(:,3), -x(:,3)];
%! randn ('seed', 3); X = randn (60, 3);
%! warning ('off', 'ee:weakExplainer', 'local');
%! E = ee_train (f, X, 'exact', 'epochs', 3, 'verbose', false);
%! assert (E.explains.classes, 3);
%! M = zeros (60, 3, 3);
%! for c = 1:3
%!   [M(:,:,c), info] = ee_explain (E, X, 'target', c);
%!   assert (info.target, c * ones (60, 1));
%!   assert (! info.projected);
%! end
%! [A, info] = ee_explain (E, X);
%! [~, est] = max (E.explains.fempty + squeeze (sum (M, 2)), [], 2);
%! assert (info.target, est);
%! for i = 1:60 assert (A(i,:), M(i,:,est(i))); end
%! [B, info] = ee_explain (E, X, 'model', f);
%! [~, cls] = max (f (X), [], 2);
%! assert (info.target, cls);
%! for i = 1:60 assert (sum (B(i,:)), f (X(i,:))(cls(i)) - f (zeros (1, 3))(cls(i)), 1e-9); end
%! for i = 1:60 assert (B(i,:) - M(i,:,cls(i)), info.delta(i) / -3 * ones (1, 3), 1e-9); end
%! ## v(empty) is the one ee_train kept (f is called once, for X)
%! moved = E; moved.explains.fempty += [1 2 3];
%! [B2, i2] = ee_explain (moved, X, 'model', f);
%! assert (i2.fbaseline, moved.explains.fempty(cls)', 1e-12);
%! assert (sum (B2, 2), i2.fx - i2.fbaseline, 1e-9);
%! bad = E; bad.explains.classes = 2;
%! try ee_explain (bad, X); error ('no error'); catch err; assert (err.identifier, 'ee:badModel'); end
%! bad = E; bad.explains = rmfield (bad.explains, 'fempty');
%! try ee_explain (bad, X); error ('no error'); catch err; assert (err.identifier, 'ee:badModel'); end
%! bad = E; bad.explains.classes = 0;
%! try ee_explain (bad, X); error ('no error'); catch err; assert (err.identifier, 'ee:badModel'); end
%! bad = E; bad.explains.fempty = [1 2];
%! try ee_explain (bad, X); error ('no error'); catch err; assert (err.identifier, 'ee:badModel'); end
%! try ee_explain (E, X, 'model', @(x) x(:, 1:2)); error ('no error'); catch err; assert (err.identifier, 'ee:badInput'); end
%!error <ee:callbackError|boom> ee_explain (ee_train (@(x) x(:, 1), [1 2; 3 4], [1 0; 3 0], 'hidden', [], 'epochs', 1, 'verbose', false), [1 2], 'model', @(x) error ('boom'))
%!error <'model' must be the function handle> ee_explain (ee_train (@(x) x(:, 1), [1 2; 3 4], [1 0; 3 0], 'hidden', [], 'epochs', 1, 'verbose', false), [1 2], 'model', 3)
%!error <'target' applies with 'model'> ee_explain (ee_train (@(x) x(:, 1), [1 2; 3 4], [1 0; 3 0], 'hidden', [], 'epochs', 1, 'verbose', false), [1 2], 'target', 1)
