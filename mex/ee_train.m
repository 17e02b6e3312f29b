## -*- texinfo -*-
## @deftypefn  {} {@var{model} =} ee_train (@var{spec}, @var{X}, @var{y}, @dots{})
## @deftypefnx {} {@var{expl} =} ee_train (@var{model}, @var{X}, @var{A}, @dots{})
## @deftypefnx {} {@var{expl} =} ee_train (@var{f}, @var{X}, @var{method}, @dots{})
## @deftypefnx {} {@var{expl} =} ee_train (@var{f}, @var{X}, @var{A}, @dots{})
## Train a text classifier, or an Empirical Explainer of a trained classifier
## or of any model given as a function handle.
##
## @strong{Classifier.} @var{spec} is a kind name (@qcode{'transformer'},
## @qcode{'cnn'}, @qcode{'mlp'}) or a struct with field @code{kind} and
## optional sizes: transformer @code{d} (64), @code{heads} (4), @code{layers}
## (2), @code{ffn} (256); cnn @code{d} (64), @code{filters} (100),
## @code{widths} ([3 4 5]); mlp @code{hidden} ([64]); all kinds @code{bias}
## (true; false gives the bias-free cnn/mlp), @code{classes} (default
## max(@var{y})), @code{vocab} (default max(@var{X}(:))).  Sizes may also be
## given as name/value options.  @code{vocab} may be the vocabulary itself
## (a 1 x V cell of words starting with [PAD] [UNK] [CLS] [SEP], e.g. a
## dataset's @code{vocab}) and @code{classes} the class names (a cell):
## the model then carries them (fields @code{vocab_words},
## @code{class_names}; explainers keep them), so that @code{ee_tokenize}
## and @code{ee_plot_text} need only the model.  @var{X} is an N x T int32 matrix of 1-based
## token ids (PAD = 1 after the last real token), or N x D single for an
## mlp; @var{y} holds the N class indices (1-based).
##
## @strong{Explainer.} With a trained classifier as first argument and an
## N x T single matrix @var{A} of attribution maps, builds an Empirical
## Explainer: the embedding module and encoder copied from the classifier,
## a new head, MSE loss.  The rows of @var{X} may be any text of the domain,
## labelled or not: the maps come from the classifier.  @var{A} may also be
## @qcode{'ig'} or @qcode{'sv'}: the maps are then computed here (IG with
## the pad baseline and Gauss-Legendre nodes, or Shapley Value Sampling
## with seed 1; option @qcode{'steps'}, default 20), for @var{X} and for the
## validation rows (@qcode{'validation'}, @{Xv@}), or the name of a method
## of @code{ee_gradient} (@qcode{'saliency'}, @qcode{'saliency_abs'},
## @qcode{'saliency_l2'}, @qcode{'gradxinput'}, @qcode{'deeplift'}; or
## @qcode{'smoothgrad'}, @qcode{'smoothgrad_sq'}, @qcode{'vargrad'}: the
## saliency in that noise tunnel), its maps computed with
## @code{ee_gradient}'s defaults (@code{explains.method} names it), or a
## perturbation method: @qcode{'occlusion'} (@code{ee_occlusion}'s
## defaults: feature ablation, window and stride 1), @qcode{'kernelshap'}
## (@code{ee_sv} with @code{'method', 'kernelshap'}) or @qcode{'lime'}
## (@code{ee_lime}), the last two with seed 1 and @qcode{'steps'}
## coalitions per row (default 2 n + 2048 for n real tokens;
## @code{explains.samples} records it when given); their explainers read
## the occlusion scores by default, as for @qcode{'sv'}.  One table in
## libcore (@code{ee_map_method_maps}) names these methods and their
## defaults, for this gateway and for @code{ee train-explainer --targets},
## whose explainers are the same bit for bit.  The maps of an mlp
## classifier are @code{ee:notSupported} (explainers read tokens; an mlp
## as a function handle: @code{ee_train (@@f, X, METHOD)}).  The efficiency
## projection is off by default but for @qcode{'deeplift'} and
## @qcode{'kernelshap'}, whose maps sum to f(x) - f(baseline).  Explainers
## are built on a transformer or a cnn classifier (not on an mlp; for a
## function of feature vectors give @var{f} as a handle).  DeepLIFT is
## defined on the cnn, not on the transformer (@qcode{'deeplift'} of a
## transformer is @code{ee:notSupported}).  A cnn's explainer keeps the
## classifier's embedding and convolutions and reads, at each position,
## the ReLU'd windows of every width that start there (the values the
## classifier max-pools over): it has the token head only, reads and
## predicts the non-PAD positions only (@qcode{'attend', 'all'}, the
## @qcode{'flat'} head, @qcode{'design', 'paper'} and @qcode{'inputs',
## 'attention'} or @qcode{'attention_top'} are @code{ee:notSupported} on a
## cnn), and takes every
## other option below as the transformer's does.  Its design
## (doc/FIGURE5.md has the measurements behind the defaults):
## @table @asis
## @item 'head'
## @qcode{'token'} (default: one score per position from its hidden state,
## @code{y(t) = H(t,:) head_W + head_b}) or @qcode{'flat'} (the paper's:
## @code{y = H(:)' head_W + head_b}, (T d) x T weights).
## @item 'inputs'
## @qcode{'gradient_ends'} (default): the explainer also reads, per token,
## the gradient x input score of the classifier at the text and the same
## product taken with the gradient at the baseline (a forward and a
## backward pass of the classifier per explanation, and one of each per
## distinct baseline and class; @code{ee_explain} runs them, the explainer
## carries the classifier); @qcode{'occlusion'} (default when @var{A} is
## @qcode{'sv'}): those two and, per real token, its leave-one-out score
## f(x) - f(x without the token) and its add-one score f(baseline with the
## token) - f(baseline), with the tokens absent as in @code{ee_sv} (the
## token's marginal contributions when it comes last and first in a
## Shapley permutation; 2 n + 2 forward passes more for n real tokens, the
## cost of about two permutations; on the SV panels of doc/FIGURE5_LOG.md the
## explainer's error fell from 4.1-4.6 to 1.7-1.8 times its floor: use it
## for Shapley maps); @qcode{'path'}: the two ends and the same score
## with the gradient at each of the 3 Gauss-Legendre nodes inside the path
## (the integrand of IG where a 3-step IG samples it; a forward and a
## backward pass more per node: about 10.7 passes per explanation, where IG
## at s steps costs 2 s + 2; on the IG wordnet panel of doc/FIGURE5_LOG.md the
## error fell from 1.8e-2 to 2.7e-3, and to 1.5e-3 with twice the rows,
## below IG's at s = 6, 14 passes: use it for IG maps whose quadrature
## converges fast); @qcode{'attention'} (transformer classifiers): the
## two ends, the [CLS] query's attention to the token in each head of the
## classifier's last encoder layer, and the token's value-path score in
## each head of every layer (its value times the target logit's gradient
## at it: what the token adds through that head, linearised at the text),
## 2 + H + L H features read from the same passes as the two ends (no pass
## more; on the SV fortunes panel of doc/FIGURE5_LOG.md the error fell from
## 4.1 to 3.1 times the floor, on SV wordnet it stayed at 4.6; trained
## with @qcode{'loss', 'shapley_kernel'} on many more rows for 30 epochs,
## 1.7 and 2.4 times the floor: the SV presets of figure5 until 28 Nov, at 4-5 passes
## per explanation, where the occlusion inputs cost 2 n + 2 more);
## @qcode{'attention_top'} (transformer classifiers): what the classifier's
## forward pass and a backward pass through its last layer's [CLS] row
## alone give: the score at the baseline end, the last layer's [CLS]
## attention and its value-path scores (1 + 2 H features; no full backward
## pass, so the call costs about a quarter less than with
## @qcode{'attention'}; on the SV panels of doc/FIGURE5_LOG.md, trained as
## their presets, 1.9 and 2.6 times the floor against 1.7 and 2.4, at the
## same crossings: the SV presets of figure5 since 28 Nov; on the IG
## wordnet panel, with one encoder layer and every training gloss, 6.0e-3
## at 4.6 passes, crossing IG at s = 5 for a quarter of the time of
## @qcode{'path'}: that preset since 5 Dec);
## @qcode{'gradient'}: the score at the text only;
## @qcode{'gradient_vector'}: that score and its d terms;
## @qcode{'tokens'}: the token ids only (the paper's, one pass).
## @item 'attend'
## (transformer classifiers) @qcode{'tokens'} (default for the token head):
## attend to the non-PAD positions and run at the active length, as the
## classifier does; @qcode{'all'} (the paper's, and the flat head's): every
## position.
## @item 'outputs'
## @qcode{'auto'} (default): @qcode{'tokens'} when every training map is 0
## at [CLS], [SEP] and PAD (the pad baseline), else @qcode{'all'};
## @qcode{'tokens'} fixes the output at 0 there, @qcode{'all'} predicts
## every position.
## @item 'efficiency'
## true (default with gradient inputs and outputs fixed at the special
## tokens): @code{ee_explain} shifts the real tokens' scores so that they
## sum to f(x) - f(pad baseline) for the explained class, as SV maps do
## exactly and IG maps up to the quadrature error (the map moves no farther
## from any map that satisfies it).  It costs one classifier pass per
## distinct baseline (one per sequence length).
## @item 'margin'
## false (default) or true, for the explainer of a binary classifier whose
## maps @var{A} are of the class it predicts (the default target of
## @code{ee_ig} and @code{ee_sv}).  Such a map flips its sign where the
## prediction flips, since the two logits of a classifier trained with
## cross entropy move against each other; an explainer must learn that jump
## from its inputs, and where it guesses the class wrong it explains the
## row with the wrong sign.  With @qcode{'margin'} it learns one map for
## both classes, each training map signed toward the second class (one
## forward pass of the classifier per training row to know its class),
## and @code{ee_explain} gives it the sign of the class the classifier
## predicts: read from the features' classifier pass where the explainer
## has one, else estimated as the second class where the classifier's
## margin z_2 - z_1 at the pad baseline plus twice the map's sum over the
## real tokens is above 0 (one forward pass per distinct baseline, kept by
## the process across calls: at most one per sequence length).  On the spam
## panel of doc/FIGURE5.md (token ids only) it halved the one-pass
## explainer's test error at the same cost per explanation.  The
## explainer then carries its classifier (@code{explainer.classifier});
## @code{history.margin_passes} and @code{margin_seconds} say what the
## signing cost.  Not with @qcode{'loss', 'shapley_kernel'}, nor with maps
## that do not flip with the class (@qcode{'saliency_abs'},
## @qcode{'saliency_l2'}, @qcode{'smoothgrad_sq'}, @qcode{'vargrad'}:
## @code{ee:badInput}; given maps are the caller's to judge).
## @item 'layers'
## (transformer classifiers) how many of the classifier's encoder layers
## the explainer keeps, from the first (default: all of them).  Fewer cost
## less per explanation: with one of the two layers of doc/FIGURE5_LOG.md's
## classifiers, @code{ee_explain} with @qcode{'attention_top'} takes
## 0.55x the time of IG's passes per pass instead of 0.68x
## (@code{bench/bench_models passes}, 150 rows of mean length 131); on the
## SV wordnet panel its error rose from 2.6 to 3.1 times the floor and the
## crossing fell from s = 13 to 10, on SV fortunes from 1.9 to 2.5 and 16 to
## 9, so the SV presets keep both layers; on IG spam (token ids only) one
## layer scored 5.85e-5 against 6.86e-5 at the same crossing (s = 6) for
## half of the explainer's pass and of its training: figure5's IG spam
## preset keeps one.  On a cnn @code{ee:notSupported}.
## @item 'design'
## @qcode{'paper'}: all of the paper's choices at once (flat head, tokens,
## every position, every output); the options above still apply after it.
## @item 'standardize'
## true (default): train on @var{A} divided by its RMS over the predicted
## positions and fold the factor back into the head, so any attribution
## scale trains alike.
## @end table
## Training defaults for explainers: 20 epochs, lr 1e-3 with the
## @qcode{'cosine'} schedule, batch 32, patience 3, no dropout, freeze
## @qcode{'none'}, standardize true, seed 1; without a
## @qcode{'validation'} set every epoch runs and the last weights are kept.
##
## Options (name/value, case-insensitive):
## @table @asis
## @item 'validation'
## @{Xv, yv@} (or @{Xv, Av@}): early stopping on the validation loss, the
## weights of the best epoch are kept.
## @item 'loss'
## @qcode{'mse'} (default): the explainer learns the maps @var{A}.
## @qcode{'shapley_kernel'} (with @var{A} @qcode{'sv'}): target-free
## training of a Shapley explainer, as FastSHAP does for images: no SV maps
## for @var{X}; instead, per row, @qcode{'coalitions'} coalitions S of its
## real tokens drawn from the Shapley kernel (antithetic pairs, seed
## @qcode{'seed'}), their values v(S) - v(empty) from the classifier with
## the tokens outside S absent as @code{ee_sv} makes them absent, and the
## loss of doc/MODELS.md ("Target-free training"): the kernel-weighted
## squared error of the coalitions' sums of the map projected onto the
## efficiency plane, plus the map's squared distance from that plane; its
## minimiser is the Shapley value.  Cost: K + 2 classifier passes per
## training row, once (the coalitions are drawn once before training and
## kept: redrawing them every epoch would multiply these passes by the
## epochs; more rows give the variety instead); the explainer itself is
## the design chosen as usual (@qcode{'inputs'}, @qcode{'tokens'} is the
## one-pass explainer).  The validation rows keep their SV maps and the
## MSE (@{Xv, Av@}, or @{Xv@}: SV maps computed here with @qcode{'steps'}).
## @code{history.coalition_passes} and @code{coalition_seconds} say what
## the values cost; @code{settings.loss} and @code{settings.coalitions}
## record the choice.
## @item 'coalitions'
## K, coalitions per row for @qcode{'shapley_kernel'} (default 32; an
## even K pairs every coalition with its complement).
## @item 'epochs', 'lr', 'batch', 'patience', 'seed', 'dropout'
## Adam training; classifier defaults depend on the kind (transformer: 10,
## 5e-4, 32, 3, 1, 0.1; cnn: 10, 1e-3, 50, 3, 1, 0.5; mlp: 50, 1e-3, 32, 3,
## 1, 0); explainers as above.
## @item 'freeze'
## @qcode{'none'} (default) trains everything; @qcode{'embeddings'} keeps
## the token and position embeddings and their LayerNorm as they are (as
## copied from the classifier, for an explainer: it helped the SV
## explainers and the IG explainer of the short wordnet glosses and hurt
## the IG explainer on spam, doc/FIGURE5_LOG.md);
## @qcode{'encoder'} also keeps every encoder layer but the last.
## @item 'schedule'
## @qcode{'constant'} (classifiers' default) or @qcode{'cosine'} (explainers'
## default): a linear warm-up over the first 5 % of the steps, then a
## cosine decay to lr/20.
## @item 'device'
## 'auto' (default), 'cpu' or 'gpu'.
## @item 'precision'
## 'fp32' (default), 'tf32' or 'bf16' (a GPU's tensor cores), as for
## @code{ee_ig}.
## With @var{A} 'ig' or 'sv' it applies to the maps computed here too.
## @item 'verbose'
## true (default) prints a progress line with rate and ETA.
## @item 'prior'
## @code{struct ('mask', M, 'weight', lambda)}, classifiers that are
## bias-free mlps without dropout only (@code{ee:notSupported} otherwise):
## an attribution prior, adding @code{lambda * sum ((M(:)' .* A) .^ 2)} per
## row to the loss, A the X-Gradient of the row's label logit (= IG with
## the zero baseline for these networks).  M has D elements (a 28 x 28
## mask of an upright image works as it is).  Its gradient is exact, the
## ReLUs' pattern held fixed (libcore/train/prior.c); a step costs about
## two passes more than plain training, not the s gradients of IG.
## @code{history.prior_penalty} has the mean penalty per epoch
## (@code{train_loss} stays the task loss); doc/XDNN.md has an example.
## @end table
##
## @strong{Explainer of a function handle.} @var{f} is a model as
## @code{ee_sv (@@f, @dots{})} takes it (M x F double rows in, M x C scores
## out), @var{X} N x F rows to learn from.  The explainer is an mlp with
## F inputs and one output per player (the F columns, or the groups of
## @qcode{'groups'}), trained by mean squared error on the players' values
## (divided by their RMS while training, doc/MODELS.md).  @var{method}
## computes those values here with the handle methods: @qcode{'sv'}
## (@code{ee_sv}, sampling), @qcode{'exact'} (@code{ee_sv} with
## @code{'exact', true}), @qcode{'kernelshap'} (@code{ee_sv} with
## @code{'method', 'kernelshap'}) or @qcode{'ig'} (@code{ee_ig}, no groups);
## or @var{A} gives them: N x P (P players), or N x F as @code{ee_sv}
## returns them with groups (a player's value is the sum over its
## columns).  Options:
## @table @asis
## @item @qcode{'groups'}, @qcode{'baseline'}, @qcode{'background'}
## the players and the absent values, as for @code{ee_sv}: handed to the
## method and recorded in @code{expl.explains} (@code{ee_explain} spreads
## by the groups and projects onto efficiency with the absent values).
## @item @qcode{'options'}
## a cell of the method's other name/value options, passed as they are
## (e.g. @code{@{'samples', 10, 'seed', 3@}}).
## @item @qcode{'hidden'}
## the hidden widths (default [256 256]); @code{[]} gives a linear
## explainer (an affine map of the features).
## @item @qcode{'validation'}
## @code{@{Xv@}} (maps computed by @var{method}) or @code{@{Xv, Av@}}: the
## weights of the epoch with the lowest validation MSE are kept.
## @item @qcode{'scale_inputs'}
## true (default): each column of @var{X} is centred on the training rows'
## median and divided by their robust spread (interquartile range / 1.349;
## the standard deviation where half the rows share one value, 1 for a
## constant column), and values beyond 3 spreads are compressed
## logarithmically (heavy tails); the statistics are kept in
## @code{expl.input_scaling} and applied by @code{ee_explain}, so rows are
## always given in their own units.  A column multiplied by any positive
## factor and shifted gives the same explainer.  Without it a column in
## large units (a weight in pounds beside a count of cylinders) dominates
## the mlp's first layer, and the explainer can score worse than a map of
## zeros; false feeds the columns as they are.
## @item @qcode{'per_class'}
## true (default when @var{method} computes the maps, f returns 2 to 16
## scores per row and @qcode{'options'} sets no @qcode{'target'}): the
## explainer learns one map per class, the method run once per class
## (@code{'target', c}; the maps cost that many times more), and
## @code{ee_explain} gives the map of the class f predicts (with
## @code{'model', @@f}), of the class given (@qcode{'target'}), or else of
## the class whose score v(empty) + the sum of its map is highest (the
## maps' efficiency; @code{expl.explains.fempty} keeps v(empty) per
## class).  The map of the predicted class jumps where the prediction
## changes; each class's own map is as smooth as f, and on the suite of
## doc/GENERALIZATION.md (fisheriris, 3 classes, 90 training rows) the
## explainer's error fell 5 times.  false: one map, of the class f
## predicts (or of the method's @qcode{'target'}).
## @item @qcode{'epochs'}, @qcode{'lr'}, @qcode{'batch'}, @qcode{'patience'}, @qcode{'seed'}, @qcode{'schedule'}, @qcode{'standardize'}, @qcode{'verbose'}
## as for the other explainers (defaults: 5000 optimizer steps, as epochs
## of @qcode{'batch'} rows within 20 to 500, patience a tenth of them and
## at least 3; 1e-3, 32, 1, cosine, true, true); it trains on the CPU.  @qcode{'verbose'} is passed to the method
## that computes the maps too (unless @qcode{'options'} sets it).
## @end table
## @code{expl.explains} records @code{function} (func2str of @var{f}),
## @code{method} (@qcode{'given'} for @var{A}), @code{features},
## @code{players}, @code{classes} (maps per row), @code{fempty} (v(empty)
## of each of f's classes, when the maps were computed here), @code{groups}, @code{baseline}, @code{background} and
## @code{options}; @code{expl.history} has @code{train_loss} and
## @code{valid_mse} per epoch (in the maps' own units) and @code{check}.
##
## @strong{The check.}  Every explainer that @code{ee_train} returns has
## been measured on its validation rows (else its first 512 training rows)
## against a map of zeros and, where @code{ee_train} computed the maps with
## IG or a Shapley method, against that method at s = 1 on the same rows
## (SV with one permutation, IG with one step): @code{history.check}
## (@code{explainer_mse}, @code{zero_mse}, @code{sampled_mse}, @code{weak};
## an explainer of a function handle whose maps @code{ee_train} computed
## is measured as @code{ee_explain (expl, X, 'model', @@f)} gives its maps;
## @code{help ee_explain}, "Reading the check").  An explainer that does
## not beat both raises the warning @code{ee:weakExplainer}.
##
## The result is a plain struct (kind, sizes, weights as single arrays,
## @code{settings}, @code{history}) that @code{save}/@code{load} round-trip;
## its layout is documented in doc/MODEL_FORMAT.md.
## Example (an explainer of IG, its maps computed here, scored on other rows):
## @example
## d = load ('datasets/spam.mat'); tr = d.split.train; te = d.split.test;
## clf = ee_train ('transformer', d.tokens(tr,:), d.labels(tr), 'epochs', 2);
## expl = ee_train (clf, d.tokens(tr(1:2:end),:), 'ig', 'steps', 8, 'epochs', 6);
## E = ee_explain (expl, d.tokens(te(1:60),:));
## A = ee_ig (clf, d.tokens(te(1:60),:));
## mean (A(:) .^ 2) / mean ((E(:) - A(:)) .^ 2)   # over 10x better than a zero map
## @end example
## @seealso{ee_predict, ee_explain, ee_ig, ee_sv}
## @end deftypefn

