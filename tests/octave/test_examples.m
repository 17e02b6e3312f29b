## test_examples: runs the worked examples of scripts/examples and checks
## what each one claims (closed forms, convergence) and that its figure
## files are written (where this machine can draw them: ee_check_graphics).
1;

%!function d = dir_info (f)
%!  d = dir (f);
%!  assert (numel (d) == 1, '%s was not written', f);
%!endfunction

%!test
%! root = fileparts (fileparts (which ('ee_sv')));
%! addpath (fullfile (root, 'scripts', 'examples'));
%! outdir = tempname ();
%! unwind_protect
%!   draw = ee_check_graphics ();
%!   r = shapley_formulas (outdir, 'figure', draw);
%!   assert (r.linear_error < 1e-12, 'linear model: %g from the closed form', r.linear_error);
%!   assert (r.interaction_error < 1e-12, 'interaction: %g from the closed form', r.interaction_error);
%!   assert (r.efficiency_error < 1e-12);
%!   ## the error falls with the permutations, as 1/s within sampling noise
%!   assert (all (diff (r.mse) < 0), sprintf ('%g ', r.mse));
%!   assert (r.mse(end) < r.mse(1) / 20);
%!   assert (r.mse, r.predicted, 0.5 * r.predicted);
%!   if (draw)
%!     assert (numel (r.files), 2);
%!     for k = 1:2
%!       d = dir_info (r.files{k});
%!       assert (d.bytes > 1000, '%s is %d bytes', r.files{k}, d.bytes);
%!     end
%!   end
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, 'local');
%!   if (exist (outdir, 'dir')) rmdir (outdir, 's'); end
%! end_unwind_protect
