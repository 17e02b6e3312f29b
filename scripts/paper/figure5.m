## -*- texinfo -*-
## @deftypefn  {} {@var{R} =} figure5 ()
## @deftypefnx {} {@var{R} =} figure5 (@var{preset})
## @deftypefnx {} {@var{R} =} figure5 (@var{preset}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {@var{R} =} figure5 (@var{name}, @var{value}, @dots{})
## Reproduce Figure 5 of "Efficient Explanations from Empirical Explainers".
##
## Four panels, as in the paper: Integrated Gradients on
## @file{datasets/spam.mat} and @file{datasets/wordnet.mat}, Shapley Value
## Sampling on @file{datasets/fortunes.mat} and @file{datasets/wordnet.mat}.
## For each it trains the classifier, generates the expensive target maps
## (s = 20) for subsets of the train/valid/test splits and of the
## unlabelled rows, trains the Empirical Explainer on them, computes the
## convergence curve of the expensive explainer on the test subset
## (@code{ee_convergence}), the floor (the expected MSE of the exact
## attributions against the 20-sample target) and the agreement of every
## map with the target (Spearman, top-5 overlap), and writes into the
## figures folder: @file{figure5.png}, @file{.pdf}, @file{.svg},
## @file{figure5.csv}, heatmaps @file{heatmap_<panel>_<k>.png},
## @file{heatmaps_<panel>.html} and the runtime report
## @file{runtime_<preset>.txt}.  Everything computed is cached under the
## results folder, keyed by the settings it depends on, so an interrupted
## run resumes.
##
## Presets: @qcode{'default'} (15-30 minutes on 2 idle cores, by processor), @qcode{'tiny'}
## (seconds, the smoke test), @qcode{'full'} (every row; hours).  See
## doc/FIGURE5.md for the sizes and the measurements behind them.
##
## Options (name/value):
## @table @asis
## @item 'preset'
## as above.
## @item 'data_ig', 'data_sv'
## a .mat file in the layout of datasets/*.mat: the IG (SV) panels become
## one panel on it.  Results and figures then go to
## @file{results/<data>/<preset>} and @file{figures/<data>} unless
## @qcode{'results'} / @qcode{'figures'} say otherwise; the project's own
## outputs are never touched.
## @item 'panels'
## the panels to run, by name (@qcode{'ig_spam'}, @qcode{'ig_wordnet'},
## @qcode{'sv_fortunes'}, @qcode{'sv_wordnet'}) or method (@qcode{'ig'},
## @qcode{'sv'}); only their data files must exist.  A panel of another
## method with a sample count is named @qcode{'METHOD_DATASET'} (e.g.
## @qcode{'kernelshap_fortunes'}, @qcode{'smoothgrad_spam'}; DATASET one
## of the run's datasets), or by its method alone for one panel on each
## dataset; METHOD is @qcode{'kernelshap'} or @qcode{'lime'} (s x
## @code{coalitions} coalitions per row, default T, the row width),
## @qcode{'smoothgrad'}, @qcode{'smoothgrad_sq'}, @qcode{'vargrad'} (s
## noise samples of @code{ee_gradient}'s saliency, @code{stdev} 0.15) or
## @qcode{'gradientshap'} (s samples; @code{background}, default the
## panel's first 8 training rows).  Such a panel copies the settings of
## the preset's panel on that dataset (of its SV panel for KernelSHAP and
## LIME, of its IG panel for the others, where the dataset has both) and
## shares its classifier; its targets are the method at s = S (seed 1),
## its curve is @code{ee_convergence} in the method's own sample count,
## its floor half the MSE of a second run at S (another seed) against the
## target, and its explainer trains on the method's maps (without the
## efficiency projection but for KernelSHAP, whose maps sum to f(x) -
## f(baseline)); figure5.csv and figure5_summary.csv get its rows, with
## the crossing and the equal-accuracy speed-up.  Its settings take
## overrides by its name or method, as the others (e.g.
## @code{'kernelshap_fortunes', struct ('coalitions', 128)}).  The
## deterministic methods get panels the same way: @qcode{'saliency'},
## @qcode{'saliency_abs'}, @qcode{'saliency_l2'}, @qcode{'gradxinput'}
## (@code{ee_gradient}), @qcode{'occlusion'} (@code{ee_occlusion}, window
## 1, stride 1; the settings of the SV panel on its dataset) and
## @qcode{'deeplift'} (@code{ee_gradient}; only with @code{'kind'}
## @qcode{'cnn'}: DeepLIFT is not defined on the transformer,
## @code{ee:notSupported}).  One run is their exact value, so such a panel
## has no curve and no floor: its targets are the method's maps, drawn as
## the method's cost (wall seconds and passes per explanation, MSE 0)
## beside the explainer's MSE and cost, with the target's mean square (the
## MSE of a map of zeros) as the scale; its summary row has the
## explainer's MSE, crossing NaN (not applicable), lower_bound 0 and the
## speed ratio of the method's cost to the explainer's (not at equal
## accuracy).  Its explainer reads the token ids only (one pass: an
## explainer reading the gradient or the occlusion scores would cost what
## the method costs) unless its overrides set @code{expl.inputs}.
## @item 'kind'
## classifier kind, @qcode{'transformer'} (default) or @qcode{'cnn'} (the
## explainer is then built on a transformer backbone trained on the same
## data, reads the tokens only and trains on SV maps: the target-free loss
## needs the classifier as its backbone).
## @item 'head', 'inputs', 'ensemble'
## the explainer's head (@qcode{'token'}, @qcode{'flat'}: the paper's),
## inputs (@qcode{'gradient'}, @qcode{'tokens'}: the paper's,
## @qcode{'gradient_vector'}, @qcode{'gradient_ends'}, @qcode{'occlusion'},
## @qcode{'path'}, @qcode{'attention'}, @qcode{'attention_top'}) and ensemble size, for every panel
## (the presets: @qcode{'tokens'} on IG spam, @qcode{'attention_top'} on
## IG wordnet and, with the Shapley-kernel loss, on the SV panels).
## @item 'ig', 'sv', another method, or a panel name
## a struct of overrides merged into the settings of every panel of that
## method or of that panel (e.g. @code{struct ('n_train', 800, 'expl', struct
## ('epochs', 40))}).  @code{expl.distill} (a struct: @code{rows},
## @code{inputs}, @code{epochs}, @code{freeze}, @code{lr}) distils the
## panel's explainer into a student with cheaper inputs: the explainer
## labels up to @code{rows} further rows of the domain (training rows and
## unlabelled text without expensive targets) and the student, trained on
## those maps and the panel's own targets, becomes the panel's explainer.
## @code{expl.loss} @qcode{'shapley_kernel'} (SV panels of a transformer)
## trains the panel's explainer without targets for its training and
## unlabelled rows, on the classifier's values of @code{expl.coalitions}
## (default 32) Shapley-kernel coalitions per row (@code{ee_train}'s
## @qcode{'loss'}); the validation rows keep their SV maps.
## @item 'results', 'figures'
## folders (defaults @file{results/<preset>} and @file{figures}).
## @item 'heatmaps'
## number of heatmap PNGs per panel (default 3).
## @item 'retime'
## true (default): where the curve comes from the cache, the expensive
## explainer is timed again at every s in this run, for the cost figure
## (the crossing's time is always measured in this run); false takes the
## curve's own times, measured when it was computed (the generalization
## suite, which reads only the crossing's).
## @item 'verbose'
## progress lines (default true).
## @item 'model'
## a panel on a model given as a function handle, in place of the preset's
## panels: a struct with fields @code{f} (the handle, as for
## @code{ee_sv (@@f, @dots{})}), @code{X} (the N x F rows to explain),
## and optionally @code{explainer} (its Empirical Explainer, from
## @code{ee_train (@@f, @dots{})}: its players and absent values are
## used), @code{method} (@qcode{'sv'}, default, @qcode{'ig'},
## @qcode{'kernelshap'} or @qcode{'lime'}: the curve in its own sample count, s x
## @code{coalitions} coalitions per row, default 16; an s too small to
## determine every row's values is left out; its floor is half the MSE of
## a second run at S against the target; its explainer from
## @code{ee_train (@@f, X, 'kernelshap', @dots{})} or on LIME's maps), @code{S}
## (default 20), @code{seed}, @code{options} (further options of
## @code{ee_sv} / @code{ee_ig}), @code{name} (default @qcode{'model'}),
## @code{title} and @code{notes} (a cell of lines under the panel).  It
## draws the curve of the method against its samples, the explainer's
## line and the floor, as the other panels, into @file{figure5.png},
## @file{.pdf}, @file{.svg} of @qcode{'figures'} (default
## @file{figures/<name>}); nothing is cached and no other file is written.
## @var{R} then has @code{panels} (its curve in @code{panels.curve}) and
## @code{files}.  @file{scripts/examples/fashion_patches.m} draws one.
## @end table
##
## Besides Figure 5 it writes the cost-accuracy figure
## (@file{figure5_cost.png}, @file{.pdf}, @file{.svg}: MSE over wall
## seconds per explanation) and @file{figure5_summary.csv}, one row per
## panel with the equal-accuracy speed-up (@code{ee_speedup}: the expensive
## explainer's wall time per explanation at the smallest s that is as
## accurate as the Empirical Explainer, over the explainer's, both the
## median of 3 runs on the test rows in this run, the two explainers'
## runs alternating; ">" when there is no
## crossing before S; a deterministic method's panel: crossing NaN, the
## plain speed ratio), in passes too, and the break-even.
##
## @var{R} holds the settings, per panel the curves, floor, agreement,
## crossing points, speed-up (@code{R.panels(k).speedup}), runtime report
## and cache keys, @code{R.summary} (the rows of figure5_summary.csv) and
## the written files.
## @seealso{ee_convergence, ee_heatmap, ee_heatmap_html, main_job}
## @end deftypefn