## The function itself is the MEX file beside this help stub.

%!test
%! ## explainer of a function handle, linear explainer: on the linear model
%! ## f(x) = x w' the Shapley values are w .* (x - b), a linear map of x that
%! ## the explainer ('hidden', []) learns from exact maps of random rows; on
%! ## held-out rows it equals the closed form up to single-precision
%! ## rounding (measured: 1e-5 of the largest value at most; bound 1e-4).
%! randn ('seed', 3);
%! w = [0.5 -1.2 2 0.3 -0.7 1.1]; b = [0.2 -0.1 0.4 0 0.3 -0.5];
%! f = @(x) x * w';
%! X = randn (200, 6); Xt = randn (50, 6);
%! e = ee_train (f, X, 'exact', 'baseline', b, 'hidden', [], 'epochs', 200, 'lr', 1e-2, 'verbose', false);
%! assert ([e.kind ' ' e.head], 'mlp flat');
%! assert ([e.D e.classes], [6 6]);
%! assert (e.explains.method, 'exact');
%! assert (e.explains.baseline, b);
%! E = ee_explain (e, Xt);
%! C = (Xt - b) .* w;
%! assert (class (E), 'double');
%! assert (max (abs (E(:) - C(:))) < 1e-4 * max (abs (C(:))), sprintf ('%g', max (abs (E(:) - C(:)))));
%! ## projection onto efficiency with the handle: rows sum to f(x) - f(b)
%! [E2, info] = ee_explain (e, Xt, 'model', f);
%! assert (info.projected);
%! assert (sum (E2, 2), Xt * w' - b * w', 1e-9);
%! assert (info.delta, sum (E, 2) - (Xt * w' - b * w'), 1e-9);
%! assert (max (abs (E2(:) - C(:))) < 1e-4 * max (abs (C(:))));

