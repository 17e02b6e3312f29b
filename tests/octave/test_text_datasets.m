## test_text_datasets: the datasets were built with the text rule that
## ee_tokenize and ee_vocab apply to a user's text.  For each text dataset (spam, fortunes,
## wordnet and the generalization suite's) it reads the raw texts the builders wrote next to their
## intermediate files (datasets/build/<name>.texts.bin, .texts.json) and
## checks that
## - ee_tokenize (vocab, texts, 'T', T) is the .mat's tokens, row for row;
## - ee_vocab of the train rows' texts (first T - 2 words, the dataset's
##   min_count and vocab_cap) is the .mat's vocab;
## - the unlabelled rows are the encoded words start+1 .. start+T-2 of their
##   source texts.
## Build the datasets first (datasets/build.sh; tests/run_all.sh does).
## A missing dataset fails: the install script brings everything needed.

%!function check_dataset (name)
%!  root = fileparts (fileparts (fileparts (which ('test_text_datasets'))));
%!  d = load (fullfile (root, 'datasets', [name '.mat']));
%!  base = fullfile (root, 'datasets', 'build', name);
%!  j = jsondecode (fileread ([base '.texts.json']));
%!  src = read_texts ([base '.texts.bin'], j.n_texts + j.n_extra);
%!  T = columns (d.tokens);
%!  texts = src(1:j.n_texts);
%!  assert (numel (texts), rows (d.tokens));
%!  X = ee_tokenize (d.vocab, texts, 'T', T);
%!  bad = find (any (X != d.tokens, 2));
%!  assert (isempty (bad), '%s: %d rows differ from the .mat (first: %d)', name, numel (bad), bad(1:min (1, end)));
%!  V = ee_vocab (texts(d.split.train), 'T', T, 'min_count', d.info.min_count, ...
%!                'max_words', d.info.vocab_cap);
%!  assert (V, d.vocab);
%!  U = d.unlabelled;
%!  if (isempty (U))
%!    return;
%!  end
%!  u = j.unlabelled;                      # M x 2: 0-based source, word offset
%!  assert (rows (u), rows (U));
%!  first = u(:, 2) == 0;                  # whole texts: truncation is the rule
%!  if (any (first))
%!    assert (ee_tokenize (d.vocab, src(u(first, 1) + 1), 'T', T), U(first, :));
%!  end
%!  ## windows further into a text: each source tokenized once, in chunks
%!  ## of similar length (a call pads to its longest text)
%!  win = find (! first);
%!  [srcs, ~, which] = unique (u(win, 1));
%!  [~, o] = sort (cellfun (@numel, src(srcs + 1)));
%!  ids = cell (numel (srcs), 1);
%!  for c = 1:100:numel (o)
%!    k = o(c:min (end, c + 99));
%!    x = ee_tokenize (d.vocab, src(srcs(k) + 1));
%!    for q = 1:numel (k)
%!      ids{k(q)} = x(q, x(q, :) != 1)(2:end-1);      # the words, without CLS/SEP
%!    end
%!  end
%!  for q = 1:numel (win)
%!    r = win(q);
%!    x = ids{which(q)};
%!    w = x(u(r, 2) + 1 : min (numel (x), u(r, 2) + T - 2));
%!    want = int32 ([3 w 4 ones(1, T - 2 - numel (w))]);
%!    if (! isequal (U(r, :), want))
%!      error ('%s: unlabelled row %d differs from its source text', name, r);
%!    end
%!  end
%!endfunction

%!function t = read_texts (file, n)
%!  fid = fopen (file, 'r');
%!  assert (fid >= 0, 'cannot open %s (run datasets/build.sh)', file);
%!  b = fread (fid, Inf, 'uint8=>uint8');
%!  fclose (fid);
%!  t = cell (n, 1);
%!  p = 1;
%!  for k = 1:n
%!    len = double (typecast (b(p:p+3), 'uint32'));
%!    t{k} = char (b(p+4:p+3+len))';
%!    p += 4 + len;
%!  end
%!  assert (p, numel (b) + 1);
%!endfunction

%!test check_dataset ('spam')
%!test check_dataset ('fortunes')
%!test check_dataset ('wordnet')
%!test check_dataset ('sotu')
%!test check_dataset ('manpages')
%!test check_dataset ('manpage_titles')
%!test check_dataset ('fortunes_de')
%!test check_dataset ('fortunes_es')