function R = figure5 (varargin)
  t_start = tic ();
  root = fileparts (fileparts (fileparts (mfilename ('fullpath'))));   # the checkout: scripts/paper/ is two below it
  addpath (fullfile (root, 'mex'), fullfile (root, 'scripts'));   # the gateways and the toolbox
  P = settings_from_args (root, varargin);
  if (! isempty (P.model))
    ## a panel on a function handle (private/f5_fn_panel.m), drawn alone
    p = f5_fn_panel (P.model, P.verbose);
    R = struct ('preset', 'model', 'settings', P, 'panels', p, 'files', {f5_figure(P, p)});
    R.seconds = toc (t_start);
    say (P, '== figure5 (%s) done in %.1f s; figure: %s\n', p.name, R.seconds, R.files{1});
    return;
  end
  say (P, '== figure5: preset ''%s'', panels %s, results in %s, figures in %s\n', P.preset, ...
          strjoin ({P.panels.name}, ', '), P.results, P.figures);
  ensure_dir (P.results);
  ensure_dir (P.figures);
  if (exist ('ee_check_graphics', 'file'))
    ee_check_graphics ();          # before hours of work, not after
  end

  R = struct ('preset', P.preset, 'settings', P, 'panels', struct ([]), 'files', {{}});
  for k = 1:numel (P.panels)
    S = f5_panel (P, P.panels(k));
    if (isempty (R.panels))
      R.panels = S;
    else
      R.panels(end+1) = S;
    end
  end

  R.compute_seconds = toc (t_start);
  files = f5_figure (P, R.panels);
  files = [files, f5_cost_figure(P, R.panels)];
  files{end+1} = f5_write_csv (P, R.panels);
  files{end+1} = f5_write_summary (P, R.panels);
  R.summary = summary_of (R.panels);
  [txt, f] = f5_write_runtime (P, R.panels);
  files{end+1} = f;
  R.runtime_text = txt;
  for k = 1:numel (R.panels)
    files = [files, f5_heatmaps(P, R.panels(k))];
  end
  R.files = files;
  R.seconds = toc (t_start);
  ee_atomic_save (fullfile (P.results, 'figure5.mat'), struct ('R', R));
  say (P, '\nruntime report: %s\n', f);
  for k = 1:numel (R.panels)
    p = R.panels(k); C = p.curve;
    if (p.exact)
      say (P, '%s: explainer MSE %.4g (%.3g x the target''s mean square; %s is exact: no curve, no floor)\n', ...
              p.name, C.explainer_curve, C.explainer_curve / C.target_mean_square, p.label);
      say (P, '%s: %s\n', p.name, p.speedup.text);
      continue;
    end
    say (P, '%s: explainer MSE %.4g (%.2f x floor); expensive MSE at s = 1, 2, 5, 10: %s; crossing s = %s\n', ...
            p.name, C.explainer_curve, C.explainer_curve / C.floor, ...
            sprintf ('%.4g ', C.curve([1 2 5 10](p.S > [1 2 5 10]))), num2str (C.crossing));
    say (P, '%s: %s\n', p.name, p.speedup.text);
  end
  say (P, '== figure5 done in %.1f s; figure: %s\n', R.seconds, files{1});