%!test
%! ## a ReLU mlp explainer learns the linear map approximately: held-out
%! ## error well below the maps' own spread (measured relative RMS error
%! ## about 0.05 with 300 rows; bound 0.2), and it beats a zero map
%! randn ('seed', 4);
%! w = [0.5 -1.2 2 0.3 -0.7 1.1]; b = [0.2 -0.1 0.4 0 0.3 -0.5];
%! f = @(x) x * w';
%! X = randn (300, 6); Xt = randn (50, 6);
%! A = (X - b) .* w;   # the maps given, N x P
%! e = ee_train (f, X, A, 'baseline', b, 'hidden', [64 64], 'epochs', 30, 'verbose', false);
%! assert (e.explains.method, 'given');
%! C = (Xt - b) .* w;
%! E = ee_explain (e, Xt);
%! rel = sqrt (mean ((E(:) - C(:)) .^ 2) / mean (C(:) .^ 2));
%! assert (rel < 0.2, sprintf ('relative RMS error %.3f', rel));

%!test
%! ## groups: the explainer has one output per group; ee_explain spreads a
%! ## group's value equally over its columns as ee_sv (@f) does, and maps
%! ## given N x F (ee_sv's spread) equal those given N x P
%! randn ('seed', 5);
%! w = [1 2 -1 0.5]; f = @(x) [x * w', -x * w'];
%! g = [1 1 2 0];   # column 4 is no player
%! X = randn (60, 4);
%! [A, info] = ee_sv (f, X, 'exact', true, 'groups', g);
%! e1 = ee_train (f, X, A, 'groups', g, 'hidden', [], 'epochs', 3, 'verbose', false);
%! e2 = ee_train (f, X, info.players, 'groups', g, 'hidden', [], 'epochs', 3, 'verbose', false);
%! assert (e1.fc(1).W, e2.fc(1).W);
%! assert (e1.classes, 2);
%! [E, ei] = ee_explain (e1, X(1:5, :));
%! assert (size (E), [5 4]);
%! assert (E(:, 1), E(:, 2));
%! assert (E(:, 4), zeros (5, 1));
%! assert (E(:, 1) * 2, ei.players(:, 1), 1e-12);
%! ## 'sv' computes the maps itself, with its options passed through
%! e3 = ee_train (f, X, 'sv', 'groups', g, 'options', {'samples', 4, 'seed', 2}, 'hidden', [], ...
%!                'epochs', 2, 'verbose', false, 'validation', {X(1:10, :)});
%! assert (e3.explains.options, {'samples', 4, 'seed', 2});
%! assert (numel (e3.history.valid_mse), 2);
%! assert (all (isfinite (e3.history.valid_mse)));

