## test_hostile: the toolbox's public functions called as a hostile user
## would (issue 25): wrong types, out-of-range ids and sizes, empty and
## huge inputs, NUL and invalid UTF-8 in strings, names and option names.
## Every error must carry an ee: identifier (ee:badInput, ee:badModel,
## ee:ioError, ee:outOfMemory, ...), never an Octave-internal one
## (Octave:index-out-of-bounds, an empty id); the calls marked 'refuse'
## must fail (a bad input accepted silently is a failure too), those
## marked 'any' may also succeed.  Each block prints its count of calls
## and of errors without an ee: id, which must be 0; no file may be left
## behind in the folder the calls write to.
1;

%!function r = hostile_run (who, cases)
%!  ## cases: rows {kind, label, function handle}; kind 'refuse' or 'any'
%!  n = rows(cases); noid = {}; accepted = {}; ids = {};
%!  for k = 1:n
%!    [kind, label, f] = cases{k, :};
%!    try
%!      f();
%!      if (strcmp(kind, 'refuse'))
%!        accepted{end+1} = label;
%!      end
%!    catch err
%!      ids{end+1} = err.identifier;
%!      if (! strncmp(err.identifier, 'ee:', 3))
%!        noid{end+1} = sprintf('%s [id ''%s'': %s]', label, err.identifier, strtok(err.message, "\n"));
%!      elseif (any(err.message == "\n"))
%!        noid{end+1} = sprintf('%s [a message of several lines]', label);
%!      end
%!    end
%!  end
%!  printf('      %s: %d hostile calls, %d without an ee: id, %d bad inputs accepted\n', who, n, numel(noid), ...
%!          numel(accepted));
%!  for k = 1:numel(noid) printf('        without an ee: id: %s\n', noid{k}); end
%!  for k = 1:numel(accepted) printf('        accepted: %s\n', accepted{k}); end
%!  r = struct('n', n, 'noid', numel(noid), 'accepted', numel(accepted));