end

## One row per panel: the equal-accuracy speed-up and the explainer's
## accuracy (what figure5_summary.csv holds).
function T = summary_of (panels)
  T = struct ([]);
  m = @(v) mean (v(! isnan (v)));
  for k = 1:numel (panels)
    p = panels(k); C = p.curve; R = p.speedup;
    row = struct ('panel', p.name, 'crossing', R.crossing, 'lower_bound', R.bound, ...
                  'explainer_passes', C.explainer_passes, 'explainer_seconds', C.explainer_seconds / p.n.test, ...
                  'expensive_seconds_at_crossing', R.expensive_seconds, 'speedup_time', R.speedup_time, ...
                  'speedup_passes', R.speedup_passes, 'break_even_time', R.break_even_time, ...
                  'break_even_passes', R.break_even_passes, 'explainer_mse', C.explainer_curve, ...
                  'floor', C.floor, 'spearman', m (C.explainer_spearman), 'top5', m (C.explainer_top5));
    if (isempty (T)) T = row; else T(end+1) = row; end
  end
end

## ------------------------------------------------------------------ settings

function P = settings_from_args (root, args)
  preset = 'default';
  if (! isempty (args) && mod (numel (args), 2) == 1)
    preset = args{1};
    args = args(2:end);
  end
  for k = 1:2:numel (args)
    if (ischar (args{k}) && strcmpi (args{k}, 'preset'))
      preset = args{k+1};
    end
  end
  if (! ischar (preset))
    error ('ee:badInput', 'figure5: the preset must be a name');
  end
  P = f5_presets (root, lower (preset));
  P.model = [];
  names = {P.panels.name};
  given = struct ('results', false, 'figures', false);
  user = cell (0, 2);
  overrides = cell (0, 2);
  select = {};
  for k = 1:2:numel (args)
    name = args{k};
    if (! ischar (name))
      error ('ee:badInput', 'figure5: options come in name/value pairs');
    end
    v = args{k+1};
    switch (lower (name))
      case 'preset'
      case {'data_ig', 'data_sv'}
        if (! ischar (v))
          error ('ee:badInput', 'figure5: ''%s'' takes a file name', name);
        end
        user(end+1, :) = {lower(name(end-1:end)), v};
      case 'kind'
        if (! any (strcmp (v, {'transformer', 'cnn'})))
          error ('ee:badInput', 'figure5: ''kind'' must be ''transformer'' or ''cnn''');
        end
        overrides(end+1, :) = {'all', struct('kind', v)};
      case {'head', 'inputs', 'ensemble'}
        overrides(end+1, :) = {'all', struct('expl', struct (lower (name), v))};
      case 'panels'
        if (ischar (v)) v = {v}; end
        if (! iscellstr (v))
          error ('ee:badInput', 'figure5: ''panels'' must list panel names or methods');
        end
        select = v;
      case {'results', 'figures'}
        P.(lower (name)) = v;
        given.(lower (name)) = true;
      case 'heatmaps'
        P.heatmaps = v;
      case 'retime'
        P.retime = logical (v);
      case 'verbose'
        P.verbose = logical (v);
      case 'model'
        P.model = v;
      otherwise
        if (! ((any (strcmpi (name, [names {'ig', 'sv'} other_methods()])) || ! isempty (method_panel (name))) ...
               && isstruct (v)))
          error ('ee:badInput', 'figure5: unknown option ''%s''', name);
        end
        overrides(end+1, :) = {lower(name), v};
    end
  end
  ## the user's data: one panel per method given, in place of the preset's
  for k = 1:rows (user)
    m = user{k, 1};
    at = find (strcmp ({P.panels.method}, m));
    q = P.panels(at(1));
    [~, dn] = fileparts (user{k, 2});
    q.name = [m '_' dn];
    q.data = user{k, 2};
    q.n_unlabelled = Inf * (q.n_unlabelled > 0);
    ## the preset's design where it holds for this data: one map for both
    ## classes ('margin') holds for a binary classifier only
    if (q.expl.margin && exist (q.data, 'file') && data_classes (q.data) != 2)
      q.expl.margin = false;
      if (P.verbose)
        printf ('figure5: %s: %d classes, so the explainer learns the maps of the class predicted (''margin'' is for 2 classes)\n', ...
                q.name, data_classes (q.data));
      end
    end
    P.panels = [P.panels(1:at(1)-1), q, P.panels(setdiff (at(1)+1:numel (P.panels), at))];
    P.user_data = true;
  end
  ## panels of the other methods ('panels', {'kernelshap_fortunes', 'lime'}):
  ## each a copy of a preset panel on that dataset, its method replaced
  if (! isempty (select))
    P.panels = [P.panels, method_panels(P.panels, select)];
  end
  for k = 1:rows (overrides)
    for i = 1:numel (P.panels)
      w = overrides{k, 1};
      if (strcmp (w, 'all') || strcmp (w, P.panels(i).method) || strcmp (w, P.panels(i).name))
        P.panels(i) = merge_struct (P.panels(i), overrides{k, 2});
      end
    end
  end
  if (! isempty (P.model))
    ## the handle's panel replaces the preset's: no data files, and its
    ## figure goes to a folder of its own, never over the project's
    if (! (isstruct (P.model) && isscalar (P.model)) || ! isempty (user) || ! isempty (select))
      error ('ee:badInput', 'figure5: ''model'' is a struct and excludes ''data_ig'', ''data_sv'' and ''panels''');
    end
    P.panels = P.panels([]);
    if (! given.figures)
      nm = 'model';
      if (isfield (P.model, 'name') && ischar (P.model.name) && ! isempty (P.model.name)) nm = P.model.name; end
      P.figures = fullfile (root, 'figures', nm);
    end
  end
  if (! isempty (select))
    names = {P.panels.name};
    ok = ismember (names, select) | ismember ({P.panels.method}, select);
    bad = setdiff (select, [names {'ig', 'sv'} other_methods()]);
    if (! isempty (bad) || ! any (ok))
      error ('ee:badInput', ['figure5: ''panels'' must name panels (%s), methods (%s) or METHOD_DATASET; ' ...
                             'got %s'], strjoin (names, ', '), strjoin ([{'ig', 'sv'} other_methods()], ', '), ...
             strjoin (select, ', '));
    end
    P.panels = P.panels(ok);
  end
  for i = 1:numel (P.panels)
    q = P.panels(i);
    if (strcmp (q.method, 'deeplift') && ! strcmp (q.kind, 'cnn'))
      ## (ee_gradient's DeepLIFT: the rescale rule through ReLUs; the
      ## transformer's softmax attention and LayerNorm have no such rule)
      error ('ee:notSupported', ['figure5: ''panels'': %s: DeepLIFT is not defined on the %s classifier ' ...
                                 '(the cnn and the mlp only; doc/MODELS.md): use ''kind'', ''cnn'''], q.name, q.kind);
    end
    if (! exist (q.data, 'file'))
      error ('ee:badInput', 'figure5: no data file %s (panel %s)', q.data, q.name);
    end
    if (q.expl.margin && data_classes (q.data) != 2)   # (refused before any target is computed)
      error ('ee:badInput', 'figure5: panel %s: ''margin'' explains a binary classifier; %s has %d classes', ...
             q.name, q.data, data_classes (q.data));
    end
    if (strcmp (q.kind, 'cnn') && ! strcmp (q.expl.inputs, 'tokens'))
      ## the explainer is a transformer trained beside the cnn: the gradient
      ## it could read is not the gradient of the classifier explained
      P.panels(i).expl.inputs = 'tokens';
      ## and the target-free loss needs the classifier as its backbone: the
      ## cnn's explainer trains on SV maps
      P.panels(i).expl.loss = 'mse';
      ## a margin explainer takes its signs from its backbone's classes
      ## and margin, which are the transformer's, not the cnn's
      P.panels(i).expl.margin = false;
    end
  end
  ## a run on the user's data goes to folders named after the data
  if (P.user_data)
    dn = cellfun (@(f) fileparts_name (f), user(:, 2), 'uniformoutput', false);
    tag = strjoin (unique (dn), '+');
    if (! given.results) P.results = fullfile (root, 'results', tag, P.preset); end
    if (! given.figures) P.figures = fullfile (root, 'figures', tag); end
  end