%!test
%! ## 'kernelshap' (all coalitions: exact) and 'ig' (the linear model's IG is
%! ## its Shapley value; gradients by central differences through 'options')
%! ## give explainers that equal the closed form too
%! randn ('seed', 6);
%! w = [1 -2 0.5 3]; b = [0.1 0.2 -0.3 0]; f = @(x) x * w';
%! X = randn (100, 4); Xt = randn (20, 4); C = (Xt - b) .* w;
%! e = ee_train (f, X, 'kernelshap', 'baseline', b, 'hidden', [], 'epochs', 400, 'lr', 1e-2, 'verbose', false);
%! E = ee_explain (e, Xt);
%! assert (max (abs (E(:) - C(:))) < 1e-4 * max (abs (C(:))));
%! e = ee_train (f, X, 'ig', 'baseline', b, 'options', {'gradient', 'fd'}, 'hidden', [], 'epochs', 400, ...
%!                'lr', 1e-2, 'verbose', false);
%! assert (e.explains.method, 'ig');
%! E = ee_explain (e, Xt);
%! assert (max (abs (E(:) - C(:))) < 1e-4 * max (abs (C(:))));

%!error <'groups' applies to 'sv'> ee_train (@(x) x(:, 1), randn (5, 2), 'ig', 'groups', [1 1], 'verbose', false)
%!error <METHOD> ee_train (@(x) x(:, 1), randn (5, 2), 'shap', 'verbose', false)
%!error <A must be 5x2> ee_train (@(x) x(:, 1), randn (5, 2), randn (4, 2), 'verbose', false)
%!error <inside 'options'> ee_train (@(x) x(:, 1), randn (5, 2), 'sv', 'options', {'baseline', [0 0]}, 'verbose', false)
%!error <'hidden'> ee_train (@(x) x(:, 1), randn (5, 2), randn (5, 2), 'hidden', [0 3], 'verbose', false)

%!shared X, y
%! addpath (fullfile (fileparts (which ('ee_train')), '..', 'tests', 'octave'));   # assert_budget_refusal
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
%! ## vocabulary and class names as cells: stored, kept by the explainer
%! V = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'a', 'b', 'c', 'd', 'e'};
%! s = struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 8, 'vocab', {V});
%! m = ee_train (s, X, y, 'epochs', 1, 'verbose', false, 'classes', {'neg', 'pos'});
%! assert ([m.vocab m.classes], [9 2]);
%! assert (m.vocab_words, V);
%! assert (m.class_names, {'neg', 'pos'});
%! e = ee_train (m, X, single (rand (4, 6)), 'epochs', 1, 'verbose', false);
%! assert (e.vocab_words, V);
%! assert (e.class_names, {'neg', 'pos'});
%! ## numbers still work and store no words
%! m = ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false, 'vocab', 9, 'classes', 2, 'd', 4, 'filters', 2);
%! assert (! isfield (m, 'vocab_words') && ! isfield (m, 'class_names'));

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
%! assert_budget_refusal (@() ee_train ('transformer', repmat (X, 5000, 1), repmat (y, 5000, 1), 'verbose', false));

