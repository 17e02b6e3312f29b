## -*- texinfo -*-
## @deftypefn  {} {@var{labels} =} ee_predict (@var{model}, @var{X}, @dots{})
## @deftypefnx {} {[@var{labels}, @var{logits}] =} ee_predict (@var{model}, @var{X}, @dots{})
## Classify the rows of @var{X} with a classifier trained by @code{ee_train}.
##
## @var{X} is N x T int32 token ids (or N x D single for an mlp).
## @var{labels} is N x 1 int32 (argmax of the logits, ties to the lowest
## class) and @var{logits} N x C single.
##
## Options: @qcode{'mask'} (logical N x T, the positions the model attends
## to; default @code{X ~= 1}, i.e. not PAD: pass the mask of an original
## input to evaluate a perturbed copy exactly as the attribution samplers
## do), @qcode{'batch'} (rows per pass), @qcode{'device'} ('auto', 'cpu',
## 'gpu'), @qcode{'precision'} ('fp32' default; 'tf32' or 'bf16' on a
## GPU's tensor cores, as for @code{ee_ig}).
##
## The model struct is validated field by field: a malformed struct raises
## @code{ee:badModel}, bad data @code{ee:badInput}.
## @seealso{ee_train, ee_ig, ee_sv}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared v, X
%! addpath (fullfile (fileparts (which ('ee_predict')), '..', 'tests', 'octave'));   # assert_budget_refusal
%! v = load (fullfile (fileparts (which ('ee_predict')), '..', 'tests', 'vectors', 'transformer_tiny.mat'));
%! X = v.X;

%!test
%! [lab, lg] = ee_predict (v.model, X);
%! assert (class (lg), 'single');
%! assert (double (lg), v.logits, 1e-4 * max (abs (v.logits(:))));
%! assert (double (lab), v.target);