end

## The number of classes of a data file in the layout of datasets/*.mat
## (its class names, else its largest label)
function n = data_classes (file)
  w = whos ('-file', file);
  if (any (strcmp ({w.name}, 'classes')))
    d = load (file, 'classes');
    n = numel (d.classes);
  else
    d = load (file, 'labels');
    n = double (max (d.labels(:)));
  end
end

## The methods with a sample count besides IG and SV: figure5 draws their
## convergence in that count (private/f5_method.m)
function m = sampled_methods ()
  m = {'kernelshap', 'lime', 'smoothgrad', 'smoothgrad_sq', 'vargrad', 'gradientshap'};
end

## The deterministic methods: one run is exact; their panels have no curve
## (private/f5_method.m, f5_exact_axes.m)
function m = deterministic_methods ()
  m = {'saliency', 'saliency_abs', 'saliency_l2', 'gradxinput', 'deeplift', 'occlusion'};
end

function m = other_methods ()
  m = [sampled_methods(), deterministic_methods()];
end

## {method, dataset} of a panel name METHOD_DATASET of a method other than
## IG and SV, or {} (the dataset is checked against the preset's); the
## longest method that prefixes the name (saliency_abs_spam is
## saliency_abs on spam, not saliency on abs_spam)
function md = method_panel (name)
  md = {};
  for m = other_methods ()
    n = numel (m{1});
    if (numel (name) > n + 1 && strncmpi (name, [m{1} '_'], n + 1) && (isempty (md) || n > numel (md{1})))
      md = {m{1}, lower(name(n+2:end))};
    end
  end