%!test
%! ## target-free Shapley training: from coalition values alone, the
%! ## tokens-only explainer gets close to the exact Shapley values, as
%! ## close as one trained on the exact maps themselves
%! rand ('seed', 1);
%! Xt = int32 (ones (60, 8)); Xt(:, 1) = 3;
%! for i = 1:60
%!   n = 2 + mod (i, 5); Xt(i, 2:n+1) = 5 + randi (3, 1, n); Xt(i, n+2) = 4;
%! end
%! yt = 1 + (sum (Xt == 6, 2) > sum (Xt == 7, 2));
%! clf = ee_train (struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16), Xt, yt, ...
%!                 'epochs', 5, 'verbose', false, 'vocab', 9);
%! Av = ee_sv (clf, Xt, 'exact', true);
%! opts = {'inputs', 'tokens', 'validation', {Xt, Av}, 'epochs', 40, 'batch', 8, 'verbose', false};
%! e = ee_train (clf, Xt, 'sv', 'loss', 'shapley_kernel', 'coalitions', 16, opts{:});
%! assert (e.settings.loss, 'shapley_kernel');
%! assert (e.settings.coalitions, 16);
%! ## f(x), v(empty) and one pass per non-empty coalition of each row
%! assert (e.history.coalition_passes, 60 * (2 + 16));
%! mse = @(E) mean ((E(:) - Av(:)) .^ 2);
%! m = ee_train (clf, Xt, Av, opts{:});
%! assert (mse (ee_explain (e, Xt)) < 0.1 * mean (Av(:) .^ 2));
%! assert (mse (ee_explain (e, Xt)) < 3 * mse (ee_explain (m, Xt)));

%!test
%! ## 'margin': a binary classifier's explainer learns one map signed toward
%! ## the second class, and ee_explain signs it for the class that the
%! ## classifier's margin at the pad baseline (ee_predict on the baseline
%! ## rows under the rows' mask, here) plus twice the map's real-token sum
%! ## says; the explainer carries its classifier
%! Xt = int32 (ones (60, 8)); Xt(:, 1) = 3;
%! for i = 1:60
%!   n = 2 + mod (i, 5); Xt(i, 2:n+1) = 5 + mod (i * (1:n) + floor (i / 7), 4); Xt(i, n+2) = 4;
%! end
%! yt = 1 + (sum (Xt == 6, 2) > sum (Xt == 7, 2));
%! clf = ee_train (struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16), Xt, yt, ...
%!                 'epochs', 40, 'lr', 1e-2, 'batch', 8, 'verbose', false, 'vocab', 9);
%! A = ee_ig (clf, Xt, 'steps', 8, 'verbose', false);
%! e = ee_train (clf, Xt, A, 'inputs', 'tokens', 'margin', true, 'epochs', 100, 'batch', 8, 'verbose', false);
%! assert (e.margin, true);
%! assert (isfield (e, 'classifier'));
%! assert (e.history.margin_passes, 60);
%! [E, info] = ee_explain (e, Xt);
%! Xb = Xt; Xb(Xt > 4) = 1;
%! [~, Lb] = ee_predict (clf, Xb, 'mask', Xt != 1);
%! sg = 2 * double (info.target == 2) - 1;
%! real = Xt > 4;
%! z = Lb(:, 2) - Lb(:, 1) + 2 * sum (double (E) .* sg .* real, 2);
%! sure = abs (z) > 1e-3;
%! assert (sum (sure) >= 55);
%! assert (info.target(sure), 1 + (z(sure) > 0));
%! pred = ee_predict (clf, Xt);
%! assert (numel (unique (pred)) == 2 && mean (info.target == pred) >= 0.9);
%! ## signed for the class: nearer the maps than their negatives
%! assert (mean ((E(real) - A(real)) .^ 2) < 0.7 * mean ((E(real) + A(real)) .^ 2));
%! try
%!   ee_explain (rmfield (e, 'classifier'), Xt);
%!   error ('no error');
%! catch err
%!   assert (err.identifier, 'ee:badModel');
%! end
%! c3 = ee_train (struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16), Xt, ...
%!                1 + mod ((1:60)', 3), 'epochs', 1, 'verbose', false, 'vocab', 9);
%! for bad = {{c3, Xt, A, 'margin', true}, {clf, Xt, 'sv', 'loss', 'shapley_kernel', 'margin', true}, ...
%!            {clf, Xt, 'saliency_abs', 'margin', true}}
%!   try
%!     ee_train (bad{1}{:}, 'epochs', 1, 'verbose', false);
%!     error ('no error');
%!   catch err
%!     assert (any (strcmp (err.identifier, {'ee:badInput', 'ee:notSupported'})), err.message);
%!   end
%! end

%!test
%! ## an explainer of any gradient method learns that method's maps
%! ## (ee_gradient's); efficiency off for a map that is not complete
%! clf = ee_train (struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16), X, y, 'epochs', 3, ...
%!                 'seed', 2, 'verbose', false);
%! for m = {'saliency', 'gradxinput', 'smoothgrad'}
%!   e = ee_train (clf, X, m{1}, 'inputs', 'tokens', 'epochs', 200, 'batch', 4, 'verbose', false);
%!   assert (e.explains.method, m{1});
%!   assert (e.efficiency, false);
%!   if (strcmp (m{1}, 'smoothgrad'))
%!     A = ee_gradient (clf, X, 'noise', 'smoothgrad', 'verbose', false);
%!     assert ([e.explains.samples, e.explains.stdev], [10 0.15]);
%!   else
%!     A = ee_gradient (clf, X, 'method', m{1}, 'verbose', false);
%!   end
%!   E = ee_explain (e, X);
%!   real = X > 4;
%!   assert (mean ((E(real) - A(real)) .^ 2) < 0.05 * mean (A(real) .^ 2));
%! end
%! ## DeepLIFT is not defined on the transformer (it is on the cnn, below)
%! try
%!   ee_train (clf, X, 'deeplift', 'epochs', 1, 'verbose', false);
%!   error ('no error');
%! catch err
%!   assert (err.identifier, 'ee:notSupported');
%! end

