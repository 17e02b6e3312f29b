## -*- texinfo -*-
## @deftypefn  {} {@var{model} =} ee_train (@var{spec}, @var{X}, @var{y}, @dots{})
## @deftypefnx {} {@var{expl} =} ee_train (@var{model}, @var{X}, @var{A}, @dots{})
## Train a text classifier, or an Empirical Explainer of a trained classifier.
##
## @strong{Classifier.} @var{spec} is a kind name (@qcode{'transformer'},
## @qcode{'cnn'}, @qcode{'mlp'}) or a struct with field @code{kind} and
## optional sizes: transformer @code{d} (64), @code{heads} (4), @code{layers}
## (2), @code{ffn} (256); cnn @code{d} (64), @code{filters} (100),
## @code{widths} ([3 4 5]); mlp @code{hidden} ([64]); all kinds @code{bias}
## (true; false gives the bias-free cnn/mlp), @code{classes} (default
## max(@var{y})), @code{vocab} (default max(@var{X}(:))).  Sizes may also be
## given as name/value options.  @var{X} is an N x T int32 matrix of 1-based
## token ids (PAD = 1 after the last real token), or N x D single for an
## mlp; @var{y} holds the N class indices (1-based).
##
## @strong{Explainer.} With a trained classifier as first argument and an
## N x T single matrix @var{A} of attribution maps, builds an Empirical
## Explainer (embedding module and encoder copied from the classifier, a new
## head, attention to every position, MSE loss).  Option @qcode{'head'}:
## @qcode{'flat'} (default, the reference design) or @qcode{'token'}.
##
## Options (name/value, case-insensitive):
## @table @asis
## @item 'validation'
## @{Xv, yv@} (or @{Xv, Av@}): early stopping on the validation loss, the
## weights of the best epoch are kept.
## @item 'epochs', 'lr', 'batch', 'patience', 'seed', 'dropout'
## Adam training; defaults depend on the kind (transformer: 10, 5e-4, 32, 3,
## 1, 0.1; cnn: 10, 1e-3, 50, 3, 1, 0.5; mlp: 50, 1e-3, 32, 3, 1, 0).
## @item 'device'
## 'auto' (default), 'cpu' or 'gpu'.
## @item 'verbose'
## true (default) prints a progress line with rate and ETA.
## @end table
##
## The result is a plain struct (kind, sizes, weights as single arrays,
## @code{settings}, @code{history}) that @code{save}/@code{load} round-trip;
## its layout is documented in doc/MODEL_FORMAT.md.
## @seealso{ee_predict, ee_explain, ee_ig, ee_sv}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!shared X, y
%! X = int32([3 5 6 4 1 1; 3 7 8 9 4 1; 3 5 5 4 1 1; 3 9 8 4 1 1]);
%! y = int32([1; 2; 1; 2]);

%!test
%! m = ee_train ('mlp', single (rand (20, 3)), randi (2, 20, 1), 'epochs', 2, 'verbose', false);
%! assert (m.kind, 'mlp');
%! assert (m.D, 3);
%! assert (class (m.fc(1).W), 'single');
%! assert (m.history.epochs_run, 2);

%!test
%! ## spec struct, sizes honoured; save/load round trip keeps the logits
%! s = struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16);
%! m = ee_train (s, X, y, 'epochs', 3, 'verbose', false, 'vocab', 12);
%! assert ([m.d m.heads m.layers m.ffn m.vocab m.T m.classes], [8 2 1 16 12 6 2]);
%! assert (size (m.encoder(1).Wq), [8 8]);
%! f = [tempname() '.mat'];
%! save ('-v7', f, 'm'); r = load (f); delete (f);
%! [~, a] = ee_predict (m, X); [~, b] = ee_predict (r.m, X);
%! assert (a, b);

%!test
%! ## same seed, same model
%! a = ee_train ('cnn', X, y, 'epochs', 2, 'verbose', false, 'd', 4, 'filters', 3, 'widths', [2 3], 'seed', 7);
%! b = ee_train ('cnn', X, y, 'epochs', 2, 'verbose', false, 'd', 4, 'filters', 3, 'widths', [2 3], 'seed', 7);
%! assert (a.conv(2).W, b.conv(2).W);
%! assert (size (a.conv(2).W), [3 4 3]);

%!test
%! m = ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false, 'bias', false, 'd', 4, 'filters', 2);
%! assert (m.bias, false);
%! assert (! isfield (m.conv, 'b'));
%! assert (! isfield (m, 'bc'));

%!test
%! ## deep transformers: 32 and 64 layers (past the old 512-tensor table)
%! for L = [32 64]
%!   m = ee_train (struct ('kind', 'transformer', 'd', 4, 'heads', 1, 'layers', L, 'ffn', 4), ...
%!                 X, y, 'epochs', 1, 'verbose', false);
%!   assert (numel (m.encoder), L);
%!   f = [tempname() '.mat'];
%!   save ('-v7', f, 'm'); r = load (f); delete (f);
%!   [~, a] = ee_predict (m, X); [~, b] = ee_predict (r.m, X);
%!   assert (a, b);
%! end

%!test
%! ## the history keeps every epoch (it stopped at 4096)
%! m = ee_train (struct ('kind', 'mlp', 'hidden', 2), single ([1 2; 3 1; 0 2; 1 1]), [1; 2; 1; 2], ...
%!               'epochs', 4100, 'verbose', false);
%! assert (size (m.history.train_loss), [1 4100]);
%! assert (m.history.epochs_run, 4100);