%!test
%! ## the default mask is X ~= 1; an explicit one gives the same logits
%! [~, a] = ee_predict (v.model, X);
%! [~, b] = ee_predict (v.model, X, 'mask', X ~= 1, 'batch', 2);
%! assert (a, b, 1e-6);
%! ## the pad baseline under the original mask: the reference's fbaseline
%! [~, c] = ee_predict (v.model, v.baseline_ids, 'mask', v.mask);
%! fb = c(sub2ind (size (c), (1:rows (c))', v.target));
%! assert (double (fb), v.fbaseline, 1e-4 * max (abs (v.logits(:))));

%!test
%! for f = {'cnn_tiny', 'cnn_tiny_nobias', 'mlp_tiny', 'mlp_tiny_nobias'}
%!   w = load (fullfile (fileparts (which ('ee_predict')), '..', 'tests', 'vectors', [f{1} '.mat']));
%!   [~, lg] = ee_predict (w.model, w.X);
%!   assert (double (lg), w.logits, 1e-4 * max (abs (w.logits(:))));
%! end

## bad data
%!test
%! ## the gateways keep the models they load between calls: a weight
%! ## changed (the second time in place: the array is no longer shared)
%! ## gives the new logits, and changed back the reference's again
%! m = v.model;
%! t = X(1, 2);
%! assert (t != 1);                     # a real token of row 1, not [PAD]
%! w = m.E_tok(t, 1);
%! tol = 1e-4 * max (abs (v.logits(:)));
%! for k = 1:2
%!   [~, a] = ee_predict (m, X);
%!   assert (double (a), v.logits, tol);
%!   m.E_tok(t, 1) = w + 1;
%!   [~, b] = ee_predict (m, X);
%!   assert (max (abs (double (b(1, :)) - v.logits(1, :))) > 100 * tol);
%!   m.E_tok(t, 1) = w;
%! end
%! [~, c] = ee_predict (m, X);
%! assert (double (c), v.logits, tol);

%!test
%! ## the same bits for any batch and any split of the rows
%! [~, a] = ee_predict (v.model, X);
%! for bt = [1 2 3 7]
%!   [~, b] = ee_predict (v.model, X, 'batch', bt);
%!   assert (b, a);
%! end
%! [~, c] = ee_predict (v.model, X(2:3, :));
%! assert (c, a(2:3, :));

%!test
%! ## a model struct from a truncated -v6 file holds undefined elements:
%! ## every cut that Octave loads gives a result or an ee: error, no panic
%! m = ee_train ('mlp', single ([1 2; 3 1; 0 2]), [1; 2; 1], 'epochs', 1, 'verbose', false, 'hidden', 2);
%! f = [tempname() '.mat'];
%! save ('-v6', f, 'm');
%! fid = fopen (f); b = fread (fid, Inf, 'uint8=>uint8'); fclose (fid);
%! tried = 0;
%! for L = numel (b) - 8:-8:128
%!   fid = fopen (f, 'w'); fwrite (fid, b(1:L)); fclose (fid);
%!   try, r = load (f); catch, continue; end
%!   if (! isfield (r, 'm')) continue; end
%!   tried++;
%!   try
%!     ee_predict (r.m, single ([1 2]));
%!   catch err
%!     assert (strncmp (err.identifier, 'ee:', 3), err.message);
%!   end
%! end
%! delete (f);
%! assert (tried > 5);

%!test
%! ## the memory budget: refused before allocating, with ee:outOfMemory and
%! ## the estimate; the loaded model is freed (no growth over many refusals)
%! assert_budget_refusal (@() ee_predict (v.model, repmat (X, 20000, 1)));

%!error id=ee:badInput ee_predict (v.model, X(:, 1:5))
%!error id=ee:badInput ee_predict (v.model, X + 100)
%!error id=ee:badInput ee_predict (v.model, X - 1)
%!error id=ee:badInput ee_predict (v.model, single (X))
%!error id=ee:badInput ee_predict (v.model, X, 'mask', true (2, 2))
%!error id=ee:badInput ee_predict (v.model, X, 'mask', false (size (X)))
%!error id=ee:badInput ee_predict (v.model, X, 'mask', [false(5, 1) true(5, 11)])
%!error id=ee:badInput ee_predict (v.model, X, 'batch', 0)
%!error id=ee:badInput ee_predict (v.model, X, 'device', 3)
%!error id=ee:badInput ee_predict (v.model, X, 'precision', 'fp16')
%!error id=ee:notSupported ee_predict (v.model, X, 'device', 'cpu', 'precision', 'tf32')
%!error id=ee:notSupported ee_predict (v.model, X, 'device', 'cpu', 'precision', 'bf16')
%!test
%! ## 'fp32' is the default precision: the same logits, bit for bit
%! [~, a] = ee_predict (v.model, X, 'device', 'cpu');
%! [~, b] = ee_predict (v.model, X, 'device', 'cpu', 'precision', 'fp32');
%! assert (isequal (a, b));
%!error id=ee:badInput ee_predict (v.model, X, 'Mask')
%!error id=ee:badInput ee_predict (v.model, cat (3, X, X))
## hostile model structs
%!error id=ee:badModel ee_predict (42, X)
%!error id=ee:badModel ee_predict ([v.model v.model], X)
%!error id=ee:badModel ee_predict (rmfield (v.model, 'kind'), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'kind', 'rnn'), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'kind', 7), X)
%!error id=ee:badModel ee_predict (rmfield (v.model, 'E_tok'), X)
%!error <has 2 elements but> ee_predict (setfield (v.model, 'layers', 0), X)
%!error <must be a numeric scalar> ee_predict (setfield (v.model, 'heads', true), X)
%!error <NUL> ee_predict (setfield (v.model, 'kind', ['transformer' char(0)]), X)
%!error <head_W is present> ee_predict (setfield (v.model, 'head_W', single (1)), X)
%!error id=ee:badModel
%! w = load (fullfile (fileparts (which ('ee_predict')), '..', 'tests', 'vectors', 'cnn_tiny.mat'));
%! m = w.model; m.bias = false;
%! ee_predict (m, w.X);
%!error <conv\(1\)\.b is present>
%! w = load (fullfile (fileparts (which ('ee_predict')), '..', 'tests', 'vectors', 'cnn_tiny.mat'));
%! m = rmfield (w.model, 'bc'); m.bias = false;
%! ee_predict (m, w.X);
%!error id=ee:badInput ee_predict (v.model, X, 'batch', true)
%!error id=ee:badInput ee_predict (v.model, X, 'batch', 2, 'batch', 3)
%!error id=ee:badModel ee_predict (setfield (v.model, 'E_tok', double (v.model.E_tok)), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'E_tok', v.model.E_tok(1:10, :)), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'E_tok', complex (v.model.E_tok)), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'Wc', NaN (size (v.model.Wc), 'single')), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'bc', Inf (size (v.model.bc), 'single')), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'heads', 3), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'heads', 0), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'heads', 2.5), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'heads', [2 2]), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'heads', 'two'), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'd', 1e12), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'vocab', 1e9), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'T', 13), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'layers', 3), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'encoder', v.model.encoder(1)), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'encoder', 5), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'bias', 2), X)
%!error id=ee:badModel ee_predict (setfield (v.model, 'head', 'wide'), X)
%!error id=ee:badModel
%! m = v.model; m.E_tok(1, 1) = 1;   % the PAD row must stay zero
%! ee_predict (m, X);
%!error id=ee:badModel
%! m = v.model; m.encoder(2).W1 = m.encoder(2).W1';
%! ee_predict (m, X);
%!error id=ee:badModel
%! m = v.model; m.encoder(1).ln1_g = int32 (m.encoder(1).ln1_g);
%! ee_predict (m, X);
