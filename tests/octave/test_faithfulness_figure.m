## test_faithfulness_figure: the faithfulness-versus-cost figure
## (scripts/faithfulness_figure.m) on the 'tiny' preset of Figure 5, into
## temporary results/figures folders (figure5 runs first, since the
## results folder is empty): the files, the table's rows and methods, and
## one row's numbers recomputed from the classifier in the cache.
1;

%!test
%! res = tempname (); fig = tempname ();
%! unwind_protect
%!   lastwarn ('');
%!   warning ('off', 'ee:weakExplainer', 'local');   # (the tiny preset's explainers are weak: not the warning looked for)
%!   R = faithfulness_figure ('tiny', 'results', res, 'figures', fig, 'rows', 3, 'ig_steps', [2 5], ...
%!                            'sv_samples', [1 2], 'noise_samples', 2, 'kernelshap_samples', [1.5 3], ...
%!                            'lime_samples', 2, 'occlusion_window', 2, 'verbose', false);
%!   assert (isempty (strfind (lastwarn (), 'explainer')));    # every panel's explainer found and timed here
%!   ## the figure in three formats, not blank
%!   img = imread (fullfile (fig, 'faithfulness.png'));
%!   assert (ndims (img) == 3 && rows (img) > 600 && columns (img) > 600);
%!   assert (numel (unique (img(:))) > 10);
%!   fid = fopen (fullfile (fig, 'faithfulness.pdf'), 'r'); head = fread (fid, 4, 'char=>char')'; fclose (fid);
%!   assert (head, '%PDF');
%!   assert (! isempty (strfind (fileread (fullfile (fig, 'faithfulness.svg')), '<svg')));
%!   ## the table: per dataset 2 IG, 2 SV, 6 gradient maps (no DeepLIFT on
%!   ## the transformer), feature ablation and occlusion, 2 KernelSHAP, 1
%!   ## LIME, the Empirical Explainer of each of its panels (wordnet: IG and
%!   ## SV) and a random map
%!   fid = fopen (fullfile (fig, 'faithfulness.csv'), 'r');
%!   hdr = fgetl (fid);
%!   c = textscan (fid, ['%s %s %s' repmat(' %f', 1, 8)], 'delimiter', ',');
%!   fclose (fid);
%!   assert (hdr, ['dataset,method,family,s,n_rows,passes_per_explanation,seconds_per_explanation,' ...
%!                 'comprehensiveness,sufficiency,deletion_auc,insertion_auc']);
%!   ds = {'spam', 'wordnet', 'fortunes'};
%!   nexp = [1 2 1];
%!   assert (numel (c{1}), sum (16 + nexp));
%!   assert (sort (unique (c{1})), sort (ds'));
%!   for k = 1:3
%!     J = strcmp (c{1}, ds{k});
%!     assert (sum (strcmp (c{3}(J), 'explainer')), nexp(k));
%!     assert (sum (strcmp (c{3}(J), 'ig')), 2);
%!     assert (sum (strcmp (c{3}(J), 'sv')), 2);
%!     assert (sum (strcmp (c{3}(J), 'gradient')), 6);
%!     assert (sum (strcmp (c{3}(J), 'occlusion')), 2);
%!     assert (sum (strcmp (c{3}(J), 'kernelshap')), 2);
%!     assert (sum (strcmp (c{3}(J), 'lime')), 1);
%!     assert (sum (strcmp (c{3}(J), 'random')), 1);
%!   end
%!   assert (all (c{5} == 3));
%!   rnd = strcmp (c{3}, 'random');
%!   assert (all (c{7}(! rnd) > 0) && all (c{7}(rnd) == 0));    # every method timed; the random map free
%!   assert (all (c{6}(! rnd) >= 1));
%!   for col = 8:11
%!     assert (all (isfinite (c{col})));
%!   end
%!   assert (all (c{10} >= 0 & c{10} <= 1 & c{11} >= 0 & c{11} <= 1));   # areas of probabilities
%!   ## IG at s = 5 on spam from outside: its passes and its numbers
%!   z = load (fullfile (res, 'figure5.mat'));
%!   p = z.R.panels(strcmp ({z.R.panels.dataset}, 'spam'));
%!   k = load (fullfile (res, 'spam', ['classifier_' p(1).keys.classifier '.mat']));
%!   X = p(1).X(1:3, :);
%!   [A, info] = ee_ig (k.v.model, X, 'steps', 5, 'verbose', false);
%!   F = ee_faithfulness (k.v.model, X, A, 'verbose', false);
%!   j = find (strcmp (c{1}, 'spam') & strcmp (c{2}, 'IG s=5'));
%!   assert (c{6}(j), info.passes / 3, -1e-5);
%!   assert (c{8}(j), mean (F.comprehensiveness), -1e-5);
%!   assert (c{9}(j), mean (F.sufficiency), -1e-5);
%!   assert (c{10}(j), mean (F.deletion_auc), -1e-5);
%!   ## KernelSHAP at m = 1.5 and occlusion of 2-token windows on spam from
%!   ## outside: a row at a time, max(ceil(1.5 n), n + 16) coalitions
%!   A = zeros (size (X), 'single'); passes = 0;
%!   for i = 1:3
%!     n = sum (X(i,:) != 1 & X(i,:) != 3 & X(i,:) != 4);
%!     [A(i,:), q] = ee_sv (k.v.model, X, 'rows', i, 'method', 'kernelshap', 'samples', max (ceil (1.5 * n), n + 16), ...
%!                          'seed', 1, 'verbose', false);
%!     passes += q.passes;
%!   end
%!   F = ee_faithfulness (k.v.model, X, A, 'verbose', false);
%!   j = find (strcmp (c{1}, 'spam') & strcmp (c{2}, 'KernelSHAP m=1.5'));
%!   assert (c{4}(j), 1.5);
%!   assert (c{6}(j), passes / 3, -1e-5);
%!   assert (c{8}(j), mean (F.comprehensiveness), -1e-5);
%!   assert (c{10}(j), mean (F.deletion_auc), -1e-5);
%!   F = ee_faithfulness (k.v.model, X, ee_occlusion (k.v.model, X, 'window', 2, 'verbose', false), 'verbose', false);
%!   j = find (strcmp (c{1}, 'spam') & strcmp (c{2}, 'occlusion w=2'));
%!   assert (c{9}(j), mean (F.sufficiency), -1e-5);
%!   ## the Empirical Explainer's row: the cached model found and timed
%!   ## here gives the figure5 run's maps (and so its numbers)
%!   j = find (strcmp (c{1}, 'spam') & strcmp (c{3}, 'explainer'));
%!   E = ee_faithfulness (k.v.model, X, p(1).empirical(1:3, :), 'verbose', false);
%!   assert (c{8}(j), mean (E.comprehensiveness), -1e-5);
%!   assert (c{10}(j), mean (E.deletion_auc), -1e-5);
%!   assert (numel (R.rows), numel (c{1}));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (res, 'dir')) rmdir (res, 's'); end
%!   if (exist (fig, 'dir')) rmdir (fig, 's'); end
%! end_unwind_protect

%!error <unknown option> faithfulness_figure ('tiny', 'nosuch', 1)
%!error <'rows'> faithfulness_figure ('tiny', 'rows', 0)
%!error <'kernelshap_samples'> faithfulness_figure ('tiny', 'kernelshap_samples', -1)
%!error <'lime_samples'> faithfulness_figure ('tiny', 'lime_samples', 'auto')
%!error <'occlusion_window'> faithfulness_figure ('tiny', 'occlusion_window', 1.5)