%!test
%! ## a cnn's explainer (token head on the ReLU'd windows at each position)
%! ## learns the cnn's DeepLIFT maps (efficiency on: they sum to
%! ## f(x) - f(baseline)) and its IG maps; ee_explain gives the map, the
%! ## same after a save and load
%! clf = ee_train (struct ('kind', 'cnn', 'd', 8, 'filters', 6, 'widths', [2 3]), X, y, 'epochs', 30, ...
%!                 'lr', 1e-2, 'seed', 2, 'verbose', false);
%! real = X > 4;
%! A = {ee_gradient(clf, X, 'method', 'deeplift', 'verbose', false), ee_ig(clf, X, 'verbose', false)};
%! m = {'deeplift', 'ig'};
%! for k = 1:2
%!   e = ee_train (clf, X, m{k}, 'epochs', 200, 'batch', 4, 'verbose', false);
%!   assert ({e.kind, e.head, e.inputs, e.explains.method}, {'cnn', 'token', 'gradient_ends', m{k}});
%!   assert (e.efficiency, true);
%!   E = ee_explain (e, X);
%!   assert (size (E), size (A{k}));
%!   assert (all (E(~real) == 0));
%!   assert (mean ((E(real) - A{k}(real)) .^ 2) < 0.01 * mean (A{k}(real) .^ 2));
%! end
%! ## the tokens-only explainer learns from the convolutions alone
%! e = ee_train (clf, X, A{1}, 'inputs', 'tokens', 'epochs', 300, 'batch', 4, 'lr', 1e-2, 'verbose', false);
%! E = ee_explain (e, X);
%! assert (mean ((E(real) - A{1}(real)) .^ 2) < 0.05 * mean (A{1}(real) .^ 2));
%! f = [tempname() '.mat'];
%! unwind_protect
%!   save ('-v7', f, 'e');
%!   s = load (f);
%!   assert (ee_explain (s.e, X), E);
%! unwind_protect_cleanup
%!   delete (f);
%! end_unwind_protect
%! ## transformer-only design choices are refused on a cnn
%! for o = {{'attend', 'all'}, {'head', 'flat'}, {'design', 'paper'}, {'inputs', 'attention'}, {'inputs', 'attention_top'}, ...
%!          {'layers', 1}}
%!   try
%!     ee_train (clf, X, A{1}, o{1}{:}, 'epochs', 1, 'verbose', false);
%!     error ('no error');
%!   catch err
%!     assert (err.identifier, 'ee:notSupported');
%!   end
%! end

