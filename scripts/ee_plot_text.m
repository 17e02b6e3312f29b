## -*- texinfo -*-
## @deftypefn  {} {@var{r} =} ee_plot_text (@var{model}, @var{text}, @dots{})
## Explain a classifier's decision on one text of your own, in one call.
##
## Tokenizes @var{text} (a char row, UTF-8) with the vocabulary the
## classifier carries (@code{ee_train (..., 'vocab', VOCAB)}; or option
## @qcode{'vocab'}), classifies it, computes one attribution per word and
## draws the words, as written in the text, on backgrounds coloured by
## their attribution (red: for the explained class, blue: against), with
## the predicted class, its probability and the completeness check: the sum
## of the attributions against f(x) - f(baseline), the target logit's change
## from the baseline (the words replaced by PAD) to the text.
##
## Options:
## @table @asis
## @item 'method'
## @qcode{'ig'} (default): Integrated Gradients (@code{ee_ig}, option
## @qcode{'steps'}, default 20); @qcode{'sv'}: Shapley Value Sampling
## (@code{ee_sv}, options @qcode{'samples'} (20) and @qcode{'seed'} (1));
## @qcode{'explainer'}: an Empirical Explainer of this classifier, given as
## option @qcode{'explainer'} (@code{ee_explain}, one pass).
## @item 'target'
## the class to explain: an index or a class name (default: the predicted
## class).
## @item 'file'
## write the picture there (@file{.png}, @file{.pdf}, @file{.svg}, or a
## cell of names; written as @code{ee_heatmap} writes its files, with no
## figure: @code{r.figure} is empty); without @qcode{'file'} the picture is
## a figure that stays open on screen (@code{r.figure}).
## @item 'title', 'width', 'scale', 'specials'
## as for @code{ee_heatmap}; @qcode{'scale'} default @qcode{'shared'} (the
## colour bar shows the attributions' values; a number makes several
## pictures comparable), @qcode{'specials'} default false ([CLS] and [SEP]
## are not shown).
## @end table
##
## @var{r} has @code{X} (the token row), @code{words} (as drawn), @code{A}
## (1 x T attributions), @code{label} and @code{class} (predicted),
## @code{prob} (its softmax probability), @code{target}, @code{fx},
## @code{fbaseline}, @code{delta} (sum(A) - (fx - fbaseline)),
## @code{truncated} (the text had more than T - 2 words), @code{figure}.
## @seealso{ee_tokenize, ee_heatmap, ee_ig, ee_sv, ee_explain}
## @end deftypefn

