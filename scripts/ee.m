## -*- texinfo -*-
## @deftypefn {} {} ee
## Empirical Explainers for GNU Octave: the functions by task.  Each has
## its own help (@code{help ee_train}); the README and doc/ have the
## tutorials and the reference.
##
## @strong{Classifiers (text, feature vectors)}
## @table @code
## @item ee_train
## train a transformer, cnn or mlp classifier (and explainers, below)
## @item ee_predict
## classify rows; logits
## @item ee_vocab, ee_tokenize, ee_detokenize
## a vocabulary from texts, texts to token ids and back (the datasets' rule)
## @end table
##
## @strong{Attributions (built-in models and any model as a function handle)}
## @table @code
## @item ee_ig
## Integrated Gradients (Gauss-Legendre or Riemann rules), X-Gradient
## @item ee_sv
## Shapley Value Sampling, exact Shapley values, KernelSHAP
## @item ee_gradient
## saliency, gradient x input, DeepLIFT, SmoothGrad, VarGrad, GradientSHAP
## @item ee_occlusion, ee_lime
## leave-one-out occlusion (windows, strides); LIME
## @item ee_faithfulness
## deletion and insertion curves, AOPC, infidelity of attribution maps
## @end table
##
## @strong{Empirical Explainers}
## @table @code
## @item ee_train (clf, X, A | 'ig' | 'sv' | METHOD)
## an explainer of a classifier's maps; @code{ee_train (@@f, X, 'sv')} of a handle
## @item ee_explain
## the maps of an explainer in one pass (and how to read its check)
## @item ee_targets
## an explainer's training targets for many rows, in resumable chunks
## @item ee_convergence, ee_speedup
## the expensive explainer's MSE over s against its target; the equal-accuracy speed-up
## @item ee_agreement, ee_quartiles
## Spearman and top-k agreement of two maps; per-column quartiles
## @end table
##
## @strong{Figures and files}
## @table @code
## @item ee_plot_text
## explain one text of your own and draw it, in one call
## @item ee_heatmap, ee_heatmap_html
## a heatmap of one row (PDF/SVG/PNG); an HTML page of many rows
## @item ee_save_figure, ee_draw_figure, ee_check_graphics
## publication figures (vector PDF, SVG, 300 dpi PNG) and the check that the machine can write them
## @item ee_atomic_save, ee_atomic_text, ee_cache_key, ee_options, ee_explainer_fn_options
## files written atomically, cache keys, option merging
## @end table
##
## @strong{The paper's figures} (@file{scripts/paper}, on the path by
## @code{addpath}; the README says how)
## @table @code
## @item figure5, main_job
## Figure 5 (convergence curves, heatmaps, speed-up) on the project's or your own data
## @item faithfulness_figure, explainer_study, occlusion_reference
## faithfulness against cost; the measurements behind the explainer's design
## @item xdnn_figures, xdnn_prior
## the X-DNN paper's evidence and its attribution prior
## @end table
## @seealso{ee_train, ee_explain, ee_ig, ee_sv, figure5}
## @end deftypefn

## (help text only: calling ee prints it)
function ee ()
  help ('ee');
end

%!test
%! ## every function named in the overview exists
%! txt = evalc ('help ee');
%! names = regexp (txt, '\<(ee_[a-z_]+|figure5|main_job|faithfulness_figure|explainer_study|occlusion_reference|xdnn_figures|xdnn_prior)\>', 'match');
%! names = unique (names);
%! root = fileparts (fileparts (which ('ee')));
%! paper = {'figure5', 'main_job', 'faithfulness_figure', 'explainer_study', 'occlusion_reference', 'xdnn_figures', 'xdnn_prior'};
%! if (exist (fullfile (root, 'scripts', 'paper'), 'dir'))
%!   addpath (fullfile (root, 'scripts', 'paper'));
%! else                             # (the Octave package ships the toolbox, not the paper's scripts)
%!   names = setdiff (names, paper);
%! end
%! missing = names(! cellfun (@(n) any (exist (n) == [2 3]), names));
%! assert (isempty (missing), strjoin (missing, ', '));
%! assert (numel (names) >= 25);
