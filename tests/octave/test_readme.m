## test_readme: the README's Octave examples run as written, so that they
## cannot rot.  Every ```octave block of README.md runs, in order, in one
## workspace, from a temporary folder that links to the tree's mex/,
## scripts/ and datasets/ (the examples' relative paths), so that the files
## they write land there.  Needs the datasets (datasets/build.sh).

%!function readme_run (blocks)
%!  ## one workspace for all blocks: later examples continue earlier ones
%!  for k = 1:numel (blocks)
%!    try
%!      evalc (blocks{k});
%!    catch err
%!      error ('README example %d failed: %s', k, err.message);
%!    end
%!  end
%!  ## what the examples promise
%!  assert (acc > 0.9, 'test accuracy %.3f', acc);
%!  assert (size (S), [2 256]);
%!  assert (size (E), [numel(te) 256]);
%!  ## IG's map is more faithful than a random one (issue 20)
%!  assert (mean (Fig.comprehensiveness) > mean (Frn.comprehensiveness));
%!  assert (size (Fsg.deletion_auc), [20 1]);
%!  ## a useful explainer (issue 8): 10x closer to IG than the all-zero map
%!  assert (fit >= 10, 'the README explainer is only %.1fx better than a zero map', fit);
%!  assert (size (A), [2 256]);                         # "Your own text"
%!  assert (iscellstr (labels) && numel (labels) == 2);
%!  assert (labels{1}, 'spam');
%!  assert (all (abs (ig.delta) < 1e-2 * max (1, abs (ig.fx - ig.fbaseline))));
%!  assert (words{1}{2}, 'Congratulations');
%!  assert (r.class, 'spam');
%!  assert (exist ('my_sentence.png', 'file') == 2);
%!  ## "Any model, through a function handle": the closed forms its comments give
%!  assert (phi, [4 1 0.5; 0 0 0], 1e-12);
%!  assert (g, [8 4], 1e-3);
%!  assert (lm, [4 1 0.5; 0 0 0], 1e-6);
%!endfunction

%!test
%! root = fileparts (fileparts (fileparts (which ('test_readme'))));
%! txt = fileread (fullfile (root, 'README.md'));
%! blocks = regexp (txt, '```octave\n(.*?)```', 'tokens');
%! blocks = cellfun (@(c) c{1}, blocks, 'uniformoutput', false);
%! assert (numel (blocks) >= 2);
%! d = tempname ();
%! mkdir (d);
%! links = {'mex', 'scripts', 'datasets'};
%! for k = 1:numel (links)
%!   symlink (fullfile (root, links{k}), fullfile (d, links{k}));
%! end
%! old = cd (d);
%! p = path ();
%! unwind_protect
%!   readme_run (blocks);
%! unwind_protect_cleanup
%!   cd (old);
%!   path (p);
%!   ## the links first (a recursive rmdir must not follow them)
%!   for k = 1:numel (links)
%!     unlink (fullfile (d, links{k}));
%!   end
%!   confirm_recursive_rmdir (false, 'local');
%!   rmdir (d, 's');
%! end_unwind_protect