%!test
%! ## an explainer of a perturbation method learns that method's maps,
%! ## computed here with the gateway's defaults (seed 1, 'steps' coalitions),
%! ## closer to them than to the other methods' maps of the same rows; it
%! ## reads the occlusion scores; the efficiency projection only for
%! ## KernelSHAP, whose maps sum to f(x) - f(baseline). Rows of 4 to 9
%! ## real tokens, so that the three methods' maps differ (on 2 or 3 tokens
%! ## 12 coalitions enumerate them all and the maps agree to 1e-9: the
%! ## comparison would then be one of float rounding)
%! Xl = int32([3 5 6 7 8 9 10 11 4 1 1 1; 3 7 8 9 12 5 13 6 14 4 1 1; 3 5 5 10 11 12 13 4 1 1 1 1; ...
%!             3 9 8 14 6 7 5 10 11 12 4 1; 3 6 12 13 9 5 7 4 1 1 1 1; 3 14 13 12 11 10 9 8 7 4 1 1; ...
%!             3 10 5 8 6 4 1 1 1 1 1 1; 3 11 9 7 5 13 12 4 1 1 1 1]);
%! yl = int32([1; 2; 1; 2; 1; 2; 1; 2]);
%! clf = ee_train (struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16), Xl, yl, 'epochs', 60, ...
%!                 'lr', 1e-2, 'seed', 2, 'verbose', false);
%! real = Xl > 4;
%! A = {ee_occlusion(clf, Xl, 'verbose', false), ...
%!      ee_sv(clf, Xl, 'method', 'kernelshap', 'samples', 12, 'seed', 1, 'verbose', false), ...
%!      ee_lime(clf, Xl, 'samples', 12, 'seed', 1, 'verbose', false)};
%! for i = 1:3
%!   for j = i+1:3
%!     assert (mean ((A{i}(real) - A{j}(real)) .^ 2) > 1e-6);
%!   end
%! end
%! m = {'occlusion', 'kernelshap', 'lime'};
%! for k = 1:3
%!   if (k == 1) st = {}; else st = {'steps', 12}; end
%!   e = ee_train (clf, Xl, m{k}, st{:}, 'epochs', 200, 'batch', 4, 'verbose', false);
%!   assert (e.explains.method, m{k});
%!   assert (e.inputs, 'occlusion');
%!   assert (e.efficiency, k == 2);
%!   E = ee_explain (e, Xl);
%!   mse = cellfun (@(B) mean ((E(real) - B(real)) .^ 2), A);
%!   assert (mse(k) < 0.05 * mean (A{k}(real) .^ 2));
%!   assert (mse(k) < min (mse([1:k-1, k+1:3])));
%! end
%! assert ([e.explains.samples, e.explains.seed], [12 1]);
%!error <'steps' applies when ee_train computes IG, SV, KernelSHAP or LIME maps> ee_train (ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false), X, 'occlusion', 'steps', 3)
%!error <'steps' applies when ee_train computes IG, SV, KernelSHAP or LIME maps> ee_train (ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false), X, 'saliency', 'steps', 3)
%!error <explainers are defined for token models \(transformer, cnn\), not mlp>
%! ## an mlp classifier's maps are N x D: refused before anything is computed
%! v = load (fullfile (fileparts (which ('ee_sv')), '..', 'tests', 'vectors', 'mlp_tiny.mat'));
%! ee_train (v.model, v.X, 'kernelshap', 'verbose', false);
%!error <A must be one of> ee_train (ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false), X, 'gradientshap')
%!error id=ee:badInput ee_train (ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false), X, 'ig', 'loss', 'shapley_kernel')
%!error id=ee:badInput ee_train (ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false), X, 'sv', 'coalitions', 8)
%!error id=ee:badInput ee_train (ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false), X, 'sv', 'loss', 'hinge')
%!error id=ee:badInput ee_train (ee_train ('cnn', X, y, 'epochs', 1, 'verbose', false), X, 'sv', 'loss', 'shapley_kernel', 'coalitions', 0)
%!error id=ee:badInput ee_train ('cnn', X, y, 'loss', 'shapley_kernel')

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
%!error id=ee:badInput ee_train ('cnn', X, y, 'precision', 'fp64')
%!error id=ee:notSupported ee_train ('cnn', X, y, 'device', 'cpu', 'precision', 'tf32', 'verbose', false)
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
%!error <special token> ee_train ('cnn', X, y, 'vocab', {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'})
%!error <repeats> ee_train ('cnn', X, y, 'vocab', {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'a', 'a', 'c', 'd', 'e'})
%!error id=ee:badInput ee_train ('cnn', X, y, 'vocab', {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'a'})
%!error <repeats> ee_train ('cnn', X, y, 'classes', {'x', 'x'})
%!error id=ee:badInput ee_train ('cnn', X, y, 'classes', {'x'})
%!error id=ee:badInput ee_train ('cnn', X, y, 'classes', {'x', 3})
%!error id=ee:badInput ee_train ('cnn', X, [1; 2; 3; 1], 'classes', {'x', 'y'})

%!test
%! ## the attribution prior: pixel 1 decides the class; the prior on it makes
%! ## the net use the other (noisier) cue and its X-Gradient on pixel 1 shrinks
%! rand ('seed', 3); randn ('seed', 3);
%! n = 400; yy = 1 + (rand (n, 1) > 0.5);
%! Xd = single (rand (n, 5));
%! Xd(:, 1) = 0.2 + 0.6 * (yy == 2);
%! Xd(:, 2) = Xd(:, 2) + 0.5 * (yy == 2);
%! M = [1 0 0 0 0];
%! opts = {'epochs', 20, 'lr', 1e-2, 'verbose', false, 'seed', 1};
%! m0 = ee_train (struct ('kind', 'mlp', 'bias', false, 'hidden', [16]), Xd, yy, opts{:});
%! m1 = ee_train (struct ('kind', 'mlp', 'bias', false, 'hidden', [16]), Xd, yy, opts{:}, ...
%!                'prior', struct ('mask', M, 'weight', 10));
%! assert (! isfield (m0.history, 'prior_penalty'));
%! assert (numel (m1.history.prior_penalty), 20);
%! assert (m1.settings.prior_weight, 10);
%! a0 = ee_ig (m0, Xd, 'method', 'xgrad', 'target', yy);
%! a1 = ee_ig (m1, Xd, 'method', 'xgrad', 'target', yy);
%! assert (mean (a1(:, 1) .^ 2) < 0.1 * mean (a0(:, 1) .^ 2));
%! ## weight 0 trains to the same bits as no prior
%! m2 = ee_train (struct ('kind', 'mlp', 'bias', false, 'hidden', [16]), Xd, yy, opts{:}, ...
%!                'prior', struct ('mask', M, 'weight', 0));
%! assert (m2.fc(1).W, m0.fc(1).W);

%!error id=ee:notSupported ee_train ('mlp', single (rand (4, 3)), [1; 2; 1; 2], 'prior', struct ('mask', [1 0 0], 'weight', 1))
%!error id=ee:notSupported ee_train ('cnn', X, y, 'prior', struct ('mask', 1, 'weight', 1))
%!error id=ee:notSupported ee_train (struct ('kind', 'mlp', 'bias', false), single (rand (4, 3)), [1; 2; 1; 2], 'dropout', 0.1, 'prior', struct ('mask', [1 0 0], 'weight', 1))
%!error id=ee:badInput ee_train (struct ('kind', 'mlp', 'bias', false), single (rand (4, 3)), [1; 2; 1; 2], 'prior', struct ('mask', [1 0], 'weight', 1))
%!error id=ee:badInput ee_train (struct ('kind', 'mlp', 'bias', false), single (rand (4, 3)), [1; 2; 1; 2], 'prior', struct ('mask', [1 0 0], 'weight', -1))
%!error id=ee:badInput ee_train (struct ('kind', 'mlp', 'bias', false), single (rand (4, 3)), [1; 2; 1; 2], 'prior', struct ('mask', [1 NaN 0], 'weight', 1))
%!error id=ee:badInput ee_train (struct ('kind', 'mlp', 'bias', false), single (rand (4, 3)), [1; 2; 1; 2], 'prior', struct ('mask', [1 0 0]))
%!error id=ee:badInput ee_train (struct ('kind', 'mlp', 'bias', false), single (rand (4, 3)), [1; 2; 1; 2], 'prior', struct ('mask', [1 0 0], 'weight', 1, 'other', 2))
%!error id=ee:badInput ee_train (struct ('kind', 'mlp', 'bias', false), single (rand (4, 3)), [1; 2; 1; 2], 'prior', [1 0 0])

%!test
%! ## inputs in their own units: the carbig columns (octave-statistics; a
%! ## weight of standard deviation 849 beside 1.7 cylinders), a fixed
%! ## 6-16-1 tanh network on them, exact Shapley values about the
%! ## training rows' mean as the reference.  With the inputs scaled (the
%! ## default) the explainer of the raw columns scores as the same call on
%! ## z-scored columns (the handle undoing the scaling; within 1.5x, here
%! ## the same inputs up to rounding) and far better than a map of zeros;
%! ## fed raw it loses to the zero map, and the check says so.
%! addpath (fullfile (fileparts (which ('ee_train')), '..', 'tests', 'octave'));   # statistics_dataset
%! d = statistics_dataset ('carbig');
%! X = [d.Acceleration d.Cylinders d.Displacement d.Horsepower d.Weight d.Model_Year];
%! X = X(all (isfinite ([X d.MPG]), 2), :);
%! mu = mean (X); sd = std (X);
%! randn ('seed', 7);
%! W1 = randn (6, 16) / sqrt (6); b1 = randn (1, 16) / 4; W2 = randn (16, 1);
%! f = @(x) tanh (((x - mu) ./ sd) * W1 + b1) * W2;
%! rand ('seed', 7); idx = randperm (rows (X));
%! tr = idx(1:250); va = idx(251:300); te = idx(301:end);
%! b = mean (X(tr,:));
%! A = ee_sv (f, X(te,:), 'exact', true, 'baseline', b, 'verbose', false);
%! mse = @(E) mean (mean ((E - A) .^ 2, 2));
%! lastwarn ('');
%! E = ee_train (f, X(tr,:), 'sv', 'baseline', b, 'validation', {X(va,:)}, 'verbose', false);
%! [~, id] = lastwarn ();
%! assert (isempty (id));
%! assert (size (E.input_scaling.center), [1 6]);
%! assert (E.input_scaling.center, median (X(tr,:)), 1e-4 * abs (median (X(tr,:))));
%! raw = mse (ee_explain (E, X(te,:)));
%! fz = @(z) f (z .* sd + mu);
%! Ez = ee_train (fz, (X(tr,:) - mu) ./ sd, 'sv', 'baseline', (b - mu) ./ sd, ...
%!                'validation', {(X(va,:) - mu) ./ sd}, 'verbose', false);
%! zs = mse (ee_explain (Ez, (X(te,:) - mu) ./ sd));
%! assert (raw < 1.5 * zs, sprintf ('raw %g, z-scored %g', raw, zs));
%! assert (raw < 0.2 * mean (mean (A .^ 2, 2)), sprintf ('raw %g', raw));
%! assert (! E.history.check.weak);
%! raw_call = @() ee_train (f, X(tr,:), 'sv', 'baseline', b, 'validation', {X(va,:)}, 'scale_inputs', false, ...
%!                          'verbose', false);
%! assert_weak_warning (raw_call);
%! warning ('off', 'ee:weakExplainer', 'local');
%! U = raw_call ();
%! assert (! isfield (U, 'input_scaling'));
%! assert (U.history.check.weak);
%! unscaled = mse (ee_explain (U, X(te,:)));
%! assert (unscaled > 3 * raw, sprintf ('unscaled %g, scaled %g', unscaled, raw));

%!test
%! ## one map per class (the default for a classifier of 2 to 16 classes):
%! ## a 3-class function of 5 features whose predicted class changes
%! ## inside the data; the reference is each row's exact Shapley values of
%! ## its argmax class by enumerating the 32 coalitions here (the zero
%! ## baseline).  The explainer of one map per class is far closer to them
%! ## than the explainer of the predicted class's map alone, and it tells
%! ## the class from its maps' sums about as well as f does.
%! f = @(x) [x(:,1) .* x(:,2) + x(:,3), sin(2 * x(:,3)) + x(:,4) - x(:,5), 0.5 * x(:,5) .^ 2 - x(:,1)];
%! randn ('seed', 11);
%! X = randn (400, 5); Xv = randn (60, 5); Xt = randn (100, 5);
%! F = 5; S = dec2bin (0:2^F-1) == '1'; Z = zeros (1, F);
%! A = zeros (rows (Xt), F); [~, cls] = max (f (Xt), [], 2);
%! for i = 1:rows (Xt)
%!   v = zeros (2^F, 1);
%!   for k = 1:2^F
%!     x = Z; x(S(k,:)) = Xt(i, S(k,:)); sc = f (x); v(k) = sc(cls(i));
%!   end
%!   for p = 1:F
%!     w = ! S(:,p); s = sum (S(w,:), 2);
%!     T = bin2dec (char ('0' + (S(w,:) | (1:F) == p)));
%!     A(i,p) = sum (factorial (s) .* factorial (F - s - 1) / factorial (F) .* (v(T + 1) - v(w)));
%!   end
%! end
%! mse = @(E) mean (mean ((E - A) .^ 2, 2));
%! E = ee_train (f, X, 'exact', 'validation', {Xv}, 'hidden', [64 64], 'verbose', false);
%! assert (E.settings.per_class && E.explains.classes == 3 && E.classes == 15);
%! assert (E.explains.fempty, f (Z), 1e-12);
%! E1 = ee_train (f, X, 'exact', 'validation', {Xv}, 'hidden', [64 64], 'per_class', false, 'verbose', false);
%! assert (! E1.settings.per_class && E1.explains.classes == 1 && E1.classes == 5);
%! [Pm, info] = ee_explain (E, Xt, 'model', f);
%! assert (info.target, cls);
%! per_class = mse (Pm); one = mse (ee_explain (E1, Xt, 'model', f));
%! assert (per_class < 0.5 * one, sprintf ('per class %g, one map %g', per_class, one));
%! assert (per_class < 0.05 * mean (mean (A .^ 2, 2)), sprintf ('per class %g', per_class));
%! [~, info] = ee_explain (E, Xt);                 # the class from the maps' sums
%! assert (mean (info.target == cls) > 0.9);
%! assert (! E.history.check.weak);
%! ## given maps learn one map; a 'target' in 'options' too
%! assert (ee_train (f, X(1:20,:), zeros (20, 5), 'epochs', 1, 'verbose', false).explains.classes, 1);
%! warning ('off', 'ee:weakExplainer', 'local');
%! assert (ee_train (f, X(1:20,:), 'exact', 'options', {'target', 2}, 'epochs', 1, 'verbose', false).explains.classes, 1);
%!test
%! ## up to 16 classes get a map each (16 runs of the method in one call), 17 one map
%! warning ('off', 'ee:weakExplainer', 'local');
%! X = randn (12, 3);
%! E = ee_train (@(x) x(:, 1) * (1:16) + x(:, 2) .* x(:, 3), X, 'exact', 'epochs', 1, 'verbose', false);
%! assert ([E.explains.classes, E.classes, numel(E.explains.fempty)], [16, 48, 16]);
%! E = ee_train (@(x) x(:, 1) * (1:17) + x(:, 2) .* x(:, 3), X, 'exact', 'epochs', 1, 'verbose', false);
%! assert ([E.explains.classes, E.classes], [1, 3]);
%!error <'per_class' needs the maps computed here> ee_train (@(x) [x x], [1; 2], [0; 0], 'per_class', true)
%!error <'per_class' needs the maps computed here> ee_train (@(x) x, [1; 2], 'sv', 'per_class', true)
%!error <'per_class' needs the maps computed here> ee_train (@(x) [x x], [1; 2], 'sv', 'options', {'target', 1}, 'per_class', true)

%!test
%! ## the check's numbers, recomputed through the other gateways in double:
%! ## the explainer's maps, a map of zeros and SV at s = 1 on the
%! ## validation rows; on the training rows when none are given
%! randn ('seed', 5);
%! w = [1 -2 0.5 3]; f = @(x) tanh (x * w') + 0.3 * x(:, 1) .* x(:, 2);
%! X = randn (120, 4); Xv = randn (40, 4);
%! E = ee_train (f, X, 'sv', 'validation', {Xv}, 'epochs', 30, 'verbose', false);
%! c = E.history.check;
%! Av = ee_sv (f, Xv, 'verbose', false);
%! S1 = ee_sv (f, Xv, 'samples', 1, 'seed', 0x5eed, 'verbose', false);
%! m = @(P) mean (mean ((P - Av) .^ 2, 2));
%! assert ([c.n, c.explainer_mse, c.zero_mse, c.sampled_mse], ...
%!         [40, m(ee_explain (E, Xv, 'model', f)), m(zeros (size (Av))), m(S1)], -1e-5);
%! assert ({c.rows, c.sampled}, {'validation', 'SV at s = 1'});
%! assert (c.weak, ! (c.explainer_mse < c.zero_mse && c.explainer_mse < c.sampled_mse));
%! E = ee_train (f, X, 'ig', 'options', {'gradient', 'fd'}, 'epochs', 5, 'verbose', false);
%! c = E.history.check;
%! A = ee_ig (f, X, 'gradient', 'fd', 'verbose', false);
%! I1 = ee_ig (f, X, 'gradient', 'fd', 'steps', 1, 'verbose', false);
%! m = @(P) mean (mean ((P - A) .^ 2, 2));
%! assert ([c.n, c.explainer_mse, c.zero_mse, c.sampled_mse], [120, m(ee_explain (E, X, 'model', f)), m(0 * A), m(I1)], -1e-5);
%! assert ({c.rows, c.sampled}, {'training', 'IG at s = 1'});
%! ## given maps: no sampled run
%! E = ee_train (f, X, A, 'epochs', 2, 'verbose', false);
%! assert (isnan (E.history.check.sampled_mse) && isempty (E.history.check.sampled));

%!test
%! ## 'verbose', false silences the method that computes the maps too
%! warning ('off', 'ee:weakExplainer', 'local');   # (two epochs: the check may warn, on stderr)
%! out = evalc ("ee_train (@(x) x * [1; 2], randn (20, 2), 'sv', 'epochs', 2, 'verbose', false);");
%! assert (out, '');

%!test
%! ## a token explainer's check: recomputed from ee_explain, ee_ig at s = 1
%! ## and the maps; an explainer trained on maps that its validation rows
%! ## contradict (the same rows, the maps negated) is weak and warns
%! rand ('seed', 2);
%! V = 30; T = 10; N = 80;
%! X = int32 (ones (N, T)); X(:, 1) = 3;
%! for i = 1:N
%!   n = randi ([3 7]); X(i, 2:n+1) = randi ([5 V], 1, n); X(i, n+2) = 4;
%! end
%! y = 1 + mod (sum (double (X(:, 2:3)), 2), 2);
%! clf = ee_train ('transformer', X, y, 'd', 16, 'heads', 2, 'layers', 1, 'ffn', 32, 'epochs', 2, 'verbose', false);
%! Xv = X(61:80, :); Xt = X(1:60, :);
%! E = ee_train (clf, Xt, 'ig', 'validation', {Xv}, 'steps', 8, 'epochs', 4, 'verbose', false);
%! c = E.history.check;
%! Av = double (ee_ig (clf, Xv, 'steps', 8));
%! m = @(P) mean (mean ((double (P) - Av) .^ 2, 2));
%! assert ([c.n, c.explainer_mse, c.zero_mse, c.sampled_mse], ...
%!         [20, m(ee_explain (E, Xv)), m(0 * Av), m(ee_ig (clf, Xv, 'steps', 1))], -1e-4);
%! At = ee_ig (clf, Xt, 'steps', 8);
%! addpath (fullfile (fileparts (which ('ee_train')), '..', 'tests', 'octave'));   # assert_weak_warning
%! call = @() ee_train (clf, Xt, At, 'validation', {Xt, -At}, 'epochs', 3, 'verbose', false);
%! assert_weak_warning (call);
%! warning ('off', 'ee:weakExplainer', 'local');
%! W = call ();
%! assert (W.history.check.weak && isnan (W.history.check.sampled_mse));
%! assert (W.history.check.explainer_mse > W.history.check.zero_mse);
