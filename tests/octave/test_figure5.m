## test_figure5: a smoke run of the Figure 5 pipeline (scripts/paper/figure5.m)
## with the 'tiny' preset into temporary results/figures folders, then a
## second run that must come entirely from the cache with the same numbers,
## runs that recompute only what a changed setting touches, and a run on
## "the user's own data" that must stay out of the project's outputs.
1;

%!function check_outputs (fig, R)
%!  ## the figure in three formats
%!  img = imread (fullfile (fig, 'figure5.png'));
%!  assert (ndims (img) == 3 && size (img, 3) == 3);
%!  assert (rows (img) > 600 && columns (img) > 600);
%!  assert (numel (unique (img(:))) > 10);          # not a blank picture
%!  fid = fopen (fullfile (fig, 'figure5.pdf'), 'r'); head = fread (fid, 4, 'char=>char')'; fclose (fid);
%!  assert (head, '%PDF');
%!  svg = fileread (fullfile (fig, 'figure5.svg'));
%!  assert (! isempty (strfind (svg, '<svg')));
%!  ## the numbers
%!  fid = fopen (fullfile (fig, 'figure5.csv'), 'r');
%!  hdr = fgetl (fid);
%!  c = textscan (fid, ['%s %s %s' repmat(' %f', 1, 19)], 'delimiter', ',');
%!  fclose (fid);
%!  want = ['panel,dataset,method,s,passes,expensive_mse,expensive_q25,expensive_median,expensive_q75,' ...
%!          'expensive_spearman,expensive_top5,explainer_mse,explainer_q25,explainer_median,explainer_q75,' ...
%!          'explainer_spearman,explainer_top5,explainer_passes,floor,explainer_over_floor,seconds,crossing'];
%!  assert (hdr, want);
%!  S = R.panels(1).S;
%!  names = {'ig_spam', 'ig_wordnet', 'sv_fortunes', 'sv_wordnet'};
%!  assert (numel (c{1}), 4 * S);
%!  for k = 1:4
%!    r = (k - 1) * S + (1:S);
%!    assert (c{1}(r), repmat (names(k), S, 1));
%!    assert (c{4}(r), (1:S)');
%!    assert (c{6}(r(end)), 0);                    # s = S reproduces the target
%!    assert (c{10}(r(end)), 1, 1e-12);            # ... with a perfect rank correlation
%!    assert (c{6}(r), R.panels(k).curve.curve', 1e-9 * max (c{6}(r)) + eps);
%!    assert (all (c{19}(r) > 0));
%!    assert (c{20}(r), c{12}(r) ./ c{19}(r), -1e-5);   # the CSV's 6 digits
%!    assert (all (abs (c{16}(r)) <= 1) && all (c{17}(r) >= 0 & c{17}(r) <= 1));
%!  end
%!  ## the equal-accuracy summary (ee_speedup), its numbers recomputed here
%!  ## from the curves, and the cost-accuracy figure
%!  fid = fopen (fullfile (fig, 'figure5_summary.csv'), 'r');
%!  hdr = fgetl (fid);
%!  z = textscan (fid, ['%s' repmat(' %f', 1, 13)], 'delimiter', ',');
%!  fclose (fid);
%!  assert (hdr, ['panel,crossing,explainer_passes,explainer_seconds,expensive_seconds_at_crossing,' ...
%!                'speedup_time,speedup_passes,break_even_time,break_even_passes,explainer_mse,floor,' ...
%!                'spearman,top5,lower_bound']);
%!  assert (z{1}, names');
%!  for k = 1:4
%!    C = R.panels(k).curve;
%!    cx = find (C.curve(1:S-1) <= C.explainer_curve, 1);
%!    assert (z{14}(k), double (isempty (cx)));
%!    if (isempty (cx)) cx = S; end
%!    assert (z{2}(k), cx);
%!    assert (z{4}(k) > 0 && z{5}(k) > 0);         # times measured, not NaN
%!    assert (z{6}(k), z{5}(k) / z{4}(k), -1e-5);
%!    assert (z{7}(k), C.passes(cx) / C.explainer_passes, -1e-5);
%!    assert (z{3}(k), C.explainer_passes, -1e-5);
%!    assert (z{10}(k), C.explainer_curve, -1e-5);
%!    assert (R.summary(k).speedup_time, z{6}(k), -1e-5);
%!  end
%!  img = imread (fullfile (fig, 'figure5_cost.png'));
%!  assert (size (img, 3) == 3 && numel (unique (img(:))) > 10);
%!  assert (exist (fullfile (fig, 'figure5_cost.pdf'), 'file') == 2 && exist (fullfile (fig, 'figure5_cost.svg'), 'file') == 2);
%!  assert (c{5}(1:S), 2 * (1:S)' + 2);             # IG passes per explanation
%!  ## the IG spam explainer reads the token ids only: its own pass; the
%!  ## others read the classifier's attention ('attention_top'): their own
%!  ## pass, the classifier's forward pass and its backward pass through
%!  ## the last layer's [CLS] row (counted as one), and a forward and a
%!  ## backward pass at the baseline (its gradient and the projection's
%!  ## f(baseline)) per distinct baseline and target of the test rows
%!  for k = 1:4
%!    X = R.panels(k).X;
%!    inputs = R.panels(k).settings.expl.inputs;
%!    assert (inputs, {'tokens', 'attention_top', 'attention_top', 'attention_top'}{k});   # the presets' (f5_presets)
%!    e = c{18}((k - 1) * S + 1);
%!    if (strcmp (inputs, 'tokens'))
%!      ## its own pass, and (the preset's 'margin') the classifier's at each
%!      ## distinct pad baseline under the rows' mask, for the map's sign
%!      Xb = X; Xb(! ismember (X, int32 ([1 3 4]))) = 1;
%!      nb = rows (unique ([Xb, X != 1], 'rows')) * R.panels(k).settings.expl.margin;
%!      assert (e, 1 + nb / rows (X), -1e-5);    # (the csv keeps 6 digits)
%!    else
%!      assert (e > 3 && e <= 5, '%s: %g passes', names{k}, e);
%!    end
%!  end
%!  ## heatmaps and their HTML pages
%!  for k = 1:4
%!    h = imread (fullfile (fig, sprintf ('heatmap_%s_1.png', names{k})));
%!    assert (size (h, 3), 3);
%!    html = fileread (fullfile (fig, sprintf ('heatmaps_%s.html', names{k})));
%!    assert (! isempty (strfind (html, '<span style="background:rgb(')));
%!    assert (isempty (strfind (html, '[PAD]')));     # pads are not shown
%!    assert (numel (strfind (html, 'class="seq"')), rows (R.panels(k).X));
%!  end
%!  txt = fileread (fullfile (fig, 'runtime_tiny.txt'));
%!  assert (! isempty (strfind (txt, 'break-even')) && ! isempty (strfind (txt, 'x the floor')));
%!  assert (! isempty (strfind (txt, 'equal-accuracy speed-up')));
%!  assert (! isempty (strfind (txt, 'IG on spam')) && ! isempty (strfind (txt, 'SV on wordnet')));
%!endfunction

%!test
%! res = tempname (); fig = tempname ();
%! unwind_protect
%!   R1 = figure5 ('tiny', 'results', res, 'figures', fig, 'verbose', false);
%!   check_outputs (fig, R1);
%!   for k = 1:4
%!     h = R1.panels(k).cache_hits;
%!     ## only the wordnet classifier is shared (the SV panel finds the IG panel's)
%!     assert (h.classifier, k == 4);
%!     if (k >= 3)
%!       ## the SV panels train with the target-free loss: no SV maps of
%!       ## their training and unlabelled rows (nothing computed, nothing cached)
%!       assert ([R1.panels(k).runtime.targets_train_passes R1.panels(k).runtime.targets_unlabelled_passes], [0 0]);
%!       h = rmfield (h, {'targets_train', 'targets_unlabelled'});
%!     end
%!     assert (! any (cell2mat (struct2cell (rmfield (h, 'classifier')))));
%!     C = R1.panels(k).curve;
%!     assert (all (C.mse(:, end) == 0));
%!     assert (isfinite (C.explainer_curve) && C.floor > 0);
%!   end
%!   assert (R1.panels(3).n.unlabelled, 8);     # fortunes: unlabelled rows train the explainer
%!   assert (exist (fullfile (res, 'figure5.mat'), 'file') == 2);
%!   ## the second run: everything from the cache, the same numbers
%!   delete (fullfile (fig, 'figure5.png'));
%!   R2 = figure5 ('tiny', 'results', res, 'figures', fig, 'verbose', false);
%!   check_outputs (fig, R2);
%!   for k = 1:4
%!     assert (all (cell2mat (struct2cell (R2.panels(k).cache_hits))));
%!     assert (R2.panels(k).curve.mse, R1.panels(k).curve.mse);
%!     assert (R2.panels(k).curve.explainer_mse, R1.panels(k).curve.explainer_mse);
%!     assert (R2.panels(k).keys, R1.panels(k).keys);
%!   end
%!   ## (that the cached run is also faster is a timing, not asserted here:
%!   ## the cache hits above say it computed nothing)
%!   ## a changed explainer setting recomputes only the explainer
%!   R3 = figure5 ('tiny', 'results', res, 'figures', tempname (), 'verbose', false, 'panels', 'sv_fortunes', ...
%!                 'sv', struct ('expl', struct ('epochs', 1)));
%!   h = R3.panels(1).cache_hits;
%!   assert ([h.classifier h.targets_train h.targets_valid h.targets_test h.targets_unlabelled h.curve], true (1, 6));
%!   assert (h.explainer, false);
%!   assert (R3.panels(1).curve.mse, R1.panels(3).curve.mse);
%!   ## a changed classifier setting recomputes everything downstream
%!   R4 = figure5 ('tiny', 'results', res, 'figures', tempname (), 'verbose', false, 'panels', 'sv_fortunes', ...
%!                 'sv', struct ('clf', struct ('epochs', 1)));
%!   assert (! any (cell2mat (struct2cell (rmfield (R4.panels(1).cache_hits, {'targets_train', 'targets_unlabelled'})))));
%!   assert (R3.panels(1).keys.targets, R1.panels(3).keys.targets);
%!   assert (! strcmp (R3.panels(1).keys.explainer{1}, R1.panels(3).keys.explainer{1}));
%!   ## expl.loss 'mse': the explainer learns SV maps of its training and
%!   ## unlabelled rows, computed now; the rest from the cache
%!   R5 = figure5 ('tiny', 'results', res, 'figures', tempname (), 'verbose', false, 'panels', 'sv_fortunes', ...
%!                 'sv', struct ('expl', struct ('loss', 'mse', 'coalitions', 8)));
%!   h = R5.panels(1).cache_hits;
%!   assert ([h.classifier h.targets_valid h.targets_test h.curve], true (1, 4));
%!   assert ([h.targets_train h.targets_unlabelled h.explainer], false (1, 3));
%!   rt = R5.panels(1).runtime;
%!   assert (rt.targets_train_passes > 0 && rt.targets_unlabelled_passes > 0);
%!   assert (isfinite (R5.panels(1).curve.explainer_curve));
%!   ## ... whose key does not hold the coalitions (an MSE explainer reads
%!   ## none): everything from the cache
%!   R5b = figure5 ('tiny', 'results', res, 'figures', tempname (), 'verbose', false, 'panels', 'sv_fortunes', ...
%!                  'sv', struct ('expl', struct ('loss', 'mse', 'coalitions', 16)));
%!   assert (all (cell2mat (struct2cell (R5b.panels(1).cache_hits))));
%!   ## the target-free loss with other coalitions: another explainer, still
%!   ## no SV maps of its training and unlabelled rows; the rest from the cache
%!   R6 = figure5 ('tiny', 'results', res, 'figures', tempname (), 'verbose', false, 'panels', 'sv_fortunes', ...
%!                 'sv', struct ('expl', struct ('loss', 'shapley_kernel', 'coalitions', 8)));
%!   h = R6.panels(1).cache_hits;
%!   assert ([h.classifier h.targets_valid h.targets_test h.curve h.explainer], [true(1, 4), false]);
%!   assert (! strcmp (R6.panels(1).keys.explainer{1}, R1.panels(3).keys.explainer{1}));
%!   rt = R6.panels(1).runtime;
%!   assert ([rt.targets_train_passes rt.targets_unlabelled_passes], [0 0]);
%!   assert (isfinite (R6.panels(1).curve.explainer_curve));
%!   R7 = figure5 ('tiny', 'results', res, 'figures', tempname (), 'verbose', false, 'panels', 'sv_fortunes', ...
%!                 'sv', struct ('expl', struct ('loss', 'shapley_kernel', 'coalitions', 10)));
%!   assert (! strcmp (R7.panels(1).keys.explainer{1}, R6.panels(1).keys.explainer{1}));
%!   assert (R7.panels(1).cache_hits.explainer, false);
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (res, 'dir')) rmdir (res, 's'); end
%!   if (exist (fig, 'dir')) rmdir (fig, 's'); end
%! end_unwind_protect

%!test
%! ## the user's own data: only the panel asked for, folders named after the
%! ## data, the project's figures and results untouched
%! root = fileparts (fileparts (fileparts (which ('figure5'))));   # scripts/paper/figure5.m; mfilename is empty in a test block
%! tag = sprintf ('myfortunes%d', getpid ());
%! src = fullfile (root, 'datasets', 'fortunes.mat');
%! tmp = tempname (); mkdir (tmp);
%! mine = fullfile (tmp, [tag '.mat']);
%! copyfile (src, mine);
%! before = dir (fullfile (root, 'figures'));
%! unwind_protect
%!   R = figure5 ('tiny', 'data_sv', mine, 'panels', 'sv', 'verbose', false, 'heatmaps', 0);
%!   assert ({R.panels.name}, {['sv_' tag]});
%!   assert (R.settings.results, fullfile (root, 'results', tag, 'tiny'));
%!   assert (R.settings.figures, fullfile (root, 'figures', tag));
%!   assert (exist (fullfile (root, 'figures', tag, 'figure5.png'), 'file') == 2);
%!   after = dir (fullfile (root, 'figures'));
%!   assert (setdiff ({after.name}, {before.name}), {tag});
%!   b = before(! [before.isdir]); a = after(! [after.isdir]);
%!   assert ([a.datenum], [b.datenum]);           # nothing of the project's rewritten
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   for d = {fullfile(root, 'results', tag), fullfile(root, 'figures', tag), tmp}
%!     if (exist (d{1}, 'dir')) rmdir (d{1}, 's'); end
%!   end
%! end_unwind_protect

%!test
%! ## a corpus of 4 classes through both panels, to the end: the IG panel
%! ## does not apply the preset's 'margin' (binary classifiers only), and a
%! ## margin asked for is refused before any target is computed
%! root = fileparts (fileparts (fileparts (which ('figure5'))));
%! d = load (fullfile (root, 'datasets', 'fortunes.mat'));
%! keep = find (d.labels <= 4);
%! new = zeros (rows (d.tokens), 1); new(keep) = 1:numel (keep);
%! tokens = d.tokens(keep, :); labels = d.labels(keep); vocab = d.vocab; classes = d.classes(1:4);
%! split = struct ();
%! for f = {'train', 'valid', 'test'}
%!   r = d.split.(f{1}); split.(f{1}) = new(r(d.labels(r) <= 4));
%! end
%! info = d.info; unlabelled = d.unlabelled;
%! tag = sprintf ('four%d', getpid ());
%! tmp = tempname (); mkdir (tmp);
%! mine = fullfile (tmp, [tag '.mat']);
%! save ('-v7', mine, 'tokens', 'labels', 'vocab', 'classes', 'split', 'info', 'unlabelled');
%! res = fullfile (tmp, 'results'); fig = fullfile (tmp, 'figures');
%! unwind_protect
%!   R = figure5 ('tiny', 'data_ig', mine, 'data_sv', mine, 'panels', {'ig', 'sv'}, 'verbose', false, ...
%!                'heatmaps', 0, 'results', res, 'figures', fig);
%!   assert ({R.panels.name}, {['ig_' tag], ['sv_' tag]});
%!   assert (R.panels(1).settings.expl.margin, false);
%!   assert (all (arrayfun (@(p) isfinite (p.curve.explainer_curve), R.panels)));
%!   assert (exist (fullfile (fig, 'figure5.png'), 'file') == 2);
%!   t0 = tic ();
%!   err = '';
%!   try
%!     figure5 ('tiny', 'data_ig', mine, 'panels', 'ig', 'verbose', false, 'heatmaps', 0, 'results', res, ...
%!              'figures', fig, 'ig', struct ('expl', struct ('margin', true)));
%!   catch e
%!     err = e.message;
%!   end
%!   assert (! isempty (strfind (err, '''margin'' explains a binary classifier')), err);
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (tmp, 'dir')) rmdir (tmp, 's'); end
%! end_unwind_protect

%!error <unknown preset> figure5 ('huge', 'results', tempname (), 'figures', tempname ())
%!error <unknown option> figure5 ('tiny', 'nosuch', 1)
%!error <shapley_kernel> figure5 ('tiny', 'results', tempname (), 'figures', tempname (), 'panels', 'ig_spam', 'verbose', false, 'ig', struct ('expl', struct ('loss', 'shapley_kernel')))