function r = ee_plot_text (model, text, varargin)
  if (nargin < 2)
    print_usage ();
  end
  o = struct ('method', 'ig', 'explainer', [], 'steps', 20, 'samples', 20, 'seed', 1, ...
              'target', [], 'file', '', 'title', '', 'width', 80, 'scale', 'shared', ...
              'specials', false, 'vocab', []);
  who = 'ee_plot_text';
  o = ee_options (o, varargin, who);
  if (! (isstruct (model) && isscalar (model) && isfield (model, 'kind')) || isfield (model, 'head'))
    error ('ee:badModel', 'ee_plot_text: MODEL must be a trained classifier (from ee_train)');
  end
  if (! (ischar (text) && (isrow (text) || isempty (text))))
    error ('ee:badInput', 'ee_plot_text: TEXT must be one text (a char row)');
  end
  o.method = ee_check (who, '''method''', o.method, 'choice', {'ig', 'sv', 'explainer'});
  o.steps = ee_check (who, '''steps''', o.steps, 'int', 1, 2^20);
  o.samples = ee_check (who, '''samples''', o.samples, 'int', 1, 2^20);
  o.seed = ee_check (who, '''seed''', o.seed, 'int', 0, 2^31 - 1);
  if (! isempty (o.file))
    o.file = ee_check (who, '''file''', o.file, 'files', {'.png', '.pdf', '.svg'});
  end
  o.title = ee_check (who, '''title''', o.title, 'text');
  o.width = ee_check (who, '''width''', o.width, 'int', 1, 10000);
  o.scale = scale_option (who, o.scale);
  o.specials = ee_check (who, '''specials''', o.specials, 'flag');
  if (! isempty (o.explainer) && ! (isstruct (o.explainer) || iscell (o.explainer)))
    error ('ee:badInput', 'ee_plot_text: ''explainer'' must be an Empirical Explainer (a struct from ee_train)');
  end
  method = lower (o.method);
  vocab = model;
  if (! isempty (o.vocab))
    vocab = o.vocab;
  end
  vocab = ee_vocab_of (vocab, who);

  [X, tinfo] = ee_tokenize (vocab, text, 'T', model.T);
  [label, logits] = ee_predict (model, X);
  p = exp (double (logits) - max (logits));
  p /= sum (p);
  C = numel (p);
  names = arrayfun (@(c) sprintf ('class %d', c), 1:C, 'uniformoutput', false);
  if (isfield (model, 'class_names') && iscellstr (model.class_names) && numel (model.class_names) == C)
    names = model.class_names;
  end
  target = double (label);
  if (! isempty (o.target))
    if (ischar (o.target))
      target = find (strcmp (names, o.target));
      if (isempty (target))
        error ('ee:badInput', 'ee_plot_text: no class named ''%s'' (classes: %s)', o.target, strjoin (names, ', '));
      end
    elseif (isnumeric (o.target) && isscalar (o.target) && any (o.target == 1:C))
      target = double (o.target);
    else
      error ('ee:badInput', 'ee_plot_text: ''target'' must be a class index in 1..%d or a class name', C);
    end
  end

  switch (method)
    case 'ig'
      [A, ai] = ee_ig (model, X, 'steps', o.steps, 'target', target, 'verbose', false);
      what = sprintf ('Integrated Gradients, %d steps', o.steps);
      fx = ai.fx; fb = ai.fbaseline;
    case 'sv'
      [A, ai] = ee_sv (model, X, 'samples', o.samples, 'seed', o.seed, 'target', target, 'verbose', false);
      what = sprintf ('Shapley Value Sampling, %d permutations', o.samples);
      fx = ai.fx; fb = ai.fbaseline;
    case 'explainer'
      if (isempty (o.explainer))
        error ('ee:badInput', 'ee_plot_text: ''method'', ''explainer'' needs the explainer: ''explainer'', EXPL');
      end
      if (target != double (label))
        error ('ee:notSupported', 'ee_plot_text: an Empirical Explainer explains the predicted class only');
      end
      A = ee_explain (o.explainer, X);
      what = 'Empirical Explainer, 1 pass';
      if (isfield (o.explainer, 'explains') && isfield (o.explainer.explains, 'method'))
        what = sprintf ('Empirical Explainer of %s, 1 pass', o.explainer.explains.method);
      end
      ## f(x) and f(baseline) as the samplers define them: the real tokens
      ## replaced by PAD, under the text's own mask
      Xb = X;
      Xb(! ismember (X, [1 3 4])) = 1;
      [~, lg] = ee_predict (model, [X; Xb], 'mask', [X != 1; X != 1]);
      fx = double (lg(1, target)); fb = double (lg(2, target));
  end
  A = single (A);
  A(X == 1) = 0;                             # PAD positions (an explainer predicts them too)
  delta = sum (double (A)) - (fx - fb);

  ttl = o.title;
  if (isempty (ttl))
    ttl = sprintf ('%s (%s classifier)', what, model.kind);
  end
  line2 = sprintf ('predicted: %s (p = %.3f)', names{label}, p(label));
  if (target != label)
    line2 = [line2 sprintf('; explained: %s', names{target})];
  end
  if (tinfo.truncated)
    line2 = [line2 sprintf('; the text was cut to its first %d words', model.T - 2)];
  end
  line3 = sprintf ('completeness: sum of attributions %.4g, f(x) - f(baseline) %.4g, delta %.2g', ...
                   sum (double (A)), fx - fb, delta);

  words = ee_detokenize (vocab, X, tinfo){1};
  keep = X != 1;
  a = double (A(keep));
  if (! o.specials)
    real = ! ismember (X(keep), [3 4]);
    words = words(real);
    a = a(real);
  end
  d = struct ('title', ttl, 'class', {{line2, line3}}, 'labels', {{''}}, 'width', o.width, 'font', 'DejaVu Sans Mono', ...
              'scale', o.scale, 'colorbar', true);
  if (isempty (o.file))
    d.visible = true; d.toolkit = '';
    fig = ee_draw_words (words, {a}, d);
  else
    ## the files as ee_heatmap writes them (the same picture)
    [svg, pt] = scene_svg (words_scene (words, {a}, d));
    save_svg (svg, pt, o.file, 300, who);
    fig = [];
  end
  r = struct ('X', X, 'words', {words}, 'A', A, 'label', double (label), 'class', names{label}, ...
              'prob', p(label), 'target', target, 'fx', fx, 'fbaseline', fb, 'delta', delta, ...
              'truncated', tinfo.truncated, 'figure', fig);