end

## The panels that 'panels' asks for beyond the preset's: METHOD_DATASET,
## or a bare METHOD (one panel per dataset of the preset).  Each copies the
## preset's panel on that dataset, the one of the nearer method when there
## are two (the coalition methods an SV panel's settings, the gradient
## methods an IG panel's), so that it shares its classifier (and cache);
## its targets, curve and explainer have keys of their own.  A
## deterministic method's panel has no curve (f5_panel) and its explainer
## reads the token ids only (one pass), unless the overrides say otherwise.
function Q = method_panels (panels, select)
  Q = panels([]);
  ds = cellfun (@fileparts_name, {panels.data}, 'uniformoutput', false);
  for k = 1:numel (select)
    nm = lower (select{k});
    if (any (strcmp (nm, {panels.name})) || any (strcmp (nm, {'ig', 'sv'})))
      continue;
    end
    if (any (strcmp (nm, other_methods ())))
      pairs = cellfun (@(x) {nm, x}, unique (ds, 'stable'), 'uniformoutput', false);
    else
      md = method_panel (nm);
      if (isempty (md))
        continue;                       # an unknown name: refused with the list below
      end
      if (! any (strcmp (md{2}, ds)))
        error ('ee:badInput', 'figure5: ''panels'': no dataset ''%s'' in this run (datasets: %s)', md{2}, ...
               strjoin (unique (ds), ', '));
      end
      pairs = {md};
    end
    for j = 1:numel (pairs)
      [m, dn] = deal (pairs{j}{:});
      name = [m '_' dn];
      if (any (strcmp (name, {Q.name})))
        continue;
      end
      on = find (strcmp (ds, dn));
      near = ifelse (any (strcmp (m, {'kernelshap', 'lime', 'occlusion'})), 'sv', 'ig');
      at = on(find (strcmp ({panels(on).method}, near), 1));
      if (isempty (at)) at = on(1); end
      q = panels(at);
      q.name = name;
      q.method = m;
      q.expl.distill = [];              # the preset's distillation belongs to its own method
      q.expl.loss = 'mse';
      q.expl.margin = false;            # and so does its margin (maps such as |gradient| do not flip)
      if (strcmp (panels(at).expl.loss, 'shapley_kernel'))
        ## that panel's rows need no maps (coalition values are cheap);
        ## this one learns the method's maps: as many rows as the SV
        ## panels had when they learned SV maps
        q.n_train = min (q.n_train, 8000);
        q.n_unlabelled = min (q.n_unlabelled, 4000);
      end
      if (any (strcmp (m, deterministic_methods ())))
        q.expl.inputs = 'tokens';       # cheaper than the method itself (1 to n + 2 passes)
      end
      if (isempty (Q)) Q = q; else Q(end+1) = q; end
    end
  end