%!error <'kind' is 'mlp' but SPEC says 'cnn'> ee_train ('cnn', X, y, 'kind', 'mlp')
%!error <'kind' is 'mlp'> ee_train (struct ('kind', 'cnn'), X, y, 'kind', 'mlp')
%!error <given twice> ee_train ('cnn', X, y, 'epochs', 1, 'epochs', 0)
%!error <given twice> ee_train ('cnn', X, y, 'Epochs', 1, 'epochs', 2)
%!error id=ee:badInput ee_train ('cnn', X, y, 'epochs', true)
%!error id=ee:badInput ee_train ('cnn', X, y, 'widths', [true true])
%!error id=ee:badInput ee_train (struct ('kind', 'cnn', 'explains', 1), X, y)
%!error id=ee:badInput ee_train ('transformer', X, y, 'layers', 65)
%!test
%! m = ee_train (struct ('d', 4, 'filters', 2), X, y, 'kind', 'cnn', 'epochs', 1, 'verbose', false);
%! assert (m.kind, 'cnn');
%!error <kind and sizes are the classifier's>
%! m = ee_train ('transformer', X, y, 'epochs', 1, 'verbose', false, 'd', 4, 'heads', 1, 'layers', 1, 'ffn', 4);
%! ee_train (m, X, zeros (size (X), 'single'), 'kind', 'cnn');

%!test
%! ## the memory budget: refused before allocating, with ee:outOfMemory and
%! ## the estimate; the loaded model is freed (no growth over many refusals)
%! old = getenv ('EE_MEMORY_MB');
%! unwind_protect
%!   setenv ('EE_MEMORY_MB', '1');
%!   try
%!     ee_train ('transformer', repmat (X, 5000, 1), repmat (y, 5000, 1), 'verbose', false);
%!     error ('not refused');
%!   catch err
%!     assert (err.identifier, 'ee:outOfMemory');
%!     assert (! isempty (regexp (err.message, 'about \d+ MB.*only 1 MB.*EE_MEMORY_MB', 'once')), err.message);
%!   end
%! unwind_protect_cleanup
%!   setenv ('EE_MEMORY_MB', old);
%! end_unwind_protect

%!error <ee_train> ee_train ('cnn', X)
%!error <Invalid call|usage> ee_train ()
%!error id=ee:badInput ee_train ('cnn', X, y, 'epochs')
%!error id=ee:badInput ee_train ('cnn', X, y, 'nosuchoption', 1)
%!error id=ee:badInput ee_train ('cnn', X, y, 3, 1)
%!error id=ee:badInput ee_train ('rnn', X, y)
%!error id=ee:badInput ee_train (struct ('kind', 'cnn', 'depth', 3), X, y)
%!error id=ee:badInput ee_train ('cnn', single (X), y)
%!error id=ee:badInput ee_train ('cnn', 'abc', y)
%!error id=ee:badInput ee_train ('cnn', X - 1, y)
%!error id=ee:badInput ee_train ('cnn', double (X) + 0.5, y)
%!error id=ee:badInput ee_train ('cnn', X, [1; 2; 3])
%!error id=ee:badInput ee_train ('cnn', X, [1; 2; 0; 1])
%!error id=ee:badInput ee_train ('cnn', X, [1; 2; NaN; 1])
%!error id=ee:badInput ee_train ('cnn', X, y, 'classes', 1)
%!error id=ee:badInput ee_train ('cnn', X, [1; 2; 3; 1], 'classes', 2)
%!error id=ee:badInput ee_train ('cnn', X, y, 'vocab', 5)
%!error id=ee:badInput ee_train ('cnn', X, y, 'lr', -1)
%!error id=ee:badInput ee_train ('cnn', X, y, 'lr', NaN)
%!error id=ee:badInput ee_train ('cnn', X, y, 'epochs', 0)
%!error id=ee:badInput ee_train ('cnn', X, y, 'epochs', 1.5)
%!error id=ee:badInput ee_train ('cnn', X, y, 'dropout', 1)
%!error id=ee:badInput ee_train ('cnn', X, y, 'device', 'tpu')
%!error id=ee:badInput ee_train ('cnn', X, y, 'verbose', 2)
%!error id=ee:badInput ee_train ('cnn', X, y, 'validation', {X})
%!error id=ee:badInput ee_train ('cnn', X, y, 'validation', {X(:, 1:3), y})
%!error id=ee:badInput ee_train ('cnn', X, y, 'validation', {X, [1; 2]})
%!error id=ee:badInput ee_train ('cnn', X, y, 'widths', [2 0])
%!error id=ee:badInput ee_train ('cnn', X, y, 'widths', ones (1, 9))
%!error id=ee:badModel ee_train ('cnn', X, y, 'widths', 7)
%!error id=ee:badModel ee_train ('transformer', X, y, 'd', 6, 'heads', 4)
%!error id=ee:badModel ee_train ('transformer', X, y, 'bias', false)
%!error id=ee:badInput ee_train ('mlp', single ([1 NaN; 2 3]), [1; 2])
%!error id=ee:badInput ee_train ('mlp', X, y, 'head', 'flat')
