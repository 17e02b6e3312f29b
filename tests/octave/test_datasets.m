function [passed, failed] = test_datasets (datadir, names)
  % TEST_DATASETS  Check spam.mat, fortunes.mat and wordnet.mat, and the
  % generalization suite's sotu.mat, manpages.mat, manpage_titles.mat,
  % fortunes_de.mat and fortunes_es.mat, against the dataset layout contract
  % and check that they are learnable.
  %
  %   [passed, failed] = test_datasets (DATADIR)
  %   [passed, failed] = test_datasets (DATADIR, {'mydata', ...})
  %
  % DATADIR defaults to the repository's datasets/ folder (build the files
  % first with datasets/build.sh). For each dataset it checks the layout
  % strictly (variables, types, sizes, id ranges, [CLS] ... [SEP] [PAD]...
  % structure, vocab(1:4), classes, disjoint and covering splits, info
  % consistency) and trains a multinomial naive Bayes on bag-of-words of the
  % train split, reporting valid/test accuracy. Prints one line per check
  % and a closing "test_datasets: N passed, M failed" line. With NAMES,
  % checks DATADIR/<name>.mat for each name instead (any other name gets
  % the generic contract checks: C >= 2, NB accuracy only reported).
  if (nargin < 1 || isempty (datadir))
    here = fileparts (mfilename ('fullpath'));
    datadir = fullfile (here, '..', '..', 'datasets');
  end
  t0 = tic ();
  passed = 0;
  failed = 0;

  % name, expected classes ({} = any), min #classes, min NB test accuracy,
  % vocabulary built by datasets/lib/common.js (words counted after
  % truncation on the train rows, so each occurs >= min_count times there)
  man_classes = {'syscalls', 'library', 'devices+formats', 'overviews'};
  specs = { 'spam',     {'ham', 'spam'}, 2, 0.90, true;
            'fortunes', {},              4, 0.45, true;
            'wordnet',  {},             45, 0.40, true;
            'sotu',     {'1790-1860', '1861-1900', '1901-1952', '1953-2021'}, 4, 0.65, true;
            'manpages', man_classes,     4, 0.75, true;
            'manpage_titles', man_classes, 4, 0.50, true;
            'fortunes_de', {},           5, 0.60, true;
            'fortunes_es', {},           5, 0.60, true };
  if (nargin >= 2)
    if (ischar (names))
      names = {names};
    end
    known = specs;
    specs = cell (0, 5);
    for k = 1:numel (names)
      i = find (strcmp (known(:, 1), names{k}), 1);
      if (isempty (i))
        specs(end+1, :) = {names{k}, {}, 2, 0, false};
      else
        specs(end+1, :) = known(i, :);
      end
    end
  end
  for k = 1:rows (specs)
    [p, f] = check_dataset (datadir, specs{k, :});
    passed += p;
    failed += f;
  end
  printf ('test_datasets: %d passed, %d failed (%.1f s)\n', passed, failed, toc (t0));
end