end

%!shared m, V
%! V = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'good', 'great', 'bad', 'awful', 'movie', 'plot'};
%! X = int32 ([3 5 9 4 1 1; 3 7 9 4 1 1; 3 6 10 4 1 1; 3 8 10 4 1 1; 3 9 5 6 4 1; 3 10 7 8 4 1]);
%! X = repmat (X, 8, 1);
%! y = repmat ([2; 1; 2; 1; 2; 1], 8, 1);
%! m = ee_train (struct ('kind', 'transformer', 'd', 8, 'heads', 2, 'layers', 1, 'ffn', 16, 'vocab', {V}), ...
%!               X, y, 'classes', {'negative', 'positive'}, 'epochs', 30, 'lr', 5e-3, 'verbose', false);

%!test
%! ## IG: the words as written, the class by name, completeness holds
%! f = [tempname() '.png'];
%! unwind_protect
%!   r = ee_plot_text (m, 'A GREAT movie!', 'file', f);
%!   assert (exist (f, 'file') == 2);
%!   img = imread (f);
%! unwind_protect_cleanup
%!   if (exist (f, 'file')) delete (f); end
%! end_unwind_protect
%! assert (r.words, {'A', 'GREAT', 'movie', '!'});
%! assert (r.class, m.class_names{r.label});
%! assert (r.X, int32 ([3 2 6 9 2 4]));
%! assert (r.truncated, false);
%! assert (abs (r.delta) < 1e-3 * max (1, abs (r.fx - r.fbaseline)));
%! assert (isempty (r.figure));
%! assert (size (img, 3), 3);
%! r = ee_plot_text (m, 'good movie', 'file', f);
%! assert (r.class, 'positive');                    # a training text
%! assert (sum (r.A(r.X == 1)), single (0));
%! delete (f);

%!test
%! ## SV, a named target, several formats; an explainer
%! d = tempname (); mkdir (d);
%! unwind_protect
%!   r = ee_plot_text (m, 'awful plot, bad movie', 'method', 'sv', 'samples', 8, 'target', 'positive', ...
%!                     'file', fullfile (d, {'s.pdf', 's.svg'}));
%!   assert (r.target, 2);
%!   assert (abs (r.delta) < 1e-3 * max (1, abs (r.fx - r.fbaseline)));
%!   assert (numel (dir (fullfile (d, 's.*'))), 2);
%!   Xe = int32 ([3 5 9 4 1 1; 3 7 9 4 1 1; 3 6 10 4 1 1; 3 8 10 4 1 1]);
%!   e = ee_train (m, Xe, ee_ig (m, Xe, 'verbose', false), 'epochs', 2, 'verbose', false, ...
%!                 'explains', struct ('method', 'IG'));
%!   r = ee_plot_text (m, 'good movie', 'method', 'explainer', 'explainer', e, 'file', fullfile (d, 'e.png'));
%!   assert (numel (r.A), 6);
%!   assert (isfinite (r.delta));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect

%!error <Invalid call> ee_plot_text (m)
%!error id=ee:badInput ee_plot_text (m, '')
%!error id=ee:badInput ee_plot_text (m, {'good', 'bad'})
%!error id=ee:badInput ee_plot_text (m, 42)
%!error id=ee:badInput ee_plot_text (m, char ([103 255]))
%!error id=ee:badInput ee_plot_text (m, 'good', 'method', 'lime')
%!error id=ee:badInput ee_plot_text (m, 'good', 'method', 'explainer')
%!error id=ee:badInput ee_plot_text (m, 'good', 'target', 'neutral')
%!error id=ee:badInput ee_plot_text (m, 'good', 'target', 3)
%!error id=ee:badInput ee_plot_text (m, 'good', 'nosuch', 1)
%!error id=ee:badModel ee_plot_text (rmfield (m, 'vocab_words'), 'good')
%!error id=ee:badModel ee_plot_text (struct ('a', 1), 'good')
%!error <'scale'> ee_plot_text (m, 'good', 'scale', -1)
%!error <'scale'> ee_plot_text (m, 'good', 'scale', 'bogus')
%!error <'width'> ee_plot_text (m, 'good', 'width', Inf)
%!error <'steps'> ee_plot_text (m, 'good', 'steps', 0)
%!error <'specials'> ee_plot_text (m, 'good', 'specials', 'no')
%!error <'file'> ee_plot_text (m, 'good', 'file', 'x.jpg')
