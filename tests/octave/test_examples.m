## test_examples: runs the worked examples of scripts/examples and checks
## what each one claims (closed forms, convergence) and that its figure
## files are written (where this machine can draw them: ee_check_graphics).
1;

%!function r = run_example (name)
%!  ## runs scripts/examples/NAME into a temporary folder and, where this
%!  ## machine can draw, checks its two figure files; the folder goes after
%!  root = fileparts (fileparts (which ('ee_sv')));
%!  addpath (fullfile (root, 'scripts', 'examples'));
%!  outdir = tempname ();
%!  unwind_protect
%!    draw = ee_check_graphics ();
%!    r = feval (name, outdir, 'figure', draw);
%!    if (draw)
%!      assert (numel (r.files), 2);
%!      for k = 1:2
%!        d = dir (r.files{k});
%!        assert (numel (d) == 1, '%s was not written', r.files{k});
%!        assert (d.bytes > 1000, '%s is %d bytes', r.files{k}, d.bytes);
%!      end
%!    end
%!  unwind_protect_cleanup
%!    confirm_recursive_rmdir (false, 'local');
%!    if (exist (outdir, 'dir')) rmdir (outdir, 's'); end
%!  end_unwind_protect
%!endfunction

%!test
%! r = run_example ('shapley_formulas');
%! assert (r.linear_error < 1e-12, 'linear model: %g from the closed form', r.linear_error);
%! assert (r.interaction_error < 1e-12, 'interaction: %g from the closed form', r.interaction_error);
%! assert (r.efficiency_error < 1e-12);
%! ## the error falls with the permutations, as 1/s within sampling noise
%! assert (all (diff (r.mse) < 0), sprintf ('%g ', r.mse));
%! assert (r.mse(end) < r.mse(1) / 20);
%! assert (r.mse, r.predicted, 0.5 * r.predicted);

%!test
%! r = run_example ('perturbation_methods');
%! ## a linear model: every method w .* (x - mean (background))
%! assert (numel (r.linear_error), 5);
%! assert (all (r.linear_error < 1e-12), sprintf ('%g ', r.linear_error));
%! ## the interaction: KernelSHAP (all coalitions) and expected gradients
%! ## split it as Shapley does, occlusion counts it twice
%! assert (all (r.interaction_error < 1e-12), sprintf ('%g ', r.interaction_error));
%! assert (r.occlusion_delta > 1);
%! ## the error falls with the coalitions; antithetic pairs lower it
%! assert (all (diff (r.mse_kernelshap) < 0), sprintf ('%g ', r.mse_kernelshap));
%! assert (all (diff (r.mse_kernelshap_paired) < 0), sprintf ('%g ', r.mse_kernelshap_paired));
%! assert (r.mse_kernelshap(end) < r.mse_kernelshap(1) / 5);
%! assert (all (r.mse_kernelshap_paired < r.mse_kernelshap));
%! assert (all (diff (r.mse_sampling) < 0), sprintf ('%g ', r.mse_sampling));

%!test
%! r = run_example ('gradients_vs_shapley');
%! ## x1^2 x2 at (2, 3): IG 2 : 1 along the path, Shapley values equal
%! assert (r.ig, [8 4], 1e-12);
%! assert (r.sv, [6 6], 1e-12);
%! ## the step: gradients see nothing of it, Shapley values see all
%! assert (r.step_ig, [0 1], 1e-12);
%! assert (r.step_ig_delta, -2, 1e-12);
%! assert (r.step_fd20, [0 1], 1e-6);
%! assert (r.step_fd21(1) > 100);
%! assert (r.step_sv, [2 1], 1e-12);
%! assert (r.step_sv_sampled, [2 1], 1e-12);

%!test
%! ## an image classifier in a handle, 4 x 4 patches as players (needs
%! ## datasets/fashion.mat, as test_fashion does)
%! r = run_example ('fashion_patches');
%! assert (r.accuracy > 0.75, 'accuracy %.3f', r.accuracy);
%! assert (size (r.sv), [4 784]);
%! assert (size (r.players), [4 49]);
%! ## each pixel carries its patch's value / 16, and the patches sum to f(x) - f(blank)
%! [j, i] = meshgrid (1:28, 1:28);
%! g = reshape ((ceil (i / 4) - 1) * 7 + ceil (j / 4), 1, []);
%! assert (r.sv, r.players(:, g) / 16, 1e-12);
%! assert (max (abs (r.delta)) < 1e-9);
%! assert (r.passes, 4 + 4 * (1 + 20 * 48));
%! ## the model's own IG, summed per patch, ranks the patches alike
%! assert (all (r.agreement > 0.8), sprintf ('%.3f ', r.agreement));
%! ## its Empirical Explainer: 49 patch values per image, spread as ee_sv's;
%! ## on held-out images closer to the reference than a map of zeros (measured:
%! ## about a third of the zero map's error), and the crossing is where SV's
%! ## error first reaches the explainer's
%! assert (size (r.expl_players), [4 49]);
%! assert (r.expl_sv, r.expl_players(:, g) / 16, 1e-12);
%! assert (r.expl.explains.method, 'sv');
%! assert (r.expl_mse < 0.6 * r.zero_mse, sprintf ('explainer %.4g, zero map %.4g', r.expl_mse, r.zero_mse));
%! assert (all (diff (r.sv_mse) < 0), sprintf ('%.4g ', r.sv_mse));
%! k = find (r.sv_mse <= r.expl_mse, 1);
%! if (isempty (k)) assert (r.crossing, Inf); else assert (r.crossing, r.sv_samples(k)); end