function [passed, failed] = check_dataset (datadir, name, want_classes, min_classes, min_acc, our_vocab)
  passed = 0;
  failed = 0;
  function ok = check (cond, msg, varargin)
    ok = ! isempty (cond) && all (logical (cond(:)));
    if (ok)
      passed++;
      printf ('PASS %s: %s\n', name, sprintf (msg, varargin{:}));
    else
      failed++;
      printf ('FAIL %s: %s\n', name, sprintf (msg, varargin{:}));
    end
  end

  file = fullfile (datadir, [name '.mat']);
  if (! check (exist (file, 'file') == 2, '%s exists (run datasets/build.sh)', file))
    return;
  end
  try
    S = load (file);
    check (true, 'load %s', file);
  catch err
    check (false, 'load %s: %s', file, err.message);
    return;
  end

  want = {'classes', 'info', 'labels', 'split', 'tokens', 'vocab'};
  vars = setdiff (fieldnames (S).', {'unlabelled'});
  if (! check (isequal (sort (vars), want), ...
               'variables are tokens, labels, vocab, classes, split, info (and optional unlabelled)'))
    return;
  end
  tokens = S.tokens; labels = S.labels; vocab = S.vocab;
  classes = S.classes; split = S.split; info = S.info;

  % ---- vocab / classes
  ok_vocab = iscell (vocab) && rows (vocab) == 1 && columns (vocab) >= 5 ...
             && all (cellfun (@(w) ischar (w) && rows (w) == 1 && ! isempty (w), vocab));
  check (ok_vocab, 'vocab is a 1 x V cell of non-empty char rows (V = %d)', numel (vocab));
  if (! ok_vocab)
    return;
  end
  V = numel (vocab);
  check (isequal (vocab(1:4), {'[PAD]', '[UNK]', '[CLS]', '[SEP]'}), ...
         'vocab(1:4) = {[PAD],[UNK],[CLS],[SEP]}');
  check (numel (unique (vocab)) == V, 'vocab entries are unique');
  ok_cls = iscell (classes) && rows (classes) == 1 && numel (classes) >= min_classes ...
           && all (cellfun (@(w) ischar (w) && rows (w) == 1 && ! isempty (w), classes)) ...
           && numel (unique (classes)) == numel (classes);
  check (ok_cls, 'classes is a 1 x C cell of distinct char rows, C = %d >= %d', ...
         numel (classes), min_classes);
  if (! isempty (want_classes))
    check (isequal (classes, want_classes), 'classes = {%s}', strjoin (want_classes, ','));
  end
  C = numel (classes);

  % ---- tokens
  ok_tok = isa (tokens, 'int32') && ismatrix (tokens) && rows (tokens) >= 1 && columns (tokens) >= 3;
  check (ok_tok, 'tokens is int32 N x T (%s %s)', class (tokens), mat2str (size (tokens)));
  if (! ok_tok)
    return;
  end
  [N, T] = size (tokens);
  check (all (tokens(:) >= 1 & tokens(:) <= V), 'token ids in 1..V');
  check (all (tokens(:, 1) == 3), 'every row starts with [CLS]');
  real = tokens != 1;                                  % non-PAD
  L = sum (real, 2);                                   % length incl. CLS, SEP
  check (all (all (diff (real, 1, 2) <= 0)), 'PAD only at the end of each row');
  check (all (L >= 2), 'every row has at least [CLS] [SEP]');
  sep_at_L = tokens(sub2ind ([N, T], (1:N).', max (L, 1))) == 4;
  check (all (sep_at_L), '[SEP] is the last non-PAD token of every row');
  check (all (sum (tokens == 4, 2) == 1) && all (sum (tokens == 3, 2) == 1), ...
         'exactly one [CLS] and one [SEP] per row');

  % ---- unlabelled rows (optional): same row layout, never a labelled row
  if (isfield (S, 'unlabelled'))
    U = S.unlabelled;
    ok_u = isa (U, 'int32') && ismatrix (U) && columns (U) == T;
    check (ok_u, 'unlabelled is int32 M x T (%s %s)', class (U), mat2str (size (U)));
    if (ok_u && rows (U) > 0)
      Lu = sum (U != 1, 2);
      check (all (U(:) >= 1 & U(:) <= V) && all (U(:, 1) == 3) ...
             && all (all (diff (U != 1, 1, 2) <= 0)) && all (Lu >= 3) ...
             && all (U(sub2ind (size (U), (1:rows (U)).', Lu)) == 4), ...
             'unlabelled rows: ids in 1..V, [CLS] words [SEP] then PAD (M = %d)', rows (U));
      check (! any (ismember (U, tokens, 'rows')), 'no unlabelled row equals a labelled row');
      check (numel (unique (U, 'rows')) / T == rows (U), 'unlabelled rows are distinct');
    end
  end

  % ---- labels
  ok_lab = isa (labels, 'int32') && isequal (size (labels), [N, 1]);
  check (ok_lab, 'labels is int32 N x 1');
  check (all (labels >= 1 & labels <= C), 'labels in 1..C');
  check (all (accumarray (double (labels(:)), 1, [C, 1]) > 0), 'every class occurs');

  % ---- split
  ok_split = isstruct (split) && isscalar (split) ...
             && isequal (sort (fieldnames (split)).', {'test', 'train', 'valid'});
  check (ok_split, 'split is a struct with fields train, valid, test');
  if (! ok_split)
    return;
  end
  parts = {split.train, split.valid, split.test};
  ok_vec = all (cellfun (@(x) (isa (x, 'double') || isa (x, 'int32')) && iscolumn (x) ...
                       && ! isempty (x) && all (x == fix (x)) && all (x >= 1 & x <= N), parts));
  check (ok_vec, 'split.train/valid/test are non-empty double/int32 columns of row indices in 1..N');
  if (! ok_vec)
    return;
  end
  tr = double (split.train); va = double (split.valid); te = double (split.test);
  allidx = [tr; va; te];
  check (numel (unique (allidx)) == numel (allidx), 'splits are disjoint (no repeated index)');
  check (isequal (sort (allidx), (1:N).'), 'splits cover all N = %d rows', N);
  want_frac = [0.7, 0.1, 0.2];
  if (isstruct (info) && isfield (info, 'split_fractions') && numel (info.split_fractions) == 3)
    want_frac = reshape (double (info.split_fractions), 1, 3);
  end
  frac = [numel(tr), numel(va), numel(te)] / N;
  check (all (abs (frac - want_frac) < 0.02), 'split fractions %.3f/%.3f/%.3f ~ %g/%g/%g', ...
         frac, want_frac);
  lab = double (labels);
  cnt = [accumarray(lab(tr), 1, [C, 1]), accumarray(lab(va), 1, [C, 1]), accumarray(lab(te), 1, [C, 1])];
  check (all (cnt(:) > 0), 'every class occurs in every split');
  check (all (abs (cnt ./ sum (cnt, 2) - want_frac)(:) < 0.03), 'splits are stratified by class');

  % ---- info
  req = {'source', 'T', 'min_count', 'vocab_cap', 'split_fractions', 'seed', ...
         'categories', 'counts', 'n_truncated'};
  ok_info = isstruct (info) && isscalar (info) && all (isfield (info, req));
  check (ok_info, 'info has fields %s', strjoin (req, ', '));
  if (ok_info)
    check (ischar (info.source) && ! isempty (info.source), 'info.source = "%s"', info.source);
    check (isequal (double (info.T), T), 'info.T == size(tokens, 2) == %d', T);
    check (isequal (double (info.counts), cnt), 'info.counts == class x split counts');
    check (isequal (info.categories, classes), 'info.categories == classes');
    check (V - 4 <= info.vocab_cap, 'V - 4 = %d <= vocab_cap = %d', V - 4, info.vocab_cap);
    check (info.n_truncated <= sum (L == T), ...
           'info.n_truncated = %d <= rows filling all T positions (%d)', info.n_truncated, sum (L == T));
    % Vocabulary comes from the training split only: every word id occurs
    % at least min_count times in the train rows.
    if (our_vocab)
      trc = accumarray (double (reshape (tokens(tr, :), [], 1)), 1, [V, 1]);
      check (all (trc(5:end) >= info.min_count), ...
             'vocab from train only: every word occurs >= min_count = %d times in train', info.min_count);
    end
  end

  % ---- separability: multinomial naive Bayes on bag-of-words
  ids = double (tokens);
  mask = ids != 1 & ids != 3 & ids != 4;               % words (incl. [UNK])
  [r, c] = find (mask);
  X = sparse (r, ids(sub2ind ([N, T], r, c)), 1, N, V);
  Xtr = X(tr, :);
  Y = sparse (1:numel (tr), lab(tr), 1, numel (tr), C);
  wc = full (Y.' * Xtr) + 1;                            % Laplace, alpha = 1
  logtheta = log (wc ./ sum (wc, 2));                   % C x V
  logprior = log (full (sum (Y, 1)) / numel (tr));      % 1 x C
  [~, pva] = max (full (X(va, :) * logtheta.') + logprior, [], 2);
  [~, pte] = max (full (X(te, :) * logtheta.') + logprior, [], 2);
  acc_va = mean (pva == lab(va));
  acc_te = mean (pte == lab(te));
  majority = max (cnt(:, 3)) / numel (te);
  check (acc_te > min_acc, ...
         'naive Bayes accuracy valid %.4f, test %.4f (> %.2f; majority class %.4f)', ...
         acc_va, acc_te, min_acc, majority);
end