end

function n = fileparts_name (f)
  [~, n] = fileparts (f);
end

function a = merge_struct (a, b)
  for f = fieldnames (b)'
    if (! isfield (a, f{1}))
      error ('ee:badInput', 'figure5: unknown setting ''%s''', f{1});
    end
    if (isstruct (a.(f{1})) && isstruct (b.(f{1})))
      a.(f{1}) = merge_struct (a.(f{1}), b.(f{1}));
    else
      a.(f{1}) = b.(f{1});
    end
  end
end

## the pipeline itself is tested by tests/octave/test_figure5.m (a 'tiny' run)
%!error <unknown preset> figure5 ('nosuch')
%!error <unknown option> figure5 ('tiny', 'nosuch', 1)
%!error <'kind' must be> figure5 ('tiny', 'kind', 'rnn')
%!error <no data file> figure5 ('tiny', 'data_ig', '/nonexistent/file.mat')
%!error <'panels' must name> figure5 ('tiny', 'panels', 'shap')
%!error <'panels' must name> figure5 ('tiny', 'panels', 'kernelshap_')
%!error <DeepLIFT is not defined on the transformer> figure5 ('tiny', 'panels', 'deeplift_spam')
%!error <deeplift_spam: DeepLIFT is not defined> figure5 ('tiny', 'panels', {'ig', 'deeplift'})
%!error <no dataset 'xyz_spam'> figure5 ('tiny', 'panels', 'saliency_xyz_spam')
%!error <no dataset 'imdb'> figure5 ('tiny', 'panels', 'lime_imdb')
%!error <unknown setting> figure5 ('tiny', 'panels', 'lime_spam', 'lime', struct ('nosuch', 1))
%!error <unknown setting> figure5 ('tiny', 'ig', struct ('nosuch', 1))
%!error <'model' is a struct> figure5 ('tiny', 'model', 3)
%!error <'model'.f must be> figure5 ('tiny', 'model', struct ('X', 1), 'figures', tempname ())