%!function s = desc (v)
%!  ## a value, short, for the case labels
%!  if ((isnumeric (v) || islogical (v)) && numel (v) <= 4)
%!    s = mat2str (v);
%!  elseif (ischar (v) && rows (v) == 1 && numel (v) <= 20)
%!    v(v < 32 | v > 126) = '?';
%!    s = ['''' v ''''];
%!  else
%!    s = sprintf ('a %s %s', mat2str (size (v)), class (v));
%!  end

%!function three_outputs (V)
%!  [a, b, c] = ee_tokenize (V, 'good');

%!function c = hostile_strings ()
%!  ## values that are not the char row a name or text must be
%!  c = {7, {'a'}, struct('a', 1), ['ab'; 'cd'], ['a' char(0) 'b'], char([97 255 98]), char(195), true, NaN, [], 1:3, @sin, int8(5), single(Inf), 3 + 2i};

%!shared V, x, dir0, f, tally
%! tally = [0 0 0];                 # calls, errors without an ee: id, bad inputs accepted
%! V = {'[PAD]', '[UNK]', '[CLS]', '[SEP]', 'good', 'bad', 'movie', "caf\xc3\xa9"};
%! x = int32([3 5 7 6 4 1 1]);
%! dir0 = tempname(); mkdir(dir0);
%! f = fullfile(dir0, 'h.png');

%!test
%! ## ee_detokenize
%! C = {};
%! for v = hostile_strings()
%!   C(end+1, :) = {'refuse', sprintf('vocab %s', desc(v{1})), @() ee_detokenize(v{1}, x)};
%!   C(end+1, :) = {'refuse', sprintf('vocab with a word %s', desc(v{1})), @() ee_detokenize([V {v{1}}], x)};
%! end
%! for bad = {[0 3], [-1 3], [NaN 3], [Inf 3], [3 9], [3 1.5], [3 4 9i], {3}, 'abc', int32([3 100]), [3 2^40], -Inf}
%!   C(end+1, :) = {'refuse', sprintf('X %s', desc(bad{1})), @() ee_detokenize(V, bad{1})};
%! end
%! [X, info] = ee_tokenize(V, 'good movie');
%! for sp = {0, -1, NaN, [0 4], [-2 4], [NaN 4], [1 100], [4 1], [1.5 4], 'ab', {1}, [1 4 5], [1 4; 6 11]}
%!   bad = info; bad.spans = {sp{1}};
%!   C(end+1, :) = {'refuse', sprintf('spans %s', desc(sp{1})), @() ee_detokenize(V, X, bad)};
%! end
%! for t = hostile_strings()
%!   bad = info; bad.text = {t{1}};
%!   C(end+1, :) = {'refuse', sprintf('info.text %s', desc(t{1})), @() ee_detokenize(V, X, bad)};
%! end
%! C(end+1, :) = {'refuse', 'info not a struct', @() ee_detokenize(V, X, 7)};
%! C(end+1, :) = {'refuse', 'info.spans not a cell', @() ee_detokenize(V, X, setfield(info, 'spans', 5))};
%! C(end+1, :) = {'refuse', 'duplicate word', @() ee_detokenize([V {'good'}], x)};
%! C(end+1, :) = {'refuse', 'empty word', @() ee_detokenize([V {''}], x)};
%! C(end+1, :) = {'refuse', 'model without words', @() ee_detokenize(struct('T', 7), x)};
%! C(end+1, :) = {'refuse', 'model with a NUL word', @() ee_detokenize(struct('vocab_words', {[V {['a' char(0)]}]}), x)};
%! C(end+1, :) = {'any', 'empty X', @() ee_detokenize(V, zeros(0, 7))};
%! C(end+1, :) = {'any', 'big X', @() ee_detokenize(V, 3 * ones(2000, 500))};
%! r = hostile_run('ee_detokenize', C);
%! tally += [r.n r.noid r.accepted];
%! assert([r.noid r.accepted], [0 0]);

%!test
%! ## ee_heatmap
%! a = [0 1 0.2 -1 0 0 0];
%! C = {};
%! for v = hostile_strings()
%!   C(end+1, :) = {'refuse', sprintf('file %s', desc(v{1})), @() ee_heatmap(v{1}, x, V, a)};
%!   C(end+1, :) = {'refuse', sprintf('vocab %s', desc(v{1})), @() ee_heatmap(f, x, v{1}, a)};
%!   C(end+1, :) = {'refuse', sprintf('option name %s', desc(v{1})), @() ee_heatmap(f, x, V, a, [], v{1}, 1)};
%!   if (! (ischar(v{1}) && rows(v{1}) == 1 && all(v{1} != 0) && strcmp(__u8_validate__(v{1}), v{1})))
%!     for o = {'title', 'font', 'class'}(1:2 + ! iscellstr(v{1}))   # a cell of texts is a class
%!       C(end+1, :) = {'refuse', sprintf('%s %s', o{1}, class(v{1})), @() ee_heatmap(f, x, V, a, [], o{1}, v{1})};
%!     end
%!   end
%! end
%! C(end+1, :) = {'refuse', 'option name with a NUL', @() ee_heatmap(f, x, V, a, [], ['title' char(0)], 't')};
%! C(end+1, :) = {'refuse', 'file .jpg', @() ee_heatmap(fullfile(dir0, 'h.jpg'), x, V, a)};
%! C(end+1, :) = {'refuse', 'file in a missing folder', @() ee_heatmap(fullfile(dir0, 'no', 'h.png'), x, V, a)};
%! C(end+1, :) = {'refuse', 'file a folder', @() ee_heatmap([dir0 '.png/'], x, V, a)};
%! C(end+1, :) = {'refuse', 'files {}', @() ee_heatmap({}, x, V, a)};
%! for w = {Inf, -1, 0, NaN, 1.5, '40', [40 50], 1e9, {40}, 40i, true}
%!   C(end+1, :) = {'refuse', sprintf('width %s', desc(w{1})), @() ee_heatmap(f, x, V, a, [], 'width', w{1})};
%! end
%! for c = {NaN, 2, -1, 'yes', [true false], {}, []}
%!   C(end+1, :) = {'refuse', sprintf('colorbar %s', desc(c{1})), @() ee_heatmap(f, x, V, a, [], 'colorbar', c{1})};
%!   C(end+1, :) = {'refuse', sprintf('specials %s', desc(c{1})), @() ee_heatmap(f, x, V, a, [], 'specials', c{1})};
%! end
%! for s = {-1, 0, NaN, Inf, 'bogus', [1 2], {1}, 'EACH '}
%!   C(end+1, :) = {'refuse', sprintf('scale %s', desc(s{1})), @() ee_heatmap(f, x, V, a, [], 'scale', s{1})};
%! end
%! for bx = {[0 3 4], [3 9 4], [3 NaN 4], [], 'abc', {3}, [3 4; 3 4], [3 1.5 4]}
%!   C(end+1, :) = {'refuse', sprintf('x %s', desc(bx{1})), @() ee_heatmap(f, bx{1}, V, zeros(size(bx{1})))};
%! end
%! for m = {[1 2], [0 NaN 0 0 0 0 0], [0 Inf 0 0 0 0 0], 'abcdefg', {1}, a + 1i, []}
%!   C(end+1, :) = {'refuse', sprintf('top %s', desc(m{1})), @() ee_heatmap(f, x, V, m{1})};
%! end
%! C(end+1, :) = {'refuse', 'bottom of another size', @() ee_heatmap(f, x, V, a, [1 2 3])};
%! C(end+1, :) = {'refuse', 'odd options', @() ee_heatmap(f, x, V, a, [], 'title')};
%! C(end+1, :) = {'refuse', 'labels not texts', @() ee_heatmap(f, x, V, a, [], 'labels', {1, 2})};
%! C(end+1, :) = {'refuse', 'text and info', @() ee_heatmap(f, x, V, a, [], 'text', 'good', 'info', struct('text', {{'good'}}))};
%! C(end+1, :) = {'refuse', 'text that is not X', @() ee_heatmap(f, x, V, a, [], 'text', 'bad bad')};
%! C(end+1, :) = {'refuse', 'text invalid UTF-8', @() ee_heatmap(f, x, V, a, [], 'text', char([103 255]))};
%! C(end+1, :) = {'refuse', 'info not of one text', @() ee_heatmap(f, x, V, a, [], 'info', 7)};
%! C(end+1, :) = {'refuse', 'duplicate vocabulary word', @() ee_heatmap(f, x, [V {'good'}], a)};
%! r = hostile_run('ee_heatmap', C);
%! tally += [r.n r.noid r.accepted];
%! assert([r.noid r.accepted], [0 0]);
%! left = dir(dir0);
%! assert(numel(left), 2);       # '.' and '..': no file written, none half written

%!test
%! ## ee_heatmap_html
%! A = zeros(2, 7); X = [x; x];
%! h = fullfile(dir0, 'h.html');
%! C = {};
%! for v = hostile_strings()
%!   C(end+1, :) = {'refuse', sprintf('file %s', desc(v{1})), @() ee_heatmap_html(v{1}, X, V, A, A)};
%!   C(end+1, :) = {'refuse', sprintf('vocab %s', desc(v{1})), @() ee_heatmap_html(h, X, v{1}, A, A)};
%!   C(end+1, :) = {'refuse', sprintf('option name %s', desc(v{1})), @() ee_heatmap_html(h, X, V, A, A, v{1}, 1)};
%!   if (! (ischar(v{1}) && rows(v{1}) == 1 && all(v{1} != 0) && strcmp(__u8_validate__(v{1}), v{1})))
%!     C(end+1, :) = {'refuse', sprintf('title %s', desc(v{1})), @() ee_heatmap_html(h, X, V, A, A, 'title', v{1})};
%!     C(end+1, :) = {'refuse', sprintf('names {%s}', desc(v{1})), @() ee_heatmap_html(h, X, V, A, A, 'names', {'a', v{1}})};
%!     C(end+1, :) = {'refuse', sprintf('classes {%s}', desc(v{1})), @() ee_heatmap_html(h, X, V, A, A, 'classes', {'a', v{1}})};
%!   end
%! end
%! for bx = {X + 10, -X, double(X) / 2, NaN(2, 7), 'abc', {X}, double(X) + 1i}
%!   C(end+1, :) = {'refuse', sprintf('X %s', desc(bx{1})), @() ee_heatmap_html(h, bx{1}, V, A, A)};
%! end
%! C(end+1, :) = {'refuse', 'vocab not a cell', @() ee_heatmap_html(h, X, 'abc', A, A)};
%! C(end+1, :) = {'refuse', 'odd options', @() ee_heatmap_html(h, X, V, A, A, 'title')};
%! C(end+1, :) = {'refuse', 'names of one', @() ee_heatmap_html(h, X, V, A, A, 'names', {'one'})};
%! C(end+1, :) = {'refuse', 'names not a cell', @() ee_heatmap_html(h, X, V, A, A, 'names', 'one')};
%! for t = {[1; 3], [0; 1], [1; NaN], [1; 1.5], [1 2 1], 'ab', {1; 2}}
%!   C(end+1, :) = {'refuse', sprintf('target %s', desc(t{1})), @() ee_heatmap_html(h, X, V, A, A, 'classes', {'p', 'q'}, 'target', t{1})};
%!   C(end+1, :) = {'refuse', sprintf('labels %s', desc(t{1})), @() ee_heatmap_html(h, X, V, A, A, 'classes', {'p', 'q'}, 'labels', t{1})};
%! end
%! for m = {[1 2 3], 'ab', {1; 2}, [1; 2i]}
%!   C(end+1, :) = {'refuse', sprintf('mse %s', desc(m{1})), @() ee_heatmap_html(h, X, V, A, A, 'mse', m{1})};
%! end
%! for b = {zeros(2, 6), NaN(2, 7), 'abcdefg', {A}}
%!   C(end+1, :) = {'refuse', sprintf('A %s', desc(b{1})), @() ee_heatmap_html(h, X, V, b{1}, A)};
%! end
%! C(end+1, :) = {'refuse', 'file in a missing folder', @() ee_heatmap_html(fullfile(dir0, 'no', 'h.html'), X, V, A, A)};
%! C(end+1, :) = {'refuse', 'file a folder', @() ee_heatmap_html(dir0, X, V, A, A)};
%! r = hostile_run('ee_heatmap_html', C);
%! tally += [r.n r.noid r.accepted];
%! assert([r.noid r.accepted], [0 0]);
%! left = dir(dir0);
%! assert(numel(left), 2);

%!test
%! ## ee_plot_text, on a small classifier
%! Xt = int32([3 5 7 4 1; 3 6 7 4 1; 3 5 4 1 1; 3 6 4 1 1]);
%! m = ee_train(struct('kind', 'cnn', 'd', 4, 'filters', 2, 'widths', 2, 'vocab', {V}), Xt, [2; 1; 2; 1], ...
%!               'epochs', 1, 'verbose', false);
%! p = fullfile(dir0, 'p.png');
%! C = {};
%! for v = hostile_strings()
%!   if (! (ischar(v{1}) && rows(v{1}) == 1 && strcmp(__u8_validate__(v{1}), v{1})))   # a NUL separates words
%!     C(end+1, :) = {'refuse', sprintf('text %s', desc(v{1})), @() ee_plot_text(m, v{1}, 'file', p)};
%!   end
%!   C(end+1, :) = {'refuse', sprintf('file %s', desc(v{1})), @() ee_plot_text(m, 'good', 'file', {v{1}})};
%!   C(end+1, :) = {'refuse', sprintf('option name %s', desc(v{1})), @() ee_plot_text(m, 'good', v{1}, 1)};
%!   if (! isempty(v{1}))             # 'vocab', [] is the default: the model's words
%!     C(end+1, :) = {'refuse', sprintf('vocab %s', desc(v{1})), @() ee_plot_text(m, 'good', 'vocab', v{1}, 'file', p)};
%!   end
%! end
%! for s = {-1, 0, NaN, Inf, 'bogus', [1 2], {1}}
%!   C(end+1, :) = {'refuse', sprintf('scale %s', desc(s{1})), @() ee_plot_text(m, 'good', 'scale', s{1}, 'file', p)};
%! end
%! for o = {'steps', 'samples', 'width'}
%!   for w = {0, -3, NaN, Inf, 1.5, '3', [2 3], 2^40}
%!     C(end+1, :) = {'refuse', sprintf('%s %s', o{1}, class(w{1})), @() ee_plot_text(m, 'good', o{1}, w{1}, 'file', p)};
%!   end
%! end
%! for t = {0, 3, NaN, 'neutral', {1}, [1 2], 1.5}
%!   C(end+1, :) = {'refuse', sprintf('target %s', desc(t{1})), @() ee_plot_text(m, 'good', 'target', t{1}, 'file', p)};
%! end
%! C(end+1, :) = {'refuse', 'method lime', @() ee_plot_text(m, 'good', 'method', 'lime', 'file', p)};
%! C(end+1, :) = {'refuse', 'method 3', @() ee_plot_text(m, 'good', 'method', 3, 'file', p)};
%! C(end+1, :) = {'refuse', 'explainer without one', @() ee_plot_text(m, 'good', 'method', 'explainer', 'file', p)};
%! C(end+1, :) = {'refuse', 'explainer 7', @() ee_plot_text(m, 'good', 'method', 'explainer', 'explainer', 7, 'file', p)};
%! C(end+1, :) = {'refuse', 'seed -1', @() ee_plot_text(m, 'good', 'method', 'sv', 'seed', -1, 'file', p)};
%! C(end+1, :) = {'refuse', 'specials 2', @() ee_plot_text(m, 'good', 'specials', 2, 'file', p)};
%! C(end+1, :) = {'refuse', 'model 7', @() ee_plot_text(7, 'good', 'file', p)};
%! C(end+1, :) = {'refuse', 'an explainer as model', @() ee_plot_text(setfield(m, 'head', 'token'), 'good', 'file', p)};
%! C(end+1, :) = {'refuse', 'odd options', @() ee_plot_text(m, 'good', 'file')};
%! C(end+1, :) = {'refuse', 'empty text', @() ee_plot_text(m, '', 'file', p)};
%! C(end+1, :) = {'any', 'a text of NUL separators', @() ee_plot_text(m, ['good' char(0) 'bad'], 'file', p)};
%! r = hostile_run('ee_plot_text', C);
%! tally += [r.n r.noid r.accepted];
%! assert([r.noid r.accepted], [0 0]);
%! if (exist(p, 'file')) delete(p); end
%! left = dir(dir0);
%! assert(numel(left), 2);

%!test
%! ## ee_save_figure
%! graphics_toolkit('gnuplot');
%! fig = figure('visible', 'off', 'position', [0 0 100 50]);
%! unwind_protect
%!   plot([1 2], [2 1]);
%!   C = {};
%!   for v = hostile_strings()
%!     C(end+1, :) = {'refuse', sprintf('file %s', desc(v{1})), @() ee_save_figure(fig, v{1})};
%!     C(end+1, :) = {'refuse', sprintf('files {%s}', desc(v{1})), @() ee_save_figure(fig, {fullfile(dir0, 'a.pdf'), v{1}})};
%!     C(end+1, :) = {'refuse', sprintf('fig %s', desc(v{1})), @() ee_save_figure(v{1}, fullfile(dir0, 'a.pdf'))};
%!     C(end+1, :) = {'refuse', sprintf('option name %s', desc(v{1})), @() ee_save_figure(fig, fullfile(dir0, 'a.pdf'), v{1}, 3)};
%!   end
%!   for d = {0, -1, NaN, Inf, 1e6, '300', [1 2], 300i}
%!     C(end+1, :) = {'refuse', sprintf('dpi %s', desc(d{1})), @() ee_save_figure(fig, fullfile(dir0, 'a.png'), 'dpi', d{1})};
%!   end
%!   C(end+1, :) = {'refuse', 'odd options', @() ee_save_figure(fig, fullfile(dir0, 'a.png'), 'dpi')};
%!   C(end+1, :) = {'refuse', 'no files', @() ee_save_figure(fig, {})};
%!   C(end+1, :) = {'refuse', 'a missing folder', @() ee_save_figure(fig, fullfile(dir0, 'no', 'a.pdf'))};
%!   C(end+1, :) = {'refuse', 'a .jpg', @() ee_save_figure(fig, fullfile(dir0, 'a.jpg'))};
%!   r = hostile_run('ee_save_figure', C);
%! unwind_protect_cleanup
%!   close(fig);
%! end_unwind_protect
%! tally += [r.n r.noid r.accepted];
%! assert([r.noid r.accepted], [0 0]);
%! left = dir(dir0);
%! assert(numel(left), 2);

%!test
%! ## ee_targets, ee_convergence, ee_agreement: the checks before any work
%! m = struct('kind', 'cnn');
%! X = int32([3 5 4]);
%! C = {};
%! for v = hostile_strings()
%!   C(end+1, :) = {'refuse', sprintf('targets method %s', desc(v{1})), @() ee_targets(m, X, v{1})};
%!   C(end+1, :) = {'refuse', sprintf('targets option name %s', desc(v{1})), @() ee_targets(m, X, 'sv', v{1}, 1)};
%!   C(end+1, :) = {'refuse', sprintf('convergence method %s', desc(v{1})), @() ee_convergence(m, X, v{1}, 3)};
%!   C(end+1, :) = {'refuse', sprintf('convergence option name %s', desc(v{1})), @() ee_convergence(m, X, 'sv', 3, v{1}, 1)};
%!   if (! (ischar(v{1}) && rows(v{1}) == 1 && all(v{1} != 0) && strcmp(__u8_validate__(v{1}), v{1})))
%!     for o = {'launcher', 'folder', 'program'}
%!       C(end+1, :) = {'refuse', sprintf('targets %s %s', o{1}, class(v{1})), @() ee_targets(m, X, 'sv', 'ranks', 2, o{1}, v{1})};
%!     end
%!     C(end+1, :) = {'refuse', sprintf('convergence checkpoint %s', desc(v{1})), @() ee_convergence(m, X, 'sv', 3, 'checkpoint', v{1})};
%!   end
%! end
%! for n = {0, -1, NaN, Inf, 1.5, '2', [2 3], 2^40, 2i}
%!   C(end+1, :) = {'refuse', sprintf('ranks %s', desc(n{1})), @() ee_targets(m, X, 'sv', 'ranks', n{1})};
%!   C(end+1, :) = {'refuse', sprintf('convergence S %s', desc(n{1})), @() ee_convergence(m, X, 'sv', n{1})};
%!   C(end+1, :) = {'refuse', sprintf('convergence seed %s', desc(n{1} - 5)), @() ee_convergence(m, X, 'sv', 3, 'seed', n{1} - 5)};
%!   C(end+1, :) = {'refuse', sprintf('agreement k %s', desc(n{1})), @() ee_agreement(X, [1 2 3], [1 2 3], n{1})};
%! end
%! for n = {-1, NaN, Inf, 1.5, 'x'}
%!   C(end+1, :) = {'refuse', sprintf('threads %s', desc(n{1})), @() ee_targets(m, X, 'sv', 'ranks', 2, 'threads', n{1})};
%!   C(end+1, :) = {'refuse', sprintf('chunk %s', desc(n{1})), @() ee_targets(m, X, 'sv', 'ranks', 2, 'chunk', n{1})};
%! end
%! C(end+1, :) = {'refuse', 'targets: a model that is not', @() ee_targets(7, X, 'ig')};
%! C(end+1, :) = {'refuse', 'targets: odd options', @() ee_targets(m, X, 'ig', 'steps')};
%! C(end+1, :) = {'refuse', 'convergence: X a cell', @() ee_convergence(m, {X}, 'sv', 3)};
%! C(end+1, :) = {'refuse', 'convergence: target of another size', @() ee_convergence(m, X, 'sv', 3, 'target', [1 2])};
%! C(end+1, :) = {'refuse', 'convergence: verbose NaN', @() ee_convergence(m, X, 'sv', 3, 'verbose', NaN)};
%! C(end+1, :) = {'refuse', 'agreement: A of another size', @() ee_agreement(X, [1 2], [1 2 3])};
%! C(end+1, :) = {'refuse', 'agreement: A with NaN', @() ee_agreement(X, [1 NaN 3], [1 2 3])};
%! C(end+1, :) = {'refuse', 'agreement: A a cell', @() ee_agreement(X, {1, 2, 3}, [1 2 3])};
%! C(end+1, :) = {'refuse', 'agreement: X a struct', @() ee_agreement(struct('a', {1, 2, 3}), [1 2 3], [1 2 3])};
%! C(end+1, :) = {'any', 'agreement: empty', @() ee_agreement(zeros(0, 3), zeros(0, 3), zeros(0, 3))};
%! r = hostile_run('ee_targets, ee_convergence, ee_agreement', C);
%! tally += [r.n r.noid r.accepted];
%! assert([r.noid r.accepted], [0 0]);

%!test
%! ## the gateways ee_tokenize and ee_vocab
%! C = {};
%! for v = hostile_strings()
%!   C(end+1, :) = {'refuse', sprintf('tokenize vocab %s', desc(v{1})), @() ee_tokenize(v{1}, 'good')};
%!   C(end+1, :) = {'refuse', sprintf('tokenize vocab word %s', desc(v{1})), @() ee_tokenize([V {v{1}}], 'good')};
%!   C(end+1, :) = {'refuse', sprintf('tokenize option name %s', desc(v{1})), @() ee_tokenize(V, 'good', v{1}, 5)};
%!   C(end+1, :) = {'refuse', sprintf('vocab option name %s', desc(v{1})), @() ee_vocab({'good'}, v{1}, 5)};
%!   if (! ((ischar(v{1}) && rows(v{1}) == 1 && strcmp(__u8_validate__(v{1}), v{1})) || iscellstr(v{1})))
%!     C(end+1, :) = {'refuse', sprintf('tokenize text %s', desc(v{1})), @() ee_tokenize(V, v{1})};
%!     C(end+1, :) = {'refuse', sprintf('vocab text %s', desc(v{1})), @() ee_vocab({'good', v{1}})};
%!   end
%! end
%! for o = {'T', 'truncate', 'empty'}
%!   C(end+1, :) = {'refuse', sprintf('option %s with a NUL', o{1}), @() ee_tokenize(V, 'good', [o{1} char(0) 'x'], 5)};
%! end
%! for t = {0, 2, -1, NaN, Inf, 1.5, 2^40, '5', [5 6]}
%!   C(end+1, :) = {'refuse', sprintf('T %s', desc(t{1})), @() ee_tokenize(V, 'good', 'T', t{1})};
%! end
%! for t = {0, -1, NaN, Inf, 1.5, 2^40, '5', [5 6], {2}}
%!   C(end+1, :) = {'refuse', sprintf('min_count %s', desc(t{1})), @() ee_vocab({'good'}, 'min_count', t{1})};
%! end
%! for t = {-1, NaN, -Inf, 1.5, 2^40, '5', [5 6], {2}}
%!   C(end+1, :) = {'refuse', sprintf('max_words %s', desc(t{1})), @() ee_vocab({'good'}, 'max_words', t{1})};
%! end
%! C(end+1, :) = {'refuse', 'a 400 GB request', @() ee_tokenize(V, repmat({'good'}, 1, 1e5), 'T', 1e6)};
%! C(end+1, :) = {'refuse', 'a duplicate word', @() ee_tokenize([V {'good'}], 'good')};
%! C(end+1, :) = {'refuse', 'an empty word', @() ee_tokenize([V {''}], 'good')};
%! C(end+1, :) = {'refuse', 'text too long, no truncation', @() ee_tokenize(V, 'good bad good', 'T', 4, 'truncate', false)};
%! C(end+1, :) = {'refuse', 'odd options', @() ee_tokenize(V, 'good', 'T')};
%! C(end+1, :) = {'refuse', 'three outputs', @() three_outputs(V)};
%! C(end+1, :) = {'any', 'many texts', @() ee_tokenize(V, repmat({'good bad'}, 1, 2e4))};
%! C(end+1, :) = {'any', 'empty cell', @() ee_vocab({})};
%! C(end+1, :) = {'any', 'a text with NUL separators', @() ee_tokenize(V, ['good' char(0) 'bad'])};
%! r = hostile_run('ee_tokenize, ee_vocab', C);
%! tally += [r.n r.noid r.accepted];
%! assert([r.noid r.accepted], [0 0]);

%!test
%! ## the gateways ee_faithfulness and ee_gradient (issue 20)
%! vdir = fullfile (fileparts (which ('ee_gradient')), '..', 'tests', 'vectors');
%! w = load (fullfile (vdir, 'transformer_tiny.mat')); m = w.model; X = w.X; A = zeros (size (X), 'single');
%! C = {};
%! for v = hostile_strings()
%!   C(end+1, :) = {'refuse', sprintf('faithfulness option name %s', desc(v{1})), @() ee_faithfulness(m, X, A, v{1}, 5)};
%!   C(end+1, :) = {'refuse', sprintf('gradient option name %s', desc(v{1})), @() ee_gradient(m, X, v{1}, 5)};
%!   if (! (ischar(v{1}) && rows(v{1}) == 1))
%!     C(end+1, :) = {'refuse', sprintf('score %s', desc(v{1})), @() ee_faithfulness(m, X, A, 'score', v{1})};
%!     C(end+1, :) = {'refuse', sprintf('method %s', desc(v{1})), @() ee_gradient(m, X, 'method', v{1})};
%!     C(end+1, :) = {'refuse', sprintf('noise %s', desc(v{1})), @() ee_gradient(m, X, 'noise', v{1})};
%!   end
%! end
%! for a = {zeros(5, 11), zeros(4, 12), zeros(5, 12, 2), 'abc', {A}, A + 1i, [], single(NaN(5, 12)), Inf(5, 12), sparse(5, 12)}
%!   C(end+1, :) = {'refuse', sprintf('maps %s', desc(a{1})), @() ee_faithfulness(m, X, a{1})};
%! end
%! for k = {-1, NaN, Inf, 1.5, 2^40, '5', [5 6], {2}}
%!   C(end+1, :) = {'refuse', sprintf('steps %s', desc(k{1})), @() ee_faithfulness(m, X, A, 'steps', k{1})};
%!   C(end+1, :) = {'refuse', sprintf('samples %s', desc(k{1})), @() ee_gradient(m, X, 'noise', 'smoothgrad', 'samples', k{1})};
%! end
%! for k = {0, 101, -1, NaN, 2.5, 'x'}
%!   C(end+1, :) = {'refuse', sprintf('logodds %s', desc(k{1})), @() ee_faithfulness(m, X, A, 'logodds', k{1})};
%! end
%! for k = {-1, NaN, Inf, -Inf, 'x', [1 2], 1i}
%!   C(end+1, :) = {'refuse', sprintf('stdev %s', desc(k{1})), @() ee_gradient(m, X, 'noise', 'vargrad', 'stdev', k{1})};
%! end
%! for b = {zeros(0, 12), ones(2, 11), 41 * ones(1, 12), 'abc', {1}, NaN(1, 12)}
%!   C(end+1, :) = {'refuse', sprintf('background %s', desc(b{1})), @() ee_gradient(m, X, 'method', 'gradientshap', 'background', b{1})};
%! end
%! C(end+1, :) = {'refuse', 'noise values of another size', @() ee_gradient(m, X, 'noise', 'smoothgrad', 'samples', 2, 'noise_values', zeros(8, 2))};
%! C(end+1, :) = {'refuse', 'noise values NaN', @() ee_gradient(m, X, 'noise', 'smoothgrad', 'samples', 1, 'noise_values', NaN(96, 1, 5))};
%! C(end+1, :) = {'refuse', 'samples without noise', @() ee_gradient(m, X, 'samples', 3)};
%! C(end+1, :) = {'refuse', 'steps of saliency', @() ee_gradient(m, X, 'steps', 3)};
%! C(end+1, :) = {'refuse', 'gradientshap in a tunnel', @() ee_gradient(m, X, 'method', 'gradientshap', 'noise', 'vargrad', 'background', X(1,:))};
%! C(end+1, :) = {'refuse', 'deeplift on a transformer', @() ee_gradient(m, X, 'method', 'deeplift')};
%! cn = load (fullfile (vdir, 'cnn_tiny.mat'));
%! C(end+1, :) = {'refuse', 'deeplift steps', @() ee_gradient(cn.model, cn.X, 'method', 'deeplift', 'steps', 3)};
%! C(end+1, :) = {'refuse', 'deeplift rule', @() ee_gradient(cn.model, cn.X, 'method', 'deeplift', 'rule', 'riemann_left')};
%! C(end+1, :) = {'refuse', 'deeplift baseline of 2 rows', @() ee_gradient(cn.model, cn.X, 'method', 'deeplift', 'baseline', ones(2, 12))};
%! C(end+1, :) = {'refuse', 'deeplift baseline name', @() ee_gradient(cn.model, cn.X, 'method', 'deeplift', 'baseline', 'mean')};
%! C(end+1, :) = {'refuse', 'faithfulness zero baseline', @() ee_faithfulness(m, X, A, 'baseline', 'zero')};
%! C(end+1, :) = {'refuse', 'faithfulness odd options', @() ee_faithfulness(m, X, A, 'steps')};
%! C(end+1, :) = {'refuse', 'faithfulness rows out of range', @() ee_faithfulness(m, X, A, 'rows', 6)};
%! C(end+1, :) = {'refuse', 'gradient rows out of range', @() ee_gradient(m, X, 'rows', 0)};
%! C(end+1, :) = {'refuse', 'a 400 GB noise tunnel', @() ee_gradient(m, repmat(X, 1000, 1), 'noise', 'smoothgrad', 'samples', 1e6, 'return_noise', true)};
%! C(end+1, :) = {'any', 'faithfulness of no rows', @() ee_faithfulness(m, X, A, 'rows', [])};
%! C(end+1, :) = {'any', 'gradient of no rows', @() ee_gradient(m, X, 'rows', [])};
%! r = hostile_run('ee_faithfulness, ee_gradient', C);
%! tally += [r.n r.noid r.accepted];
%! assert([r.noid r.accepted], [0 0]);

%!test
%! ## the total of the blocks above; the folder they wrote to goes
%! printf ('      hostile calls in all: %d, %d without an ee: id, %d bad inputs accepted\n', tally);
%! confirm_recursive_rmdir (false, 'local');
%! rmdir (dir0, 's');
%! assert (! exist (dir0, 'dir'));
%! assert (tally(1) > 500);
%! assert (tally(2:3), [0 0]);
