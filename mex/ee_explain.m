## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_explain (@var{explainer}, @var{X}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_explain (@var{explainer}, @var{X}, @dots{})
## Attribution maps predicted by an Empirical Explainer in one forward pass.
##
## @var{explainer} comes from @code{ee_train (classifier, X, A, @dots{})};
## @var{X} is N x T int32 token ids; @var{A} is N x T single, one score per
## token (the explainer was trained on every position, pads included).
## Options: @qcode{'batch'} (rows per pass), @qcode{'device'}.
## @var{info}: @code{passes} (N), @code{seconds}.
## @seealso{ee_train, ee_ig, ee_sv}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared X, A, clf, ex
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
%!                'epochs', 40, 'patience', 40, 'verbose', false, 'explains', struct ('method', 'synthetic'));

%!test
%! ## the explainer learns the map: test MSE far below the variance of A
%! [P, info] = ee_explain (ex, X(251:end,:));
%! assert (size (P), [50 12]);
%! assert (class (P), 'single');
%! assert (info.passes, 50);
%! mse = mean ((P(:) - reshape (A(251:end,:), [], 1)) .^ 2);
%! assert (mse < 0.05 * var (A(:)));
%! assert (ex.head, 'flat');
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
%! ex2 = ee_train (clf, X(1:200,:), A(1:200,:), 'head', 'token', 'epochs', 30, 'verbose', false);
%! assert (ex2.head, 'token');
%! assert (size (ex2.head_W), [16 1]);
%! P = ee_explain (ex2, X(251:end,:));
%! assert (mean ((P(:) - reshape (A(251:end,:), [], 1)) .^ 2) < 0.1 * var (A(:)));

%!test
%! ## the memory budget: refused before allocating, with ee:outOfMemory and
%! ## the estimate; the loaded model is freed (no growth over many refusals)
%! old = getenv ('EE_MEMORY_MB');
%! unwind_protect
%!   setenv ('EE_MEMORY_MB', '1');
%!   try
%!     ee_explain (ex, repmat (X, 5000, 1));
%!     error ('not refused');
%!   catch err
%!     assert (err.identifier, 'ee:outOfMemory');
%!     assert (! isempty (regexp (err.message, 'about \d+ MB.*only 1 MB.*EE_MEMORY_MB', 'once')), err.message);
%!   end
%! unwind_protect_cleanup
%!   setenv ('EE_MEMORY_MB', old);
%! end_unwind_protect

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
