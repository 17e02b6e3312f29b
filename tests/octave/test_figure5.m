## test_figure5: a smoke run of the Figure 5 pipeline (scripts/figure5.m)
## with the 'tiny' preset into temporary results/figures folders, then a
## second run that must come entirely from the cache with the same numbers.
1;

%!function check_outputs (fig, R)
%!  ## the figure in three formats
%!  img = imread (fullfile (fig, 'figure5.png'));
%!  assert (ndims (img) == 3 && size (img, 3) == 3);
%!  assert (rows (img) > 300 && columns (img) > 600);
%!  assert (numel (unique (img(:))) > 10);          # not a blank picture
%!  fid = fopen (fullfile (fig, 'figure5.pdf'), 'r'); head = fread (fid, 4, 'char=>char')'; fclose (fid);
%!  assert (head, '%PDF');
%!  svg = fileread (fullfile (fig, 'figure5.svg'));
%!  assert (! isempty (strfind (svg, '<svg')));
%!  ## the numbers
%!  fid = fopen (fullfile (fig, 'figure5.csv'), 'r');
%!  hdr = fgetl (fid);
%!  c = textscan (fid, '%s %s %f %f %f %f %f %f %f %f %f %f %f %f', 'delimiter', ',');
%!  fclose (fid);
%!  want = 'panel,dataset,s,passes,expensive_mse,explainer_mse';
%!  assert (strncmp (hdr, want, numel (want)));
%!  S = R.panels(1).S;
%!  assert (numel (c{1}), 2 * S);
%!  assert (c{1}(1:S), repmat ({'ig'}, S, 1));
%!  assert (c{1}(S+1:end), repmat ({'sv'}, S, 1));
%!  assert (c{3}, [1:S 1:S]');
%!  assert (c{5}([S 2*S]), [0; 0]);                 # s = S reproduces the target
%!  assert (all (c{5} >= 0) && all (c{6} > 0));
%!  assert (c{5}(1:S), R.panels(1).curve.curve', 1e-9 * max (c{5}(1:S)) + eps);
%!  assert (c{4}(1:S), 2 * (1:S)' + 2);             # IG passes per explanation
%!  ## heatmaps and their HTML pages
%!  for ds = {'spam', 'fortunes'}
%!    h = imread (fullfile (fig, sprintf ('heatmap_%s_1.png', ds{1})));
%!    assert (size (h, 3), 3);
%!    r = h(:, :, 1); b = h(:, :, 3);
%!    assert (any (r(:) > 200 & b(:) < 150));        # some red token background
%!    html = fileread (fullfile (fig, sprintf ('heatmaps_%s.html', ds{1})));
%!    assert (! isempty (strfind (html, '<span style="background:rgb(')));
%!    assert (! isempty (strfind (html, '[CLS]')));
%!    assert (isempty (strfind (html, '[PAD]')));     # pads are not shown
%!    assert (numel (strfind (html, 'class="seq"')), rows (R.panels(strcmp ({R.panels.dataset}, ds{1})).X));
%!  end
%!  txt = fileread (fullfile (fig, 'runtime_tiny.txt'));
%!  assert (! isempty (strfind (txt, 'break-even')));
%!  assert (! isempty (strfind (txt, 'IG on spam')) && ! isempty (strfind (txt, 'SV on fortunes')));
%!endfunction

%!test
%! res = tempname (); fig = tempname ();
%! unwind_protect
%!   R1 = figure5 ('tiny', 'results', res, 'figures', fig, 'verbose', false);
%!   check_outputs (fig, R1);
%!   for k = 1:2
%!     assert (! any (cell2mat (struct2cell (R1.panels(k).cache_hits))));
%!     C = R1.panels(k).curve;
%!     assert (all (C.mse(:, end) == 0));
%!     assert (isfinite (C.explainer_curve));
%!   end
%!   assert (exist (fullfile (res, 'figure5.mat'), 'file') == 2);
%!   ## the second run: everything from the cache, the same numbers
%!   delete (fullfile (fig, 'figure5.png'));
%!   R2 = figure5 ('tiny', 'results', res, 'figures', fig, 'verbose', false);
%!   check_outputs (fig, R2);
%!   for k = 1:2
%!     assert (all (cell2mat (struct2cell (R2.panels(k).cache_hits))));
%!     assert (R2.panels(k).curve.mse, R1.panels(k).curve.mse);
%!     assert (R2.panels(k).curve.explainer_mse, R1.panels(k).curve.explainer_mse);
%!     assert (R2.panels(k).keys, R1.panels(k).keys);
%!   end
%!   assert (R2.compute_seconds < R1.compute_seconds);
%!   ## a changed explainer setting recomputes only the explainer
%!   R3 = figure5 ('tiny', 'results', res, 'figures', fig, 'verbose', false, 'panels', 'sv', ...
%!                 'sv', struct ('expl', struct ('epochs', 1)));
%!   h = R3.panels(1).cache_hits;
%!   assert ([h.classifier h.targets_train h.targets_valid h.targets_test h.curve], true (1, 5));
%!   assert (h.explainer, false);
%!   assert (R3.panels(1).curve.mse, R1.panels(2).curve.mse);
%!   ## a changed classifier setting recomputes everything downstream
%!   R4 = figure5 ('tiny', 'results', res, 'figures', fig, 'verbose', false, 'panels', 'sv', ...
%!                 'sv', struct ('clf', struct ('epochs', 1)));
%!   assert (! any (cell2mat (struct2cell (R4.panels(1).cache_hits))));
%!   assert (R3.panels(1).keys.targets, R1.panels(2).keys.targets);
%!   assert (! strcmp (R3.panels(1).keys.explainer, R1.panels(2).keys.explainer));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (res, 'dir')) rmdir (res, 's'); end
%!   if (exist (fig, 'dir')) rmdir (fig, 's'); end
%! end_unwind_protect

%!error <unknown preset> figure5 ('huge', 'results', tempname (), 'figures', tempname ())
%!error <unknown option> figure5 ('tiny', 'nosuch', 1)
